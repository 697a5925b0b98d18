// How much of a creator's balance a refund of `amountCents` of their sale would take: the creator's
// side of the reversal that ../ledger.ts `reverseSale` books, read from the same ledger rows and
// rounded the same way (a share of what is left; the last refund takes the rest). The amount is
// gross (what the buyer paid, tax included); the share is of the creator's net (docs/tax.md). The
// refund dialog shows it ("$16.00 leaves your balance"). Behaviour: docs/refunds-and-disputes.md.
import type { RefundQuote } from "../../../shared/refunds";
import { notFound } from "../../lib/errors";

type Row = {
  amount_cents: number;
  creator_sale: number;
  reversed: number;
  creator_reversed: number;
  on_its_way: number;
};

/**
 * `reverseSale`'s creator part for `delta` more cents reversed when `share` of the creator's side and
 * `left` cents of the sale remain: all of it for the rest of the sale, else in proportion, rounded as
 * SQLite's round() does, between 0 and `delta`.
 */
const creatorPart = (share: number, left: number, delta: number) =>
  delta >= left ? share : Math.max(0, Math.min(delta, Math.round((share * 1.0 * delta) / left)));

export async function refundQuote(
  d1: D1Database,
  creatorId: string,
  purchaseId: string,
  amountCents: number,
): Promise<RefundQuote> {
  const r = await d1
    .prepare(
      `select p.amount_cents,
         coalesce((select sum(amount_cents) from ledger_entries where purchase_id = p.id and account = 'creator' and kind in ('sale', 'fee_adjustment')), 0) as creator_sale,
         -coalesce((select sum(amount_cents) from ledger_entries where purchase_id = p.id and kind in ('refund', 'dispute')), 0) as reversed,
         -coalesce((select sum(amount_cents) from ledger_entries where purchase_id = p.id and account = 'creator' and kind in ('refund', 'dispute')), 0) as creator_reversed,
         -- Refunds asked of Stripe and not booked yet (their reservation still open): booked before this one.
         coalesce((select sum(q.amount_cents) from refund_requests q where q.purchase_id = p.id
           and exists (select 1 from ledger_entries where idempotency_key = 'reserve:refund-request:' || q.id)
           and not exists (select 1 from ledger_entries where idempotency_key = 'release:refund-request:' || q.id)), 0) as on_its_way
       from purchases p where p.id = ?1 and p.creator_id = ?2 and p.amount_cents > 0
         and p.status in ('paid', 'refunded', 'disputed')`,
    )
    .bind(purchaseId, creatorId)
    .first<Row>();
  if (!r) throw notFound("Sale Not Found");
  // Refunds on their way are booked first, then this one, each on what the one before left.
  let share = r.creator_sale - r.creator_reversed;
  let left = r.amount_cents - r.reversed;
  const ahead = Math.min(left, r.on_its_way);
  share -= creatorPart(share, left, ahead);
  left -= ahead;
  const amount = Math.min(left, amountCents);
  return { amount: amount / 100, leavesBalance: (amount > 0 ? creatorPart(share, left, amount) : 0) / 100 };
}
