// The one rule for a path to come back to (after sign-in, OAuth, a redirect): a same-origin path.
// Kept free of zod so the SPA's main bundle can use it; shared/auth.ts wraps it for the API.

const RETURN_PATH_MAX_LENGTH = 1000;

// A UTF-16 surrogate without its pair cannot be encoded as UTF-8 (encodeURIComponent throws on it).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// C0 and C1 controls and DEL: NUL cannot go into a header, CR/LF would split it, a tab is dropped
// by URL parsers (so "/\t/evil.com" would become "//evil.com").
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A printable path on this site: starts with exactly one "/", no "//" in the path part, no
 * backslash anywhere (browsers read it as "/"), no control characters, no lone surrogates.
 */
export function isSameOriginPath(p: unknown): p is string {
  if (typeof p !== "string" || p.length === 0 || p.length > RETURN_PATH_MAX_LENGTH) return false;
  if (!p.startsWith("/") || p.includes("\\") || CONTROL.test(p) || LONE_SURROGATE.test(p)) return false;
  const pathPart = p.split(/[?#]/, 1)[0];
  return !pathPart.includes("//");
}
