// The Content-Security-Policy of every HTML page the worker serves: the SPA's pages, the paywall page
// and the API reference. Each allows nothing by default and no framing; see docs/security.md.

/** Stripe.js's origins: the configured one (a local stand-in serves Stripe.js and its API), else Stripe's. */
function stripeOrigins(stripeJsUrl: string | undefined) {
  if (stripeJsUrl) {
    const origin = new URL(stripeJsUrl).origin;
    return { script: origin, frame: origin, connect: origin };
  }
  // Stripe's documented policy for Stripe.js and Elements (docs.stripe.com/security/guide, "Content
  // Security Policy"): js.stripe.com and its subdomains, 3D Secure on hooks.stripe.com.
  return {
    script: "https://js.stripe.com https://*.js.stripe.com",
    frame: "https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com",
    connect: "https://api.stripe.com",
  };
}

/**
 * Turnstile's origin, for its script and the frame it draws the challenge in (Cloudflare's CSP guide:
 * script-src and frame-src): the configured script's (a local stand-in in development), else Cloudflare's.
 */
function turnstileOrigin(scriptUrl: string | undefined): string {
  return new URL(scriptUrl || "https://challenges.cloudflare.com/turnstile/v0/api.js").origin;
}

/** `default-src 'none'`, the directives in the order given, then `frame-ancestors 'none'`. */
function contentSecurityPolicy(directives: Record<string, string>): string {
  return [
    "default-src 'none'",
    ...Object.entries(directives).map(([name, sources]) => `${name} ${sources}`),
    "frame-ancestors 'none'",
  ].join("; ");
}

/**
 * The SPA: scripts from this origin, Stripe.js's and Turnstile's only, styles from this origin plus the <style>
 * elements the app's own code adds (with this response's nonce), requests to this origin and Stripe.
 */
export function spaPolicy(stripeJsUrl: string | undefined, nonce: string, turnstileScriptUrl?: string): string {
  const stripe = stripeOrigins(stripeJsUrl);
  const turnstile = turnstileOrigin(turnstileScriptUrl);
  return contentSecurityPolicy({
    "script-src": `'self' ${stripe.script} ${turnstile}`,
    "style-src": `'self' 'nonce-${nonce}'`,
    "img-src": "'self' data: blob:",
    "font-src": "'self'",
    "media-src": "'self' blob:",
    "connect-src": `'self' ${stripe.connect}`,
    "frame-src": `${stripe.frame} ${turnstile}`,
    "manifest-src": "'self'",
    "form-action": "'self'",
    "base-uri": "'none'",
    "object-src": "'none'",
  });
}

/**
 * The paywall page runs only its own script (no inline script: the item's data is JSON, not code)
 * and, once 'Unlock' is pressed, Stripe.js for the in-place checkout, with the same Stripe origins as
 * the SPA, and Turnstile's script and frame for the bot check on 'Unlock'. Its one inline stylesheet is allowed by its hash; the owner's controls set styles through
 * the DOM, which the policy does not restrict.
 */
export function paywallPolicy(stripeJsUrl: string | undefined, styleHash: string, turnstileScriptUrl?: string): string {
  const stripe = stripeOrigins(stripeJsUrl);
  const turnstile = turnstileOrigin(turnstileScriptUrl);
  return contentSecurityPolicy({
    "script-src": `'self' ${stripe.script} ${turnstile}`,
    "style-src": `'self' '${styleHash}'`,
    "img-src": "'self' data:",
    "media-src": "'self'",
    "connect-src": `'self' ${stripe.connect}`,
    "frame-src": `${stripe.frame} ${turnstile}`,
    "form-action": "'self'",
    "base-uri": "'none'",
  });
}

/**
 * The public pages the Worker renders (docs/pages.md): their own island scripts and Turnstile's, their
 * one inline stylesheet by its hash, requests to this origin; Stripe's origins only for a page that
 * asks for them (`stripeJsUrl` given, "" for Stripe's own).
 */
export function sitePolicy(
  styleHash: string,
  turnstileScriptUrl?: string,
  options: { stripeJsUrl?: string } = {},
): string {
  const turnstile = turnstileOrigin(turnstileScriptUrl);
  const stripe = options.stripeJsUrl === undefined ? null : stripeOrigins(options.stripeJsUrl || undefined);
  return contentSecurityPolicy({
    "script-src": `'self' ${turnstile}${stripe ? ` ${stripe.script}` : ""}`,
    "style-src": `'self' '${styleHash}'`,
    "img-src": "'self' data: blob:",
    // A bought stream plays in the page, from this origin (the library, docs/library.md).
    "media-src": "'self'",
    "connect-src": `'self'${stripe ? ` ${stripe.connect}` : ""}`,
    "frame-src": `${turnstile}${stripe ? ` ${stripe.frame}` : ""}`,
    "form-action": "'self'",
    "base-uri": "'none'",
  });
}

/** The API reference page: Scalar's script from this origin with this response's nonce. */
export function apiReferencePolicy(nonce: string): string {
  return contentSecurityPolicy({
    "script-src": `'self' 'nonce-${nonce}'`,
    // Scalar styles its components at run time.
    "style-src": "'self' 'unsafe-inline'",
    "img-src": "'self' data:",
    "font-src": "'self' data:",
    "connect-src": "'self'",
    "base-uri": "'none'",
    "form-action": "'none'",
  });
}
