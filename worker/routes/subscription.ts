// The Pro plan for the signed-in creator: start (client secret for the first invoice), state, cancel.
import { Hono } from "hono";
import { requireUser, type AppEnv } from "../middleware/context";
import { stripeClient } from "../services/stripe";
import { cancelAtPeriodEnd, createSubscription, subscriptionState } from "../services/subscriptions";
import { doc } from "../openapi/describe";
import { subscriptionStartedSchema, subscriptionStateSchema } from "../../shared/subscription";

export const subscriptionRoutes = new Hono<AppEnv>()
  .post(
    "/create-subscription",
    doc({
      tag: "Subscription",
      summary: "Start ApeWall Pro",
      access: "session",
      ok: subscriptionStartedSchema,
      errors: { 409: "Already on Pro", 502: "Stripe could not be reached" },
    }),
    requireUser,
    async (c) => c.json(await createSubscription({ db: c.var.db, stripe: stripeClient(c.env) }, c.var.userId)),
  )
  .get(
    "/subscription",
    doc({ tag: "Subscription", summary: "The plan and its renewal", access: "session", ok: subscriptionStateSchema }),
    requireUser,
    async (c) => c.json(await subscriptionState(c.var.db, c.var.userId)),
  )
  .post(
    "/subscription/cancel",
    doc({
      tag: "Subscription",
      summary: "Cancel Pro at the end of the period",
      access: "session",
      ok: subscriptionStateSchema,
      errors: { 404: "No subscription", 502: "Stripe could not be reached" },
    }),
    requireUser,
    async (c) => c.json(await cancelAtPeriodEnd({ db: c.var.db, stripe: stripeClient(c.env) }, c.var.userId)),
  );
