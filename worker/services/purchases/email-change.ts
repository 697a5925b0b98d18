// Changing the email on a paid purchase: who may (the browser that paid, or the library signed in as
// its current email), the compare-and-set on the current address, and the two emails written in the
// same D1 batch (the old address is told, the new one gets the receipt). Behaviour: docs/payments.md
// ("Changing a purchase's email").
import { and, eq, gt, isNull, or } from "drizzle-orm";
import { maskEmail } from "../../../shared/payout-destination";
import {
  BROWSER_EMAIL_CHANGE_DAYS,
  EMAIL_CHANGES_PER_CREATOR_DAY,
  EMAIL_CHANGES_PER_ORDER,
  PURCHASE_EMAIL_MESSAGES as M,
  type PurchaseEmailChanged,
} from "../../../shared/purchase-email";
import { content, purchases } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { newId, sha256Hex } from "../../lib/ids";
import { dispatch, outboxInsert } from "../mail/email-outbox";
import { orderEmailJob } from "../mail/order-email";
import type { EmailJob } from "../mail/templates";
import { mailCreator, publicCreator } from "../profile";
import type { PurchaseDeps, PurchaseRow } from "./deps";
import { syncWithStripe } from "./fulfil";
import { receiptJob } from "./receipts";

const DAY_MS = 24 * 3600 * 1000;

/** Who asks: this browser's buyer key, and the email its library session is signed in as. Never an access link. */
export type EmailChanger = { buyerKey?: string | null; libraryEmail?: string | null };
type ChangedBy = "browser" | "library";
/** The order whose email the caller may change, and by which right. */
export type ChangeablePurchase = { purchase: PurchaseRow; by: ChangedBy };

/**
 * The order `id` belongs to, if the caller may change its email (ownership in the query itself), else
 * null. The browser that paid may for BROWSER_EMAIL_CHANGE_DAYS after paying (a shared computer does
 * not keep the power); the library signed in as the order's current email may at any time. An order
 * bump or upsell answers for its order: the email is the order's, so its parts never part ways.
 */
export async function purchaseForEmailChange(
  deps: PurchaseDeps,
  id: string,
  who: EmailChanger,
  now = Date.now(),
): Promise<ChangeablePurchase | null> {
  const keyHash = who.buyerKey ? await sha256Hex(who.buyerKey) : null;
  const since = new Date(now - BROWSER_EMAIL_CHANGE_DAYS * DAY_MS);
  const owns = [
    ...(keyHash
      ? [and(eq(purchases.buyerKeyHash, keyHash), or(isNull(purchases.paidAt), gt(purchases.paidAt, since)))]
      : []),
    ...(who.libraryEmail ? [eq(purchases.buyerEmail, who.libraryEmail.toLowerCase())] : []),
  ];
  if (!owns.length) return null;
  const owned = (purchaseId: string) =>
    deps.db
      .select()
      .from(purchases)
      .where(and(eq(purchases.id, purchaseId), or(...owns)))
      .get();
  let found = await owned(id);
  const orderId = found?.bumpOf ?? found?.parentPurchaseId;
  if (orderId) found = await owned(orderId);
  if (!found) return null;
  // A payment whose webhook has not arrived yet is read from Stripe, as the success page does.
  const purchase = await syncWithStripe(deps, found, { bestEffort: true });
  return { purchase, by: keyHash && purchase.buyerKeyHash === keyHash ? "browser" : "library" };
}

const masked = (email: string) => maskEmail(email, "…");

function assertChangeable(p: Pick<PurchaseRow, "status" | "processingSince">): void {
  if (p.status === "refunded") throw new ApiError(409, M.refunded);
  if (p.status === "disputed") throw new ApiError(409, M.disputed);
  if (p.status === "pending" && p.processingSince) throw new ApiError(409, M.processing);
  if (p.status !== "paid") throw new ApiError(409, M.notPaid);
}

/**
 * Sets the purchase's email (and that of what was bought with it: its order bump and upsells still
 * carrying the old address) to `email`, lower-cased by the shared schema. The update is a
 * compare-and-set on the address read; each email is written only if that update changed the row.
 */
export async function changePurchaseEmail(
  deps: PurchaseDeps,
  { purchase, by }: ChangeablePurchase,
  email: string,
  now = Date.now(),
): Promise<PurchaseEmailChanged> {
  const old = purchase.buyerEmail;
  if (old === email) return { changed: false, emailedTo: masked(email) };
  assertChangeable(purchase);
  await assertUnderLimits(deps.d1, purchase, now);

  const nonce = newId();
  const jobs: EmailJob[] = [];
  if (old) jobs.push(await oldAddressNotice(deps, purchase, old, email, nonce));
  jobs.push(await newAddressReceipt(deps, purchase, email, now, nonce));
  const results = await deps.d1.batch([
    // The limits are read inside the update, so two changes at once cannot both pass a count taken before.
    deps.d1
      .prepare(
        `update purchases set buyer_email = ?1 where id = ?2 and buyer_email is ?3 and status = 'paid'
         and (select count(*) from purchase_email_changes where purchase_id = ?2) < ?4
         and (select count(*) from purchase_email_changes where creator_id = ?5 and created_at > ?6) < ?7`,
      )
      .bind(
        email,
        purchase.id,
        old,
        EMAIL_CHANGES_PER_ORDER,
        purchase.creatorId,
        now - DAY_MS,
        EMAIL_CHANGES_PER_CREATOR_DAY,
      ),
    // changes(): the statement just before this one. The record follows the update, the first email the
    // record, each next email the one before it: all are written exactly when the update changed the row.
    deps.d1
      .prepare(
        `insert into purchase_email_changes (id, purchase_id, creator_id, old_email, new_email, changed_by, created_at)
         select ?, ?, ?, ?, ?, ?, ? where changes() > 0`,
      )
      .bind(nonce, purchase.id, purchase.creatorId, old, email, by, now),
    ...jobs.map((job) => outboxInsert(deps.d1, job, now, { sql: "changes() > 0", binds: [] })),
    // Its order bump and upsells, paid or on their way (a refunded one keeps the address its refund went to).
    deps.d1
      .prepare(
        `update purchases set buyer_email = ?1 where (bump_of = ?2 or parent_purchase_id = ?2) and buyer_email is ?3
         and status in ('paid', 'pending') and exists (select 1 from purchases where id = ?2 and buyer_email = ?1)`,
      )
      .bind(email, purchase.id, old),
  ]);
  if ((results[0].meta.changes ?? 0) === 0) {
    const current = await deps.db
      .select({ buyerEmail: purchases.buyerEmail, status: purchases.status })
      .from(purchases)
      .where(eq(purchases.id, purchase.id))
      .get();
    // The same change made twice at once (a double click): the first did it, the second is a no-op.
    if (current?.buyerEmail === email) return { changed: false, emailedTo: masked(email) };
    if (current) assertChangeable({ ...current, processingSince: null });
    await assertUnderLimits(deps.d1, purchase, now);
    throw new ApiError(409, M.changedMeanwhile);
  }
  await dispatch(
    deps.d1,
    deps.emails,
    jobs.map((j) => j.dedupeKey),
    now,
  );
  return { changed: true, emailedTo: masked(email) };
}

/** Each change mails a receipt to the address typed: a few per order ever, and a day's worth per creator. */
async function assertUnderLimits(d1: D1Database, purchase: PurchaseRow, now: number): Promise<void> {
  const row = await d1
    .prepare(
      `select (select count(*) from purchase_email_changes where purchase_id = ?) as order_changes,
              (select count(*) from purchase_email_changes where creator_id = ? and created_at > ?) as creator_changes`,
    )
    .bind(purchase.id, purchase.creatorId, now - DAY_MS)
    .first<{ order_changes: number; creator_changes: number }>();
  if ((row?.order_changes ?? 0) >= EMAIL_CHANGES_PER_ORDER) throw new ApiError(429, M.tooMany);
  if ((row?.creator_changes ?? 0) >= EMAIL_CHANGES_PER_CREATOR_DAY) throw new ApiError(429, M.busy);
}

/** Every receipt a change sends starts with this (the delivery of a purchase's receipts can be found by it). */
const newReceiptKeyPrefix = (purchaseId: string) => `purchase-access:${purchaseId}:to:`;

async function oldAddressNotice(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  old: string,
  email: string,
  nonce: string,
): Promise<EmailJob> {
  const [item, creator] = await Promise.all([
    deps.db.select({ title: content.title }).from(content).where(eq(content.id, purchase.contentId)).get(),
    publicCreator(deps.db, purchase.creatorId),
  ]);
  return {
    dedupeKey: `purchase-email-changed:${purchase.id}:${nonce}`,
    to: old,
    template: "purchase-email-changed",
    // Masked: the old address may not be the buyer's (that is often why it is changed).
    data: {
      title: item?.title ?? "your purchase",
      orderId: purchase.id,
      newEmail: masked(email),
      creator: mailCreator(deps.appUrl, creator),
    },
  };
}

/**
 * The receipt the purchase was paid with, again, to the new address: the order email when the order
 * holds more than this purchase (its bump or upsells), else the item's receipt (with its license key).
 */
async function newAddressReceipt(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  email: string,
  now: number,
  nonce: string,
): Promise<EmailJob> {
  const dedupeKey = `${newReceiptKeyPrefix(purchase.id)}${nonce}`;
  const more = await deps.db
    .select({ id: purchases.id })
    .from(purchases)
    .where(
      and(
        or(eq(purchases.bumpOf, purchase.id), eq(purchases.parentPurchaseId, purchase.id)),
        eq(purchases.status, "paid"),
      ),
    )
    .get();
  if (more) return { ...orderEmailJob(purchase.id, email, now, { waitForFunnel: false }), dedupeKey };
  return { ...(await receiptJob(deps, purchase, email)), dedupeKey };
}
