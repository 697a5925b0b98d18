// The composition root: the dependencies each service gets in production, built from the Worker's
// bindings in one place (routes, crons and Workflows call these; tests call them with the test env).
import { createDb } from "./db/client";
import type { Bindings } from "./lib/env";
import { payoutBaseDeps, type PayoutDeps } from "./services/payouts/deps";
import type { PurchaseDeps } from "./services/purchases/deps";
import { stripeClient } from "./services/stripe";
import { startPayoutSend } from "./workflows/payout-send";

/** The payout services' deps; a send is started as its own PayoutSendWorkflow instance. */
export const payoutDeps = (env: Bindings): PayoutDeps => ({
  ...payoutBaseDeps(env),
  startSend: (payoutId) => startPayoutSend(env, payoutId),
});

/** The purchase services' deps: in a request with its db (routes/purchase-context.ts), else a new one (crons, sweeps). */
export function purchaseDepsOf(env: Bindings, db = createDb(env.DB)): PurchaseDeps {
  const reminderSeconds = Number(env.CHECKOUT_REMINDER_DELAY_SECONDS);
  return {
    db,
    d1: env.DB,
    stripe: stripeClient(env),
    emails: env.EMAILS,
    webhooks: env.WEBHOOKS,
    appUrl: env.APP_URL,
    accessSecret: env.ACCESS_TOKEN_SECRET ?? "",
    ...(reminderSeconds > 0 ? { reminderDelayMs: reminderSeconds * 1000 } : {}),
  };
}
