// How much of a creator's balance a refund of `amountCents` of their sale would take: the creator's
// side of the reversal that ../ledger.ts `reverseSale` books, read from the same ledger rows and
// rounded the same way (on the running total, so partial refunds add up to the sale's share). The
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
 * `reverseSale`'s creator part for a running total of `total` cents reversed: the whole share once
 * the sale is reversed in full, else the share in proportion, rounded as SQLite's round() does.
 */
const creatorPartAt = (r: Row, total: number) =>
  total >= r.amount_cents ? r.creator_sale : Math.round((r.creator_sale * 1.0 * total) / r.amount_cents);

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
       from purchases p where p.id = ?1 and p.creator_id = ?2 and p.amount_cents > 0`,
    )
    .bind(purchaseId, creatorId)
    .first<Row>();
  if (!r) throw notFound("Sale Not Found");
  const before = r.reversed + r.on_its_way;
  const after = Math.min(r.amount_cents, before + amountCents);
  const taken = creatorPartAt(r, after) - (r.on_its_way > 0 ? creatorPartAt(r, before) : r.creator_reversed);
  return { amount: (after - Math.min(before, after)) / 100, leavesBalance: Math.max(0, taken) / 100 };
}
