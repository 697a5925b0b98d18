// The payment provider client: the real `stripe` SDK in every environment. Only configuration
// differs: STRIPE_API_BASE points it at the local stand-in (dev/stripe-standin) for local runs.
import Stripe from "stripe";
import type { Bindings } from "../lib/env";

/**
 * The payment methods checkout offers, named on its PaymentIntent rather than left to whatever the
 * Dashboard has turned on: cards (Apple Pay and Google Pay pay with a card too) and Link, the
 * wallets the page's Express Checkout Element shows.
 */
export const CHECKOUT_PAYMENT_METHODS: Stripe.PaymentIntentCreateParams.AllowedPaymentMethodType[] = ["card", "link"];

export function stripeClient(env: Bindings): Stripe {
  const key = env.STRIPE_SECRET_KEY;
  if (!key) throw new Error("STRIPE_SECRET_KEY is not set");
  const options: Stripe.StripeConfig = {
    httpClient: Stripe.createFetchHttpClient(),
    maxNetworkRetries: 2,
    timeout: 20_000,
  };
  if (env.STRIPE_API_BASE) {
    // A live key must never be sent anywhere but Stripe.
    if (!key.startsWith("sk_test_")) throw new Error("STRIPE_API_BASE may only be used with a sk_test_ key");
    const base = new URL(env.STRIPE_API_BASE);
    options.host = base.hostname;
    options.port = base.port || (base.protocol === "https:" ? "443" : "80");
    options.protocol = base.protocol.replace(":", "") as "http" | "https";
  }
  return new Stripe(key, options);
}

export async function verifyWebhook(
  env: Bindings,
  rawBody: string,
  signature: string | undefined,
): Promise<Stripe.Event | null> {
  if (!signature) return null;
  const verified = async (secret: string | undefined) => {
    if (!secret) return null;
    try {
      return await Stripe.webhooks.constructEventAsync(
        rawBody,
        signature,
        secret,
        300,
        Stripe.createSubtleCryptoProvider(),
      );
    } catch {
      return null;
    }
  };
  // Stripe signs each endpoint with its own secret: the platform ("Your account") endpoint with
  // STRIPE_WEBHOOK_SECRET, the Connect endpoint with STRIPE_CONNECT_WEBHOOK_SECRET. Both point at
  // this one path. The Connect secret vouches only for events about a connected account (`account`
  // set), never for one about the platform's own objects.
  const platform = await verified(env.STRIPE_WEBHOOK_SECRET);
  if (platform) return platform;
  const connect = await verified(env.STRIPE_CONNECT_WEBHOOK_SECRET);
  return connect && typeof connect.account === "string" && connect.account.length > 0 ? connect : null;
}

/** Stripe's answer for an id it does not have: 404 `resource_missing`. */
export function isUnknownObject(err: unknown): boolean {
  const e = err as { statusCode?: number; code?: string; type?: string } | null;
  return !!e && e.type === "StripeInvalidRequestError" && (e.code === "resource_missing" || e.statusCode === 404);
}

/** Stripe refused an email address (`email_invalid`): one our own check let through. */
export function isInvalidEmail(err: unknown): boolean {
  const e = err as { code?: string; type?: string } | null;
  return !!e && e.type === "StripeInvalidRequestError" && e.code === "email_invalid";
}
