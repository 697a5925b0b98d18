// What a buyer may see: the purchase a caller holds (by its access link, or as the browser that paid,
// the aw_buyer key), brought up to date with Stripe, and what its success page and "Lost your
// access?" show. Behaviour: docs/payments.md ("Access: what a buyer keeps").
import { and, desc, eq, sql } from "drizzle-orm";
import { maskEmail } from "../../../shared/payout-destination";
import type { PurchaseVerification, RevokedPurchase } from "../../../shared/payments";
import { BROWSER_EMAIL_CHANGE_DAYS } from "../../../shared/purchase-email";
import { content, creatorProfiles, licenseKeys, purchases, users } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { sha256Hex } from "../../lib/ids";
import { receiptOfPurchase } from "../mail/receipts-delivered";
import type { RecoveredPurchase } from "../mail/templates";
import { creatorColumns, mailCreator, publicCreator, toPublicCreator } from "../profile";
import { accessTokenFor, accessUrlFor, purchaseIdFromToken } from "./access-tokens";
import type { PurchaseDeps, PurchaseRow } from "./deps";
import { syncWithStripe } from "./fulfil";
import { receiptHeld } from "./receipt-cap";
import { invoiceLinkFor } from "../tax/invoice";
import { GRANTS_ACCESS, type PurchaseState } from "./states";

export const BUYER_COOKIE = "aw_buyer";

export type Claim = { buyerKey?: string | null; access?: string | null };

/** The purchase this caller may see: by access token, or by being the browser that paid. */
export async function claimedPurchase(
  deps: PurchaseDeps,
  claim: Claim,
  where: { paymentIntentId?: string; contentId?: string },
): Promise<PurchaseRow | null> {
  const tokenPurchaseId = await purchaseIdFromToken(deps.accessSecret, claim.access);
  if (tokenPurchaseId) {
    const p = await deps.db.select().from(purchases).where(eq(purchases.id, tokenPurchaseId)).get();
    if (
      p &&
      (!where.paymentIntentId || p.paymentIntentId === where.paymentIntentId) &&
      (!where.contentId || p.contentId === where.contentId)
    )
      return p;
    return null;
  }
  if (!claim.buyerKey || !(where.paymentIntentId || where.contentId)) return null;
  const keyHash = await sha256Hex(claim.buyerKey);
  if (where.paymentIntentId) {
    const p = await deps.db
      .select()
      .from(purchases)
      .where(and(eq(purchases.paymentIntentId, where.paymentIntentId), eq(purchases.buyerKeyHash, keyHash)))
      .get();
    return p && (!where.contentId || p.contentId === where.contentId) ? p : null;
  }
  return (await browserPurchasesOf(deps, keyHash, where.contentId!))[0] ?? null;
}

/** This browser's purchases of an item, a paid one first, then the newest. */
export function browserPurchasesOf(deps: PurchaseDeps, keyHash: string, contentId: string) {
  return deps.db
    .select()
    .from(purchases)
    .where(and(eq(purchases.contentId, contentId), eq(purchases.buyerKeyHash, keyHash)))
    .orderBy(desc(sql`${purchases.status} = 'paid'`), desc(purchases.createdAt))
    .limit(5);
}

/**
 * The purchase of an item that this caller holds, brought up to date with Stripe. A browser that
 * started several checkouts gets the one that paid, even before its webhook arrives.
 */
export async function currentPurchaseOfContent(
  deps: PurchaseDeps,
  claim: Claim,
  contentId: string,
): Promise<PurchaseRow | null> {
  const byToken = await purchaseIdFromToken(deps.accessSecret, claim.access);
  if (byToken || !claim.buyerKey) {
    const p = await claimedPurchase(deps, claim, { contentId });
    return p && syncWithStripe(deps, p, { bestEffort: true });
  }
  const candidates = await browserPurchasesOf(deps, await sha256Hex(claim.buyerKey), contentId);
  for (const candidate of candidates) {
    const synced = await syncWithStripe(deps, candidate, { bestEffort: true });
    if (synced.status === "paid") return synced;
  }
  return candidates[0] ?? null;
}

/**
 * Whether `buyerKey` is the browser that paid for this order and may still change its email there
 * (for BROWSER_EMAIL_CHANGE_DAYS after paying; worker/services/purchases/email-change.ts checks the same).
 */
async function browserMayChangeEmail(
  purchase: PurchaseRow,
  buyerKey: string | null | undefined,
  now = Date.now(),
): Promise<boolean> {
  if (!buyerKey || purchase.status !== "paid" || !purchase.paidAt) return false;
  if (purchase.paidAt.getTime() <= now - BROWSER_EMAIL_CHANGE_DAYS * 24 * 3600 * 1000) return false;
  return purchase.buyerKeyHash === (await sha256Hex(buyerKey));
}

/** What the success page and the paywall show an owner; `buyerKey`: the caller's, if it is a browser. */
export async function verification(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  buyerKey?: string | null,
): Promise<PurchaseVerification> {
  const [item, license] = await Promise.all([
    deps.db.select().from(content).where(eq(content.id, purchase.contentId)).get(),
    deps.db.select({ key: licenseKeys.key }).from(licenseKeys).where(eq(licenseKeys.purchaseId, purchase.id)).get(),
  ]);
  if (!item) throw notFound("Purchase Not Found");
  const token = await accessTokenFor(deps.accessSecret, purchase.id);
  const fileUrl =
    item.fileKey && item.accessType !== "link"
      ? `/api/purchases/${purchase.id}/file?access=${encodeURIComponent(token)}`
      : null;
  return {
    content: {
      id: item.id,
      title: item.title,
      description: item.description,
      price: purchase.amountCents / 100,
      previewImage: item.previewImageKey ? `/api/content/${item.id}/preview-image` : null,
      accessType: item.accessType,
      fileUrl,
      fileName: fileUrl ? item.fileName : null,
      fileType: fileUrl ? item.fileContentType : null,
      linkUrl: item.linkUrl,
      textContent: item.textContent,
      creator: await publicCreator(deps.db, item.userId),
    },
    purchase: {
      id: purchase.id,
      amount: purchase.amountCents / 100,
      // "b…@example.com": the buyer recognises their address; a forwarded link does not learn it.
      emailedTo: purchase.buyerEmail ? maskEmail(purchase.buyerEmail, "…") : null,
      licenseKey: license?.key ?? null,
      canChangeEmail: await browserMayChangeEmail(purchase, buyerKey),
      receiptHeld: await receiptHeld(deps.d1, purchase),
    },
    accessUrl: await accessUrlFor(deps, purchase),
    addOns: await addOnsOf(deps, purchase),
    receipt: await receiptOfPurchase(deps.d1, purchase, (email) => maskEmail(email, "…")),
    invoice: await invoiceLinkFor(deps, purchase),
  };
}

/**
 * Why a purchase the caller holds no longer opens (a full refund or a chargeback), and since when;
 * null for one that still opens or is not the caller's. Title and order number only, as the paid
 * page showed them: no email, no amount.
 */
export async function revokedPurchase(
  deps: PurchaseDeps,
  claim: Claim,
  where: { paymentIntentId?: string; contentId?: string },
): Promise<RevokedPurchase | null> {
  const purchase = await claimedPurchase(deps, claim, where);
  if (!purchase?.revokedAt || (purchase.status !== "refunded" && purchase.status !== "disputed")) return null;
  const item = await deps.db
    .select({ title: content.title })
    .from(content)
    .where(eq(content.id, purchase.contentId))
    .get();
  return {
    state: purchase.status,
    since: purchase.revokedAt.toISOString(),
    orderId: purchase.id,
    content: { id: purchase.contentId, title: item?.title ?? "" },
  };
}

/** The order bump paid with this purchase, each with its own (read-only) access link. */
async function addOnsOf(deps: PurchaseDeps, purchase: PurchaseRow): Promise<PurchaseVerification["addOns"]> {
  if (purchase.bumpOf) return [];
  const rows = await deps.db
    .select({
      id: purchases.id,
      paymentIntentId: purchases.paymentIntentId,
      contentId: purchases.contentId,
      amountCents: purchases.amountCents,
      title: content.title,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .where(and(eq(purchases.bumpOf, purchase.id), eq(purchases.status, "paid")));
  return Promise.all(
    rows.map(async (r) => ({ title: r.title, amount: r.amountCents / 100, accessUrl: await accessUrlFor(deps, r) })),
  );
}

/** Every paid purchase made with `email` (newest first, at most 50), with its permanent access link. */
export async function recoveredPurchases(
  deps: Pick<PurchaseDeps, "db" | "appUrl" | "accessSecret">,
  email: string,
): Promise<RecoveredPurchase[]> {
  const rows = await deps.db
    .select({
      id: purchases.id,
      paymentIntentId: purchases.paymentIntentId,
      contentId: purchases.contentId,
      amountCents: purchases.amountCents,
      title: content.title,
      creator: creatorColumns,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .innerJoin(users, eq(users.id, content.userId))
    .leftJoin(creatorProfiles, eq(creatorProfiles.userId, content.userId))
    .where(and(eq(purchases.buyerEmail, email.toLowerCase()), eq(purchases.status, "paid")))
    .orderBy(desc(purchases.paidAt))
    .limit(50);
  return Promise.all(
    rows.map(async (r) => ({
      title: r.title,
      amountCents: r.amountCents,
      orderId: r.id,
      accessUrl: await accessUrlFor(deps, r),
      creator: mailCreator(deps.appUrl, toPublicCreator(r.creator)),
    })),
  );
}

/** 403 unless the purchase's state grants access (a full refund or a chargeback ends it). */
export function assertPaid(purchase: PurchaseRow | null): asserts purchase is PurchaseRow {
  if (!purchase) throw notFound("Purchase Not Found");
  if (purchase.status in GRANTS_ACCESS && !GRANTS_ACCESS[purchase.status as PurchaseState])
    throw new ApiError(403, "Access to this purchase was revoked after a refund or dispute");
  if (purchase.status !== "paid") throw new ApiError(409, "Payment is still processing");
}
