// A payout that failed: marked failed and its money booked back to the creator in one batch
// ('payout_reversal' rows, each cent once whatever the order of events), with the creator's email and
// the payout.failed webhook. Used by the transfer rail (Stripe's definitive answer, transfer.reversed)
// and the admin (a manual payout that could not be sent). Behaviour: docs/money.md.
import { eq } from "drizzle-orm";
import { payouts } from "../../db/schema";
import { dispatch } from "../mail/email-outbox";
import { dispatchWebhooks } from "../webhooks/delivery";
import type { PayoutDeps, PayoutRow } from "./deps";
import { payoutMailInsert, payoutWebhook } from "./notices";

/**
 * The statement that books a payout's money back to its creator: `reversedCents` in all, less what
 * earlier bookings for this payout already returned (computed inside the statement, so concurrent or
 * reordered events book each cent once), only while the payout has `whileStatus`, once per `key`.
 */
export function bookBack(
  d1: D1Database,
  b: { key: string; reversedCents: number; payoutId: string; whileStatus: PayoutRow["status"][] },
  now: number,
): D1PreparedStatement {
  const statuses = b.whileStatus.map((s) => `'${s}'`).join(", ");
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, payout_id, created_at)
       select ?1, 'creator', user_id, 'payout_reversal', ?2 - back.cents, currency, id, ?3
       from payouts, (select coalesce(sum(amount_cents), 0) as cents from ledger_entries where payout_id = ?4 and kind = 'payout_reversal') back
       where id = ?4 and status in (${statuses}) and ?2 - back.cents > 0
       on conflict (idempotency_key) do nothing`,
    )
    .bind(b.key, b.reversedCents, now, b.payoutId);
}

/**
 * Marks a payout failed and books `cents` back to the creator, in one batch, less what partial
 * reversals already booked; the booking only happens if the payout is failed when it runs, once per
 * `ledgerKey`. Returns whether this call
 * made the change (then the creator is emailed).
 */
export async function failPayout(
  deps: PayoutDeps,
  payoutId: string,
  f: { reason: string; code: string; detail: string; ledgerKey: string; cents: number; from: PayoutRow["status"][] },
  now: number,
): Promise<boolean> {
  const from = f.from.map((s) => `'${s}'`).join(", ");
  const payout = await deps.db.select().from(payouts).where(eq(payouts.id, payoutId)).get();
  const [updated] = await deps.d1.batch([
    // `notes` is what the creator reads (payout history, email); code and detail are for the admin.
    deps.d1
      .prepare(
        `update payouts set status = 'failed', notes = ?, failure_code = ?, failure_detail = ?, processed_at = ?, next_retry_at = null where id = ? and status in (${from}) returning id`,
      )
      .bind(f.reason.slice(0, 500), f.code, f.detail.slice(0, 500), now, payoutId),
    bookBack(deps.d1, { key: f.ledgerKey, reversedCents: f.cents, payoutId, whileStatus: ["failed"] }, now),
    payoutMailInsert(
      deps,
      "payout-failed",
      { where: "p.id = ?5 and p.status = 'failed'", binds: [payoutId] },
      now,
      f.reason,
    ),
    ...(payout
      ? payoutWebhook(
          deps,
          payout,
          "payout.failed",
          {
            sql: "exists (select 1 from payouts where id = ? and status = 'failed' and processed_at = ?)",
            binds: [payoutId, now],
          },
          now,
          f.reason,
        )
      : []),
  ]);
  if (!updated.results?.length) return false;
  await dispatch(deps.d1, deps.emails, [`payout-failed:${payoutId}`], now);
  if (payout) await dispatchWebhooks(deps.d1, deps.webhooks, payout.userId, [`payout.failed:${payoutId}`], now);
  return true;
}
