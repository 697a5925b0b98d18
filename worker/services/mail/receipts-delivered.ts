// Where a purchase's receipt stands, for the creator's sales table and the buyer's success page, and
// the creator's "Resend receipt": the access email again, to the buyer's current address, through
// the outbox, one email per press, at most 3 an hour per sale and 30 an hour per creator.
// Behaviour: docs/payments.md ("Receipts and emails").
import { and, eq } from "drizzle-orm";
import type { Sale } from "../../../shared/earnings";
import { RESEND_RECEIPT_MESSAGES, type ReceiptDelivery } from "../../../shared/mail";
import { purchases } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import type { PurchaseDeps, PurchaseRow } from "../purchases/deps";
import { receiptData } from "../purchases/receipts";
import { dispatch, outboxInsert } from "./email-outbox";
import { RECEIPT_TEMPLATES } from "./mail-events";
import type { EmailJob } from "./templates";

const PER_SALE_PER_HOUR = 3;
const PER_CREATOR_PER_HOUR = 30;
const HOUR_MS = 3600 * 1000;

const TEMPLATES_SQL = RECEIPT_TEMPLATES.map((t) => `'${t}'`).join(", ");

type DeliveryRow = {
  sale_id: string;
  state: ReceiptDelivery["state"];
  to_email: string;
  sent_at: number;
  buyer_email: string | null;
};

/**
 * The latest receipt of each sale in a JSON list of ids, owner-checked. `+p.creator_id` keeps SQLite on
 * the primary key for the listed ids: on creator_id it walked every sale of the creator (1.2 s at a
 * million sales; docs/money.md "Rollups"). GET /dev/explain prints its plan.
 */
export const LATEST_RECEIPTS_SQL = `select p.id as sale_id, d.state, d.to_email, d.sent_at, p.buyer_email
       from purchases p join mail_deliveries d
         on d.purchase_id in (p.id, coalesce(p.parent_purchase_id, p.bump_of, p.id)) and d.template in (${TEMPLATES_SQL})
            and (d.purchase_id = p.id or d.template = 'order')
       where p.id in (select value from json_each(?)) and +p.creator_id = ?
       order by d.sent_at, d.message_id`;

/**
 * The latest receipt of each sale: its own access email (or "Added to your order"), or the order
 * email of the order it is part of (an upsell's or an order bump's is its first purchase's).
 */
async function latestReceipts(d1: D1Database, creatorId: string, ids: string[]): Promise<Map<string, DeliveryRow>> {
  const out = new Map<string, DeliveryRow>();
  if (!ids.length) return out;
  const { results } = await d1.prepare(LATEST_RECEIPTS_SQL).bind(JSON.stringify(ids), creatorId).all<DeliveryRow>();
  for (const r of results) out.set(r.sale_id, r);
  return out;
}

const toDelivery = (r: DeliveryRow, to = r.to_email): ReceiptDelivery => ({
  state: r.state,
  to,
  at: new Date(r.sent_at).toISOString(),
  current: r.to_email.toLowerCase() === r.buyer_email?.toLowerCase(),
});

/** The sales table's rows, each with where its receipt stands (null: none recorded yet). */
export async function withReceipts<T extends Sale>(d1: D1Database, creatorId: string, sales: T[]): Promise<T[]> {
  const latest = await latestReceipts(
    d1,
    creatorId,
    sales.map((s) => s.id),
  );
  return sales.map((s) => {
    const r = latest.get(s.id);
    return { ...s, receipt: r ? toDelivery(r) : null };
  });
}

/** The buyer's own receipt, for their success page: the address masked by `mask` (an access link may be forwarded). */
export async function receiptOfPurchase(
  d1: D1Database,
  purchase: Pick<PurchaseRow, "id" | "creatorId">,
  mask: (email: string) => string,
): Promise<ReceiptDelivery | null> {
  const r = (await latestReceipts(d1, purchase.creatorId, [purchase.id])).get(purchase.id);
  return r ? toDelivery(r, mask(r.to_email)) : null;
}

/** `receipt-resend:{creator}:{sale}:{press}`: counted by prefix for the limits; a repeated press is the same row. */
const resendKey = (creatorId: string, purchaseId: string, requestKey: string) =>
  `receipt-resend:${creatorId}:${purchaseId}:${requestKey}`;
/** Ids that start with `prefix` (a range, so the primary key's index is used). */
const countSince = (prefix: string) => ({
  sql: "(select count(*) from outbox_emails where id >= ? and id < ? and created_at > ?)",
  upper: `${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`,
});

/** The creator's "Resend receipt": 404 for a sale not theirs; 409 when it no longer gives access or has no email; 429 past the limits. */
export async function resendReceipt(
  deps: PurchaseDeps,
  creatorId: string,
  purchaseId: string,
  requestKey: string,
  now = Date.now(),
): Promise<{ sent: true; to: string }> {
  const purchase = await deps.db
    .select()
    .from(purchases)
    .where(and(eq(purchases.id, purchaseId), eq(purchases.creatorId, creatorId)))
    .get();
  if (!purchase) throw notFound("No such sale of yours");
  const key = resendKey(creatorId, purchase.id, requestKey);
  const repeat = await deps.d1
    .prepare("select json_extract(job, '$.to') as sent_to from outbox_emails where id = ?")
    .bind(key)
    .first<{ sent_to: string }>();
  if (repeat) return { sent: true, to: repeat.sent_to };
  if (purchase.status !== "paid") throw new ApiError(409, RESEND_RECEIPT_MESSAGES.notPaid);
  if (!purchase.buyerEmail) throw new ApiError(409, RESEND_RECEIPT_MESSAGES.noEmail);

  const job: EmailJob = {
    dedupeKey: key,
    to: purchase.buyerEmail,
    template: "purchase-access",
    data: await receiptData(deps, purchase),
  };
  const sale = `receipt-resend:${creatorId}:${purchase.id}:`;
  const creator = `receipt-resend:${creatorId}:`;
  const since = now - HOUR_MS;
  const bySale = countSince(sale);
  const byCreator = countSince(creator);
  const written = await outboxInsert(deps.d1, job, now, {
    sql: `${bySale.sql} < ? and ${byCreator.sql} < ?`,
    binds: [sale, bySale.upper, since, PER_SALE_PER_HOUR, creator, byCreator.upper, since, PER_CREATOR_PER_HOUR],
  }).run();
  if ((written.meta.changes ?? 0) === 0) {
    // Two presses of the same key at once: the other wrote it.
    const again = await deps.d1.prepare("select 1 as x from outbox_emails where id = ?").bind(key).first();
    if (again) return { sent: true, to: purchase.buyerEmail };
    const saleCount = await deps.d1
      .prepare(`select ${bySale.sql} as n`)
      .bind(sale, bySale.upper, since)
      .first<{ n: number }>();
    throw new ApiError(
      429,
      (saleCount?.n ?? 0) >= PER_SALE_PER_HOUR
        ? RESEND_RECEIPT_MESSAGES.tooMany
        : RESEND_RECEIPT_MESSAGES.tooManyCreator,
    );
  }
  await dispatch(deps.d1, deps.emails, [key], now);
  return { sent: true, to: purchase.buyerEmail };
}
