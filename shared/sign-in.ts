// The sign-in page's words and hooks, printed by the Worker (worker/pages/sign-in.tsx) and its island
// (web/site/sign-in.ts) alike (docs/pages.md). Zod-free: the island's bundle imports it.

export const SIGN_IN_TEXT = {
  title: "Sign in to ApeWall",
  lead: "No password needed: we'll email you a link.",
  emailLabel: "Email",
  emailPlaceholder: "you@example.com",
  emailInvalid: "Please enter a valid email address.",
  send: "Email me a sign-in link",
  or: "or",
  google: "Continue with Google",
  github: "Continue with GitHub",
  sentTitle: "Check your email",
  /** Around the address: "We sent a sign-in link to {email}. It works once…" */
  sentBefore: "We sent a sign-in link to ",
  sentAfter: ". It works once and expires in 15 minutes. This page continues by itself once you've signed in.",
  /** The same, after a form post without JavaScript (nothing watches for the session then). */
  sentAfterNoScript: ". It works once and expires in 15 minutes. Open it in this browser to continue.",
  devOutbox: "Running locally: the email is in the",
  devOutboxLink: "dev outbox",
  waiting: "Waiting for you to open the link…",
  again: "Use a different email",
  home: "← Back to home",
} as const;

/** `?error=` from the sign-in callbacks (worker/routes/auth.ts) and what the page says for each. */
export const SIGN_IN_ERRORS: Record<string, string> = {
  "link-invalid": "That sign-in link is invalid, already used or expired. Request a new one below.",
  "state-mismatch": "We couldn't verify that sign-in. Please try again.",
  "oauth-failed": "The sign-in provider didn't answer as expected. Please try again.",
  "email-unverified": "That account's email address isn't verified with the provider. Use the email link instead.",
};

/** The hooks the island finds in the page (`data-part`). */
export const SIGN_IN_PART = {
  form: "sign-in-form",
  email: "sign-in-email",
  emailError: "sign-in-email-error",
  formError: "sign-in-form-error",
  send: "sign-in-send",
  humanCheck: "sign-in-human-check",
  formPanel: "sign-in-form-panel",
  sentPanel: "sign-in-sent-panel",
  sentTo: "sign-in-sent-to",
  sentAfter: "sign-in-sent-after",
  again: "sign-in-again",
  waiting: "sign-in-waiting",
} as const;
