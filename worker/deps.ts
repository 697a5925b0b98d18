// The composition root: the dependencies each service gets in production, built from the Worker's
// bindings in one place (routes, crons and Workflows call these; tests call them with the test env).
import { createDb } from "./db/client";
import type { Bindings } from "./lib/env";
import { payoutBaseDeps, type PayoutDeps } from "./services/payouts";
import type { PurchaseDeps } from "./services/purchases/deps";
import { stripeClient } from "./services/stripe";
import { startPayoutSend } from "./workflows/payout-send";

/** The payout services' deps; a send is started as its own PayoutSendWorkflow instance. */
export const payoutDeps = (env: Bindings): PayoutDeps => ({
  ...payoutBaseDeps(env),
  startSend: (payoutId) => startPayoutSend(env, payoutId),
});

/** What settling a charge needs, outside a request (crons, sweeps). */
export function purchaseDepsOf(env: Bindings): PurchaseDeps {
  return {
    db: createDb(env.DB),
    d1: env.DB,
    stripe: stripeClient(env),
    emails: env.EMAILS,
    webhooks: env.WEBHOOKS,
    appUrl: env.APP_URL,
    accessSecret: env.ACCESS_TOKEN_SECRET ?? "",
  };
}
