// The buyer's one email for an order with one-click upsells (outbox key `order:{root purchase id}`):
// written when the first purchase in a live funnel is fulfilled, due ORDER_EMAIL_WAIT_MS later,
// released at once when the funnel ends (`releaseOrderEmail`), composed after the consumer's claim;
// an upsell paid after the claim gets its own "Added to your order" email.
// Behaviour and its known limit: docs/payments.md ("Receipts and emails").
import type { EmailJob } from "./templates";
import { dispatch } from "./email-outbox";

/** How long the order email waits for the buyer's funnel to end, from the first payment. */
const ORDER_EMAIL_WAIT_MS = 10 * 60 * 1000;

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
