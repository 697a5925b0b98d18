// The Worker's bindings: those from wrangler.toml (generated `Env`) plus secrets, which live in
// `.dev.vars` locally and `wrangler secret` in production, never in wrangler.toml.
export type Bindings = Env & {
  ADMIN_EMAIL?: string;
  SESSION_TTL_SECONDS?: string;
  MAIL_API_KEY?: string;
  GOOGLE_CLIENT_ID?: string;
  GOOGLE_CLIENT_SECRET?: string;
  GITHUB_CLIENT_ID?: string;
  GITHUB_CLIENT_SECRET?: string;
  STRIPE_SECRET_KEY?: string;
  STRIPE_PUBLISHABLE_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  /** The Connect endpoint's signing secret (events about connected accounts); optional. */
  STRIPE_CONNECT_WEBHOOK_SECRET?: string;
  /** Local runs only: the Stripe stand-in's API and Stripe.js. Unset in production. */
  STRIPE_API_BASE?: string;
  STRIPE_JS_URL?: string;
  /** Local runs only: how long a checkout reminder waits (default an hour; the browser tests use seconds). */
  CHECKOUT_REMINDER_DELAY_SECONDS?: string;
  /** Turnstile's secret for siteverify (worker/lib/human-check.ts); unset, every protected form is held to the strict limit. */
  TURNSTILE_SECRET_KEY?: string;
  /** JSON: ApeWall's tax registration by place ("EU", "GB", "US-WA"…), as invoices name it (docs/tax.md). */
  TAX_REGISTRATION_NUMBERS?: string;
  /** The seller's address an invoice prints (docs/tax.md). */
  TAX_SELLER_ADDRESS?: string;
  /** Keys the HMAC that makes purchase access tokens. */
  ACCESS_TOKEN_SECRET?: string;
  /** Keys the encryption of webhook endpoints' signing secrets at rest (services/webhook-secrets.ts). */
  WEBHOOK_SECRETS_KEY?: string;
  /** Verifies the mail provider's delivery webhooks (Resend: the endpoint's `whsec_…` signing secret). */
  MAIL_WEBHOOK_SECRET?: string;
};

export const isDevelopment = (env: Pick<Bindings, "APP_ENV">) => env.APP_ENV === "development";
