/** "Nov 27, 2026": how the library writes a date. */
export const dateInWords = (iso: string) =>
  new Date(iso).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" });
