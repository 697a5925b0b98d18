// Vite's `?raw` imports (a file's text), as the worker tests use them.
declare module "*?raw" {
  const source: string;
  export default source;
}
