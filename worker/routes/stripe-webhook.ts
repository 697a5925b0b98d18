// Stripe webhooks: the signature is checked on the raw body, each event is handled once, and the
// objects are re-read from Stripe rather than trusted from the payload.
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import type Stripe from "stripe";
import { purchases, webhookEvents } from "../db/schema";
import type { AppEnv } from "../middleware/context";
import type { Bindings } from "../lib/env";
import { ApiError } from "../lib/errors";
import { handleAccountUpdated } from "../services/connect";
import type { PurchaseDeps } from "../services/purchases/deps";
import { applyIntentTerms } from "../services/purchases/checkout-terms";
import { fulfil } from "../services/purchases/fulfil";
import { handleDisputeEvent, handleRefundEvent } from "../services/purchases/settle";
import { recordTaxTransactions } from "../services/tax/transactions";
import { isUnknownObject, verifyWebhook } from "../services/stripe";
import { noteIntentState } from "../services/purchases/processing";
import { onChargeFailed } from "../services/purchases/card-testing";
import { handleSubscriptionInvoice, syncSubscription } from "../services/subscriptions";
import { handleTransferReversed } from "../services/payouts/transfer-rail";
import { payoutDeps } from "../deps";
import { purchaseDeps } from "./purchase-context";

export const stripeWebhookRoutes = new Hono<AppEnv>().post("/stripe/webhook", async (c) => {
  const raw = await c.req.text();
  const event = await verifyWebhook(c.env, raw, c.req.header("stripe-signature"));
  if (!event) throw new ApiError(400, "Invalid webhook signature");
  // Signed is not well-formed: an event without a string id and type, or without an object that has
  // a string id, can never be handled. Answered 400 (Stripe shows it on the endpoint) and logged.
  const shape = event as unknown as {
    id?: unknown;
    type?: unknown;
    data?: { object?: { id?: unknown } | null } | null;
  };
  const problem =
    typeof shape.id !== "string" || shape.id.length === 0 || shape.id.length > 255
      ? "id"
      : typeof shape.type !== "string"
        ? "type"
        : typeof shape.data !== "object" ||
            shape.data === null ||
            typeof shape.data.object !== "object" ||
            shape.data.object === null ||
            Array.isArray(shape.data.object)
          ? "data.object"
          : typeof shape.data.object.id !== "string"
            ? "data.object.id"
            : null;
  if (problem) {
    console.warn("signed webhook payload is not a Stripe event; refused", {
      problem,
      id: typeof shape.id === "string" ? shape.id.slice(0, 255) : null,
    });
    throw new ApiError(400, `Malformed event: ${problem} is missing or of the wrong type`);
  }

  const db = c.var.db;
  await db.insert(webhookEvents).values({ id: event.id, type: event.type }).onConflictDoNothing();
  const seen = await db
    .select({ processedAt: webhookEvents.processedAt })
    .from(webhookEvents)
    .where(eq(webhookEvents.id, event.id))
    .get();
  if (seen?.processedAt) return c.json({ received: true, duplicate: true });

  const deps = purchaseDeps(c);
  const object = event.data.object as { id: string };
  try {
    await handleEvent(c.env, deps, event.type, object.id);
  } catch (err) {
    // An event about an object Stripe does not know (another account or mode, a deleted object)
    // can never succeed: acknowledge it so Stripe stops retrying, change nothing, and say so in the log.
    if (!isUnknownObject(err)) throw err;
    console.warn(
      "webhook names an object Stripe does not know; acknowledged, nothing changed",
      event.id,
      event.type,
      object.id,
    );
  }
  // Marked only after the work is done: a failure above answers 500 and Stripe redelivers.
  await db.update(webhookEvents).set({ processedAt: new Date() }).where(eq(webhookEvents.id, event.id));
  return c.json({ received: true });
});

/**
 * Fulfils a succeeded PaymentIntent. When its purchase's rows do not match what it charged, and the
 * purchase is still pending, the rows are first rewritten to the terms it names (a change of terms
 * left them apart) and checked again; a mismatch that remains is thrown, so the event is not marked
 * handled and Stripe redelivers it (a change under way settles in a moment).
 */
async function fulfilOrRetry(deps: PurchaseDeps, intent: Stripe.PaymentIntent): Promise<void> {
  let outcome = await fulfil(deps, intent);
  if (outcome === "mismatch") {
    // A code that no longer applies, say: the rows stay apart, and the event fails below.
    const repaired = await applyIntentTerms(deps, intent).catch((err) => {
      console.error("could not rewrite the checkout's rows to its PaymentIntent's terms", intent.id, err);
      return false;
    });
    if (repaired) outcome = await fulfil(deps, intent);
  }
  if (outcome !== "mismatch") return;
  const purchase = await deps.db
    .select({ status: purchases.status })
    .from(purchases)
    .where(eq(purchases.paymentIntentId, intent.id))
    .get();
  if (purchase?.status !== "pending") return;
  console.error("succeeded PaymentIntent does not match its pending purchase; Stripe will redeliver", intent.id);
  throw new Error(`payment ${intent.id} does not match its purchase yet`);
}

async function handleEvent(env: Bindings, deps: PurchaseDeps, type: string, objectId: string): Promise<void> {
  const object = { id: objectId };
  switch (type) {
    case "payment_intent.succeeded": {
      const intent = await deps.stripe.paymentIntents.retrieve(object.id);
      await fulfilOrRetry(deps, intent);
      // A taxed order: the tax transaction Stripe committed for it (not yet: Stripe delivers again).
      if (intent.status === "succeeded") await recordTaxTransactions(deps, intent.id);
      break;
    }
    // A payment that settles later: paid-pending while processing, released on failure (purchases/processing.ts).
    case "payment_intent.processing":
    case "payment_intent.payment_failed":
    case "payment_intent.canceled":
      await noteIntentState(deps.d1, await deps.stripe.paymentIntents.retrieve(object.id));
      break;
    // A declined charge counts toward the card-testing limits (../services/purchases/card-testing.ts).
    case "charge.failed":
      await onChargeFailed(deps, object.id);
      break;
    // Refunds and disputes: each names its charge, which is re-read whole (../services/purchases/states.ts).
    case "charge.refunded":
    case "charge.refund.updated":
    case "refund.created":
    case "refund.updated":
    case "refund.failed":
      await handleRefundEvent(deps, { type, id: object.id });
      break;
    case "charge.dispute.created":
    case "charge.dispute.updated":
    case "charge.dispute.funds_withdrawn":
    case "charge.dispute.funds_reinstated":
    case "charge.dispute.closed":
      await handleDisputeEvent(deps, object.id);
      break;
    case "account.updated":
      await handleAccountUpdated(
        { db: deps.db, stripe: deps.stripe, d1: deps.d1, emails: deps.emails, appUrl: deps.appUrl },
        object.id,
      );
      break;
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted":
      await syncSubscription({ db: deps.db, stripe: deps.stripe }, object.id);
      break;
    case "invoice.paid":
    case "invoice.payment_failed":
      await handleSubscriptionInvoice(
        { db: deps.db, d1: deps.d1, stripe: deps.stripe, emails: deps.emails, appUrl: deps.appUrl },
        object.id,
      );
      break;
    case "transfer.reversed":
      await handleTransferReversed(payoutDeps(env), object.id);
      break;
    default:
      // Other events are acknowledged and ignored.
      break;
  }
}
