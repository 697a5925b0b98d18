// Bot protection's contract between the forms and the Worker (docs/security.md, "Bot protection"):
// the header a Turnstile token travels in, the word a browser sends when the widget could not give
// one, each form's action, and the refusal's text. Zod-free: the paywall's bundle imports it.

/** The request header carrying the widget's token (the name Turnstile gives its form field). */
export const HUMAN_CHECK_HEADER = "cf-turnstile-response";

/** Sent instead of a token when the widget could not load or answer in time: the server then applies the strict limit. */
export const HUMAN_CHECK_UNAVAILABLE = "unavailable";

/** Turnstile's `action` per protected form (analytics; letters, digits, `-` and `_`, at most 32). */
export const HUMAN_CHECK_ACTIONS = {
  checkout: "checkout",
  signIn: "sign-in",
  feedback: "feedback",
  libraryLink: "library-link",
} as const;
export type HumanCheckAction = (typeof HUMAN_CHECK_ACTIONS)[keyof typeof HUMAN_CHECK_ACTIONS];

/** 403 when siteverify refused the token (forged, expired or already used); the form gets a fresh one. */
export const HUMAN_CHECK_REFUSED = "We couldn't confirm this request came from a person. Please try again.";

/** GET /api/human-check: what a page needs to draw the widget; `siteKey` null when none is configured. */
export type HumanCheckConfig = { siteKey: string | null; scriptUrl: string };
