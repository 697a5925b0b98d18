// Cheap purchases cannot mass-mail receipts: a purchase under CHEAP_RECEIPT_CENTS gets its receipt
// only if the same payer (browser or card; not the client address, which strangers behind one NAT
// share) sent no cheap receipt to another address in the last day, and its creator's cheap sales reached fewer than CHEAP_RECEIPT_ADDRESSES_PER_DAY
// other addresses. The purchase itself is unchanged. Behaviour: docs/payments.md ("Receipts and emails").
import type { OutboxGuard } from "../mail/email-outbox";
import type { PurchaseRow } from "./deps";

/** Below $1.00 (what one order charged, add-ons included) a purchase is cheap. */
const CHEAP_RECEIPT_CENTS = 100;
/** Distinct addresses a creator's cheap sales may send receipts to in a day. */
const CHEAP_RECEIPT_ADDRESSES_PER_DAY = 50;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * For a cheap order: the statement that books its receipt (it runs in the fulfilment's batch, before
 * the receipt's outbox insert, and only if `paidHere` holds and the cap allows it) and the guard the
 * receipt's insert takes (its booking exists). Null for an order that is not cheap.
 */
export function cheapReceiptCap(
  d1: D1Database,
  purchase: Pick<PurchaseRow, "id" | "creatorId" | "buyerKeyHash" | "paymentIntentId">,
  totalCents: number,
  email: string,
  now: number,
  paidHere: OutboxGuard,
): { statement: D1PreparedStatement; guard: OutboxGuard } | null {
  if (totalCents >= CHEAP_RECEIPT_CENTS) return null;
  const lastConfirm = (column: string) =>
    `(select ${column} from checkout_confirms where payment_intent_id = ? order by created_at desc limit 1)`;
  const to = email.toLowerCase();
  const since = now - DAY_MS;
  const statement = d1
    .prepare(
      `insert into cheap_receipts (purchase_id, creator_id, email, fingerprint, buyer_key_hash, created_at)
       select ?, ?, ?, payer.fingerprint, ?, ?
       from (select ${lastConfirm("fingerprint")} as fingerprint) payer
       where (${paidHere.sql})
         and not exists (select 1 from cheap_receipts r where r.created_at > ? and r.email <> ?
           and (r.buyer_key_hash = ? or r.fingerprint = payer.fingerprint))
         and (select count(distinct email) from cheap_receipts where creator_id = ? and created_at > ? and email <> ?) < ?
       on conflict (purchase_id) do nothing`,
    )
    .bind(
      purchase.id,
      purchase.creatorId,
      to,
      purchase.buyerKeyHash,
      now,
      purchase.paymentIntentId,
      ...paidHere.binds,
      since,
      to,
      purchase.buyerKeyHash,
      purchase.creatorId,
      since,
      to,
      CHEAP_RECEIPT_ADDRESSES_PER_DAY,
    );
  return {
    statement,
    guard: { sql: "exists (select 1 from cheap_receipts where purchase_id = ?)", binds: [purchase.id] },
  };
}

/**
 * "Send it again" for a cheap order: allowed when its receipt was booked, else booked now under the
 * same cap (so a capped order's receipt cannot be sent by pressing the button instead).
 */
export async function cheapResendAllowed(
  d1: D1Database,
  purchase: Pick<
    PurchaseRow,
    "id" | "creatorId" | "buyerKeyHash" | "paymentIntentId" | "amountCents" | "parentPurchaseId"
  >,
  email: string,
  now = Date.now(),
): Promise<boolean> {
  if (purchase.parentPurchaseId) return true;
  const bumps = await d1
    .prepare("select coalesce(sum(amount_cents), 0) as cents from purchases where bump_of = ?")
    .bind(purchase.id)
    .first<{ cents: number }>();
  const booked = { sql: "exists (select 1 from purchases where id = ? and status = 'paid')", binds: [purchase.id] };
  const cap = cheapReceiptCap(d1, purchase, purchase.amountCents + (bumps?.cents ?? 0), email, now, booked);
  if (!cap) return true;
  await cap.statement.run();
  return !!(await d1
    .prepare(`select 1 as yes where ${cap.guard.sql}`)
    .bind(...cap.guard.binds)
    .first());
}

/**
 * Whether the cap held this paid order's receipt: a cheap order (add-ons included) with no booking
 * and no receipt written (the outbox keeps a sent row a while; an order paid before the cap has one).
 */
export async function receiptHeld(
  d1: D1Database,
  purchase: Pick<PurchaseRow, "id" | "status" | "amountCents" | "parentPurchaseId" | "bumpOf" | "buyerEmail">,
): Promise<boolean> {
  if (purchase.status !== "paid" || purchase.parentPurchaseId || purchase.bumpOf || !purchase.buyerEmail) return false;
  const found = await d1
    .prepare(
      `select (select coalesce(sum(amount_cents), 0) from purchases where bump_of = ?1) as bumps,
        exists (select 1 from cheap_receipts where purchase_id = ?1)
          or exists (select 1 from outbox_emails where id = 'purchase-access:' || ?1) as receipt`,
    )
    .bind(purchase.id)
    .first<{ bumps: number; receipt: number }>();
  return !!found && purchase.amountCents + found.bumps < CHEAP_RECEIPT_CENTS && !found.receipt;
}
