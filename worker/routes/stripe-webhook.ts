// Stripe webhooks: the signature is checked on the raw body, each event is handled once, and the
// objects are re-read from Stripe rather than trusted from the payload.
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { webhookEvents } from "../db/schema";
import type { AppEnv } from "../lib/context";
import { ApiError } from "../lib/errors";
import { fulfil, handleDispute, handleDisputeClosed, handleRefund } from "../services/purchases";
import { handleTransferReversed, payoutDeps } from "../services/payouts";
import { verifyWebhook } from "../services/stripe";
import { purchaseDeps } from "./payments";

export const stripeWebhookRoutes = new Hono<AppEnv>().post("/stripe/webhook", async (c) => {
  const raw = await c.req.text();
  const event = await verifyWebhook(c.env, raw, c.req.header("stripe-signature"));
  if (!event) throw new ApiError(400, "Invalid webhook signature");

  const db = c.var.db;
  await db.insert(webhookEvents).values({ id: event.id, type: event.type }).onConflictDoNothing();
  const seen = await db.select({ processedAt: webhookEvents.processedAt }).from(webhookEvents).where(eq(webhookEvents.id, event.id)).get();
  if (seen?.processedAt) return c.json({ received: true, duplicate: true });

  const deps = purchaseDeps(c);
  const object = event.data.object as { id: string };
  switch (event.type) {
    case "payment_intent.succeeded":
      await fulfil(deps, await deps.stripe.paymentIntents.retrieve(object.id));
      break;
    case "charge.refunded":
      await handleRefund(deps, object.id);
      break;
    case "charge.dispute.created":
      await handleDispute(deps, object.id);
      break;
    case "charge.dispute.closed":
      await handleDisputeClosed(deps, object.id);
      break;
    case "transfer.reversed":
      await handleTransferReversed(payoutDeps(c.env), object.id);
      break;
    default:
      // Other events are acknowledged and ignored.
      break;
  }
  // Marked only after the work is done: a failure above answers 500 and Stripe redelivers.
  await db.update(webhookEvents).set({ processedAt: new Date() }).where(eq(webhookEvents.id, event.id));
  return c.json({ received: true });
});
