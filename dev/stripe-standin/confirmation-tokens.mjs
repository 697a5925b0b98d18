// ConfirmationTokens, Stripe-shaped (docs.stripe.com/api/confirmation_tokens): what Stripe.js's
// createConfirmationToken makes from the Payment Element (or a wallet) so the server can read the card
// (payment_method_preview: type, card fingerprint, billing details) before it confirms the PaymentIntent
// ("finalize payments on the server"). Created by Stripe.js (publishable key) or the test helper
// (secret key); retrieved with the secret key; used once by a confirm, which creates the PaymentMethod
// from it; expires 12 hours after creation. See docs/payments.md.
import { badParam, StripeError } from "./errors.mjs";
import { now, rid } from "./wire.mjs";

const LIFETIME_SECONDS = 12 * 60 * 60;
const SETUP_FUTURE_USAGE = ["off_session", "on_session"];

/** @param {any} kit */
export function confirmationTokens(kit) {
  const { db, get, publicPm, paymentMethodFrom } = kit;

  /** What the PaymentMethod made at confirm will say, without its own id (it has none yet). */
  function previewOf(pm) {
    const {
      id: _id,
      object: _object,
      created: _created,
      livemode: _livemode,
      metadata: _metadata,
      ...rest
    } = publicPm(pm);
    return rest;
  }

  function createToken(p) {
    if (p.payment_method && p.payment_method_data)
      throw badParam(
        "payment_method_data",
        "You may only specify one of these parameters: payment_method, payment_method_data.",
      );
    if (!p.payment_method && !p.payment_method_data?.type)
      throw new StripeError(
        400,
        "invalid_request_error",
        "Missing required param: payment_method_data[type].",
        {
          code: "parameter_missing",
          param: "payment_method_data[type]",
        },
        { validation: true },
      );
    if (p.setup_future_usage !== undefined && !SETUP_FUTURE_USAGE.includes(p.setup_future_usage))
      throw badParam(
        "setup_future_usage",
        `Invalid setup_future_usage: must be one of ${SETUP_FUTURE_USAGE.join(", ")}`,
      );
    // An existing PaymentMethod is used as it is; card or wallet details become a PaymentMethod only
    // at confirm (the draft is kept privately, never listed).
    const pm = paymentMethodFrom(p, null);
    const existing = !!p.payment_method && !p.payment_method.startsWith("pm_card_");
    if (!existing) db.payment_methods.delete(pm.id);
    const created = now();
    const token = {
      id: rid("ctoken"),
      object: "confirmation_token",
      created,
      expires_at: created + LIFETIME_SECONDS,
      livemode: false,
      metadata: null,
      mandate_data: null,
      payment_intent: null,
      payment_method_options: null,
      payment_method_preview: previewOf(pm),
      return_url: p.return_url ?? null,
      setup_future_usage: p.setup_future_usage ?? null,
      setup_intent: null,
      shipping: p.shipping ?? null,
      use_stripe_sdk: true,
      _pm: existing ? pm.id : pm,
    };
    db.confirmation_tokens.set(token.id, token);
    return token;
  }

  /**
   * The PaymentMethod a confirm of `pi` uses from token `id`, which is then spent: a token confirms
   * one intent, once, before it expires.
   */
  function spendToken(id, pi) {
    const token = get("confirmation_tokens", id);
    const refuse = (message) =>
      new StripeError(400, "invalid_request_error", message, { param: "confirmation_token" }, { validation: true });
    if (token.payment_intent || token.setup_intent)
      throw refuse(
        `This ConfirmationToken has already been used to confirm ${token.payment_intent ?? token.setup_intent}.`,
      );
    if (token.expires_at !== null && token.expires_at <= now()) throw refuse("This ConfirmationToken has expired.");
    let pm;
    if (typeof token._pm === "string") pm = get("payment_methods", token._pm);
    else {
      pm = { ...token._pm, id: rid("pm"), created: now() };
      db.payment_methods.set(pm.id, pm);
    }
    Object.assign(token, { payment_intent: pi.id, expires_at: null });
    return { pm, returnUrl: token.return_url, setupFutureUsage: token.setup_future_usage };
  }

  const routes = [
    // What Stripe.js's createConfirmationToken calls, with the publishable key.
    ["POST", /^\/v1\/confirmation_tokens$/, "either", (p) => createToken(p)],
    // docs.stripe.com/api/confirmation_tokens/test_create: for a server's integration tests.
    ["POST", /^\/v1\/test_helpers\/confirmation_tokens$/, "secret", (p) => createToken(p)],
    ["GET", /^\/v1\/confirmation_tokens\/(ctoken_\w+)$/, "secret", (_p, m) => get("confirmation_tokens", m[1])],
  ];

  return { spendToken, routes };
}
