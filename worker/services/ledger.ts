// Money movements of a purchase, as append-only ledger rows. Every row has an idempotency key, so
// writing the same movement twice (a redelivered webhook) adds nothing.
import { PLATFORM_FEE_PERCENT } from "../../shared/constants";

export type LedgerRow = {
  idempotencyKey: string;
  account: "creator" | "platform";
  userId: string | null;
  kind: "sale" | "platform_fee" | "refund" | "dispute";
  amountCents: number;
  currency: string;
  purchaseId: string;
};

/** The split of a sale: the platform keeps 20% on the free plan, nothing on Pro. */
export function splitSale(amountCents: number, plan: "free" | "pro"): { creatorCents: number; platformCents: number } {
  const platformCents = plan === "pro" ? 0 : Math.round((amountCents * PLATFORM_FEE_PERCENT) / 100);
  return { creatorCents: amountCents - platformCents, platformCents };
}

type Purchase = { id: string; creatorId: string; amountCents: number; currency: string };

export function saleRows(p: Purchase, plan: "free" | "pro"): LedgerRow[] {
  const { creatorCents, platformCents } = splitSale(p.amountCents, plan);
  return [
    { idempotencyKey: `sale:${p.id}:creator`, account: "creator", userId: p.creatorId, kind: "sale", amountCents: creatorCents, currency: p.currency, purchaseId: p.id },
    { idempotencyKey: `sale:${p.id}:platform`, account: "platform", userId: null, kind: "platform_fee", amountCents: platformCents, currency: p.currency, purchaseId: p.id },
  ];
}

/** What a purchase's ledger already says: the creator's cut of the sale and what was reversed so far. */
export type PurchaseBook = { creatorSaleCents: number; reversedCents: number; creatorReversedCents: number };

/**
 * Reverses `cents` more of a sale (a refund or a lost dispute), never more than the sale in total,
 * split in the sale's proportion. The creator's side is computed on the running total, so partial
 * refunds never drift by a rounding cent; a full reversal always nets the purchase to zero.
 */
export function reversalRows(key: string, kind: "refund" | "dispute", p: Purchase, book: PurchaseBook, cents: number): LedgerRow[] {
  const total = Math.min(p.amountCents, book.reversedCents + Math.max(0, cents));
  const delta = total - book.reversedCents;
  if (delta <= 0) return [];
  const creatorTarget = total === p.amountCents ? book.creatorSaleCents : Math.round((book.creatorSaleCents * total) / p.amountCents);
  const creatorPart = creatorTarget - book.creatorReversedCents;
  return [
    { idempotencyKey: `${key}:creator`, account: "creator", userId: p.creatorId, kind, amountCents: -creatorPart, currency: p.currency, purchaseId: p.id },
    { idempotencyKey: `${key}:platform`, account: "platform", userId: null, kind, amountCents: -(delta - creatorPart), currency: p.currency, purchaseId: p.id },
  ];
}

/** A D1 statement that inserts `row` once (by its idempotency key), only while the purchase has one of the statuses. */
export function insertLedgerRow(d1: D1Database, row: LedgerRow, onlyIfPurchaseStatusIn: string[]): D1PreparedStatement {
  const placeholders = onlyIfPurchaseStatusIn.map(() => "?").join(", ");
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, purchase_id)
       select ?, ?, ?, ?, ?, ?, ? where exists (select 1 from purchases where id = ? and status in (${placeholders}))
       on conflict (idempotency_key) do nothing`,
    )
    .bind(row.idempotencyKey, row.account, row.userId, row.kind, row.amountCents, row.currency, row.purchaseId, row.purchaseId, ...onlyIfPurchaseStatusIn);
}
