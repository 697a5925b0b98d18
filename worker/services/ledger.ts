// Money movements of a purchase, as append-only ledger rows. Every row has an idempotency key, so
// writing the same movement twice (a redelivered webhook) adds nothing.
import { PLATFORM_FEE_PERCENT } from "../../shared/constants";

export type LedgerRow = {
  idempotencyKey: string;
  account: "creator" | "platform";
  userId: string | null;
  kind: "sale" | "platform_fee" | "refund" | "dispute";
  amountCents: number;
  purchaseId: string;
};

/** The split of a sale: the platform keeps 20% on the free plan, nothing on Pro. */
export function splitSale(amountCents: number, plan: "free" | "pro"): { creatorCents: number; platformCents: number } {
  const platformCents = plan === "pro" ? 0 : Math.round((amountCents * PLATFORM_FEE_PERCENT) / 100);
  return { creatorCents: amountCents - platformCents, platformCents };
}

export function saleRows(purchaseId: string, creatorId: string, amountCents: number, plan: "free" | "pro"): LedgerRow[] {
  const { creatorCents, platformCents } = splitSale(amountCents, plan);
  return [
    { idempotencyKey: `sale:${purchaseId}:creator`, account: "creator", userId: creatorId, kind: "sale", amountCents: creatorCents, purchaseId },
    { idempotencyKey: `sale:${purchaseId}:platform`, account: "platform", userId: null, kind: "platform_fee", amountCents: platformCents, purchaseId },
  ];
}

/**
 * Reverses `reversedCents` of a sale in the same proportion it was split. `key` names the refund
 * or dispute, so each is reversed once.
 */
export function reversalRows(
  key: string,
  kind: "refund" | "dispute",
  purchaseId: string,
  creatorId: string,
  sale: { amountCents: number; creatorCents: number },
  reversedCents: number,
): LedgerRow[] {
  const creatorPart = sale.amountCents === 0 ? 0 : Math.round((sale.creatorCents * reversedCents) / sale.amountCents);
  return [
    { idempotencyKey: `${key}:creator`, account: "creator", userId: creatorId, kind, amountCents: -creatorPart, purchaseId },
    { idempotencyKey: `${key}:platform`, account: "platform", userId: null, kind, amountCents: -(reversedCents - creatorPart), purchaseId },
  ];
}

/** A D1 statement that inserts `row` once (by its idempotency key) and only if `onlyIf` holds. */
export function insertLedgerRow(d1: D1Database, row: LedgerRow, onlyIfPurchaseStatusIn: string[]): D1PreparedStatement {
  const placeholders = onlyIfPurchaseStatusIn.map(() => "?").join(", ");
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, purchase_id)
       select ?, ?, ?, ?, ?, 'usd', ? where exists (select 1 from purchases where id = ? and status in (${placeholders}))
       on conflict (idempotency_key) do nothing`,
    )
    .bind(row.idempotencyKey, row.account, row.userId, row.kind, row.amountCents, row.purchaseId, row.purchaseId, ...onlyIfPurchaseStatusIn);
}
