// Changing the email on a paid purchase: who may (the browser that paid, or the library signed in as
// its current email), the compare-and-set on the current address, and the two emails written in the
// same D1 batch (the old address is told, the new one gets the receipt). Behaviour: docs/payments.md
// ("Changing a purchase's email").
import { and, eq, or } from "drizzle-orm";
import { maskEmail } from "../../../shared/payout-destination";
import {
  EMAIL_CHANGES_PER_DAY,
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

/** The purchase `id` if the caller may change its email (ownership in the query itself), else null. */
export async function purchaseForEmailChange(
  deps: PurchaseDeps,
  id: string,
  who: EmailChanger,
): Promise<PurchaseRow | null> {
  const owns = [
    ...(who.buyerKey ? [eq(purchases.buyerKeyHash, await sha256Hex(who.buyerKey))] : []),
    ...(who.libraryEmail ? [eq(purchases.buyerEmail, who.libraryEmail.toLowerCase())] : []),
  ];
  if (!owns.length) return null;
  const found = await deps.db
    .select()
    .from(purchases)
    .where(and(eq(purchases.id, id), or(...owns)))
    .get();
  // A payment whose webhook has not arrived yet is read from Stripe, as the success page does.
  return found ? syncWithStripe(deps, found, { bestEffort: true }) : null;
}

const masked = (email: string) => maskEmail(email, "…");

function assertChangeable(p: Pick<PurchaseRow, "status">): void {
  if (p.status === "refunded") throw new ApiError(409, M.refunded);
  if (p.status === "disputed") throw new ApiError(409, M.disputed);
  if (p.status !== "paid") throw new ApiError(409, M.processing);
}

/**
 * Sets the purchase's email (and that of what was bought with it: its order bump and upsells still
 * carrying the old address) to `email`, lower-cased by the shared schema. The update is a
 * compare-and-set on the address read; each email is written only if that update changed the row.
 */
export async function changePurchaseEmail(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  email: string,
  now = Date.now(),
): Promise<PurchaseEmailChanged> {
  const old = purchase.buyerEmail;
  if (old === email) return { changed: false, emailedTo: masked(email) };
  assertChangeable(purchase);
  await assertUnderDailyLimit(deps.d1, purchase.id, now);

  const nonce = newId();
  const jobs: EmailJob[] = [];
  if (old) jobs.push(await oldAddressNotice(deps, purchase, old, email, nonce));
  jobs.push(await newAddressReceipt(deps, purchase, email, now, nonce));
  const results = await deps.d1.batch([
    deps.d1
      .prepare("update purchases set buyer_email = ? where id = ? and buyer_email is ? and status = 'paid'")
      .bind(email, purchase.id, old),
    // changes(): the statement just before this one. The first insert follows the update, each next
    // insert the one before it, so every email is written exactly when the update changed the row.
    ...jobs.map((job) => outboxInsert(deps.d1, job, now, { sql: "changes() > 0", binds: [] })),
    deps.d1
      .prepare(
        `update purchases set buyer_email = ?1 where (bump_of = ?2 or parent_purchase_id = ?2) and buyer_email is ?3
         and exists (select 1 from purchases where id = ?2 and buyer_email = ?1)`,
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
    if (current) assertChangeable(current);
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

/** Each change mails a receipt to the address typed: a few a day per order, so it cannot be a mailer. */
async function assertUnderDailyLimit(d1: D1Database, purchaseId: string, now: number): Promise<void> {
  const prefix = newReceiptKeyPrefix(purchaseId);
  // A range on the primary key (the nonce is base62, all below "~"), so the count reads the index.
  const row = await d1
    .prepare("select count(*) as n from outbox_emails where id > ? and id < ? and created_at > ?")
    .bind(prefix, `${prefix}~`, now - DAY_MS)
    .first<{ n: number }>();
  if ((row?.n ?? 0) >= EMAIL_CHANGES_PER_DAY) throw new ApiError(429, M.tooMany);
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
