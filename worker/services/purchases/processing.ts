// A payment that settles later (Link from a bank account): its purchase stays pending but carries
// processing_since until Stripe says it succeeded or failed. Behaviour: docs/payments.md
// ("Payment methods and processing payments").
import type Stripe from "stripe";
import { PAYWALL_TEXT } from "../../../shared/paywall";
import { ApiError } from "../../lib/errors";
import { sha256Hex } from "../../lib/ids";
import { recordDecline } from "./card-testing";

/** Stripe's states in which the payment was not made and may be tried again. */
const RELEASED = ["requires_payment_method", "requires_confirmation", "requires_action", "canceled"];

/**
 * Records what Stripe says of a checkout's PaymentIntent: processing marks its purchases (the main
 * one and any order bump paid with it), a failure or cancel releases them. Safe to repeat and to
 * run in any order with fulfilment: each update only touches pending purchases.
 */
export async function noteIntentState(
  d1: D1Database,
  intent: Pick<Stripe.PaymentIntent, "id" | "status"> &
    Partial<Pick<Stripe.PaymentIntent, "last_payment_error" | "receipt_email">>,
  known?: { processingSince: Date | null },
): Promise<void> {
  // A card decline counts toward the card-testing limits, once however often it is read (./card-testing.ts).
  await recordDecline(d1, intent);
  // A caller holding the purchase row skips the write when it would change nothing (an open checkout, checked often).
  if (known && !!known.processingSince === (intent.status === "processing")) return;
  const ofIntent =
    "status = 'pending' and (payment_intent_id = ?1 or bump_of = (select id from purchases where payment_intent_id = ?1))";
  if (intent.status === "processing") {
    await d1
      .prepare(`update purchases set processing_since = coalesce(processing_since, ?2) where ${ofIntent}`)
      .bind(intent.id, Date.now())
      .run();
  } else if (RELEASED.includes(intent.status)) {
    await d1
      .prepare(`update purchases set processing_since = null where processing_since is not null and ${ofIntent}`)
      .bind(intent.id)
      .run();
  }
}

/** Whether this browser has a payment of the item still processing. */
export async function processingFor(d1: D1Database, buyerKey: string, contentId: string): Promise<boolean> {
  const row = await d1
    .prepare(
      "select 1 as yes from purchases where buyer_key_hash = ? and content_id = ? and status = 'pending' and processing_since is not null limit 1",
    )
    .bind(await sha256Hex(buyerKey), contentId)
    .first<{ yes: number }>();
  return !!row;
}

/** A second checkout while one payment of the item is processing would charge the buyer twice. */
export async function refuseWhileProcessing(
  d1: D1Database,
  buyerKey: string | undefined,
  contentId: string,
): Promise<void> {
  if (buyerKey && (await processingFor(d1, buyerKey, contentId))) throw new ApiError(409, PAYWALL_TEXT.processing);
}
