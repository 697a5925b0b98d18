// Stripe.js for the checkout. Production loads js.stripe.com through @stripe/stripe-js; local runs
// load the stand-in's Stripe.js first (STRIPE_JS_URL), which loadStripe then returns as is.
import type { Stripe } from "@stripe/stripe-js";
import { loadStripe } from "@stripe/stripe-js/pure";
import { api } from "./api";

let stripePromise: Promise<Stripe | null> | null = null;

function injectScript(src: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = src;
    script.async = true;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`Could not load ${src}`));
    document.head.appendChild(script);
  });
}

export function getStripe(): Promise<Stripe | null> {
  stripePromise ??= (async () => {
    const config = await api("GET /api/payments/config");
    if (config.stripeJsUrl && !(window as { Stripe?: unknown }).Stripe) await injectScript(config.stripeJsUrl);
    return loadStripe(config.publishableKey);
  })().catch((err) => {
    stripePromise = null;
    throw err;
  });
  return stripePromise;
}
