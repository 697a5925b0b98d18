// Tax reversals we ask Stripe for: a lost dispute (Stripe reverses the tax of a refund itself, never
// of a dispute). The request row is written in the batch that settles the lost dispute, once its
// ledger rows (with their tax part) are booked; it is sent from there, at once and again by the
// 5-minute sweep, with its key as the Idempotency-Key. Behaviour: docs/tax.md ("Ledger and reversals").
import type Stripe from "stripe";
import { recordStatement, recordTaxTransactions, transactionTotals } from "./transactions";

type Deps = { d1: D1Database; stripe: Stripe };

/** Attempts before a request is left failed for the admin (the last some 27 hours after the first). */
const MAX_REVERSAL_ATTEMPTS = 40;

/** The request's key, also its reference at Stripe (unique across all tax transactions). */
export const reversalKey = (disputeId: string) => `tax-reversal:${disputeId}`;

/**
 * A D1 statement that asks for the tax reversal of a lost dispute of the order whose main purchase
 * is `mainId`, once: for the gross its ledger rows took (`dispute:{dp}` and an order bump's share
 * `dispute:{dp}~{purchase}`), written only when they booked a tax part. Placed after those rows in
 * the batch that books them.
 */
export function reversalRequestStatement(
  d1: D1Database,
  order: { mainId: string; paymentIntentId: string },
  disputeId: string,
  now: number,
): D1PreparedStatement {
  const mine = `purchase_id in (select id from purchases where id = ?2 or bump_of = ?2)
    and substr(idempotency_key, 1, length(?4) + 1) in (?4 || ':', ?4 || '~')`;
  return d1
    .prepare(
      `insert into tax_reversal_requests (idempotency_key, purchase_id, payment_intent_id, amount_cents, created_at)
       select ?1, ?2, ?3, s.cents, ?5 from (select -coalesce(sum(amount_cents), 0) as cents from ledger_entries where ${mine}) s
       where s.cents > 0 and exists (select 1 from ledger_entries where ${mine} and account = 'tax' and amount_cents <> 0)
       on conflict do nothing`,
    )
    .bind(reversalKey(disputeId), order.mainId, order.paymentIntentId, `dispute:${disputeId}`, now);
}

type RequestRow = { idempotency_key: string; purchase_id: string; payment_intent_id: string; amount_cents: number };

/** Sends one request to Stripe and records the reversal with it, or the failure on it. */
async function send(deps: Deps, r: RequestRow, now: number): Promise<boolean> {
  try {
    const original = async () =>
      (
        await deps.d1
          .prepare("select id from tax_transactions where payment_intent_id = ? and type = 'transaction'")
          .bind(r.payment_intent_id)
          .first<{ id: string }>()
      )?.id;
    // The payment's transaction may not be recorded yet (its webhook still retrying): read it first.
    let originalId = await original();
    if (!originalId) {
      await recordTaxTransactions(deps, r.payment_intent_id);
      originalId = await original();
    }
    if (!originalId) throw new Error(`Stripe holds no tax transaction for ${r.payment_intent_id}`);
    const reversal = await deps.stripe.tax.transactions.createReversal(
      {
        mode: "partial",
        original_transaction: originalId,
        reference: r.idempotency_key,
        flat_amount: -r.amount_cents,
        metadata: { purchaseId: r.purchase_id },
      },
      { idempotencyKey: r.idempotency_key },
    );
    const totals = await transactionTotals(deps.stripe, reversal.id);
    await deps.d1.batch([
      recordStatement(deps.d1, reversal, { purchaseId: r.purchase_id, paymentIntentId: r.payment_intent_id }, totals),
      deps.d1
        .prepare(
          `update tax_reversal_requests set status = 'sent', tax_transaction_id = ?2, sent_at = ?3,
             attempts = attempts + 1, last_error = null where idempotency_key = ?1 and status <> 'sent'`,
        )
        .bind(r.idempotency_key, reversal.id, now),
    ]);
    return true;
  } catch (err) {
    const message = String((err as Error)?.message ?? err).slice(0, 500);
    console.error("tax reversal not sent; the sweep tries again", r.idempotency_key, message);
    await deps.d1
      .prepare(
        `update tax_reversal_requests set status = 'failed', attempts = attempts + 1, last_error = ?2
         where idempotency_key = ?1 and status <> 'sent'`,
      )
      .bind(r.idempotency_key, message)
      .run();
    return false;
  }
}

/**
 * Sends the tax reversals not sent yet: those named by `keys` at once (just written), else every one
 * whose backoff has passed (attempt k waits k² minutes after the request), up to MAX_REVERSAL_ATTEMPTS.
 * Never throws for Stripe's errors: each is recorded on its row. A repeat is harmless (the key).
 */
export async function deliverTaxReversals(
  deps: Deps,
  now = Date.now(),
  keys?: string[],
): Promise<{ sent: number; failed: number }> {
  if (keys && !keys.length) return { sent: 0, failed: 0 };
  const due = keys
    ? await deps.d1
        .prepare(
          `select idempotency_key, purchase_id, payment_intent_id, amount_cents from tax_reversal_requests
           where status <> 'sent' and idempotency_key in (${keys.map(() => "?").join(", ")})`,
        )
        .bind(...keys)
        .all<RequestRow>()
    : await deps.d1
        .prepare(
          `select idempotency_key, purchase_id, payment_intent_id, amount_cents from tax_reversal_requests
           where status <> 'sent' and attempts < ?2 and created_at + attempts * attempts * 60000 <= ?1
           order by created_at limit 50`,
        )
        .bind(now, MAX_REVERSAL_ATTEMPTS)
        .all<RequestRow>();
  let sent = 0;
  let failed = 0;
  for (const r of due.results) {
    if (await send(deps, r, now)) sent++;
    else failed++;
  }
  return { sent, failed };
}
