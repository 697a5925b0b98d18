// The Pro plan for the signed-in creator: start (client secret for the first invoice), state, cancel.
import { Hono } from "hono";
import { requireUser, type AppEnv } from "../lib/context";
import { stripeClient } from "../services/stripe";
import { cancelAtPeriodEnd, createSubscription, subscriptionState } from "../services/subscriptions";

export const subscriptionRoutes = new Hono<AppEnv>()
  .post("/create-subscription", requireUser, async (c) => c.json(await createSubscription({ db: c.var.db, stripe: stripeClient(c.env) }, c.var.userId)))
  .get("/subscription", requireUser, async (c) => c.json(await subscriptionState(c.var.db, c.var.userId)))
  .post("/subscription/cancel", requireUser, async (c) => c.json(await cancelAtPeriodEnd({ db: c.var.db, stripe: stripeClient(c.env) }, c.var.userId)));
