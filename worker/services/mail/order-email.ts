// The buyer's email for an order with one-click upsells: one email for the whole order, not one per
// item. How it goes:
// 1. write: when the first purchase of an item in a live funnel is fulfilled, its batch writes the
//    outbox row `order:{root purchase id}` (instead of the one-item receipt) with `sendAt` =
//    paid + ORDER_EMAIL_WAIT_MS. The hand-over gives the queue message that delay (delaySeconds), and
//    the outbox sweep leaves the row alone until then: no polling, and nothing is lost if the buyer
//    closes the tab.
// 2. release: when the buyer's funnel ends (nextOffer finds nothing more to offer: the last offer was
//    accepted or declined, none can be charged), `releaseOrderEmail` moves `sendAt` to now and hands
//    the row over again without delay. Whichever comes first sends it; the consumer's claim
//    (emails_sent, by the dedupe key) makes the second delivery a no-op.
// 3. compose: the consumer claims the job first, then reads the order (the root and its upsells that
//    are paid now, with their permanent access links, which only read) and renders it. Composing
//    after the claim is what makes step 4 exact: an upsell paid before the claim is in the email.
// 4. later upsells: an upsell fulfilled while the order email is still waiting (row written, not yet
//    claimed) writes no email of its own; one fulfilled after the claim (or in an order that never
//    had an order email: its item was not in a live funnel when paid) writes its own short "Added to
//    your order" email in its fulfilment batch. Known limit: an upsell paid in the instant between
//    the claim and the consumer's read of the order may be listed in the order email and also get
//    "Added to your order" (twice told, never missed).
// Refunds are unchanged (refund-issued per refund); an order whose root ends refunded or disputed
// lists only what is still paid, and nothing at all if nothing is.
import type { EmailJob } from "./templates";
import { dispatch } from "./email-outbox";

/** How long the order email waits for the buyer's funnel to end, from the first payment. */
export const ORDER_EMAIL_WAIT_MS = 10 * 60 * 1000;

export const orderEmailKey = (rootPurchaseId: string) => `order:${rootPurchaseId}`;

/**
 * The order email's job, due at `now + ORDER_EMAIL_WAIT_MS` unless the funnel ends first; with
 * `waitForFunnel: false` (an order with no funnel to wait for: an item and its order bump), due now.
 */
export function orderEmailJob(
  rootPurchaseId: string,
  to: string,
  now: number,
  { waitForFunnel = true } = {},
): EmailJob {
  return {
    dedupeKey: orderEmailKey(rootPurchaseId),
    to,
    template: "order",
    data: { rootPurchaseId },
    sendAt: waitForFunnel ? now + ORDER_EMAIL_WAIT_MS : now,
  };
}

/**
 * SQL (with its binds) that holds while the order's email has not been composed yet: its row exists
 * and no consumer has claimed it. An upsell paid while this holds is listed in the order email.
 */
export function orderEmailPending(rootPurchaseId: string): { sql: string; binds: unknown[] } {
  const key = orderEmailKey(rootPurchaseId);
  return {
    sql: "exists (select 1 from outbox_emails where id = ? and sent_at is null) and not exists (select 1 from emails_sent where dedupe_key = ?)",
    binds: [key, key],
  };
}

/** The buyer's funnel ended: send the order email now (a no-op once sent or when there is none). */
export async function releaseOrderEmail(
  d1: D1Database,
  queue: Queue,
  rootPurchaseId: string,
  now = Date.now(),
): Promise<void> {
  const key = orderEmailKey(rootPurchaseId);
  try {
    const moved = await d1
      .prepare(
        "update outbox_emails set job = json_set(job, '$.sendAt', ?) where id = ? and sent_at is null and coalesce(json_extract(job, '$.sendAt'), 0) > ?",
      )
      .bind(now, key, now)
      .run();
    if ((moved.meta.changes ?? 0) > 0) await dispatch(d1, queue, [key], now);
  } catch (err) {
    // The deadline still sends it: the buyer's page is not failed for this.
    console.error("order email: could not release", rootPurchaseId, err);
  }
}
