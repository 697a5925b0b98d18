// Buying: a checkout makes a pending purchase and its PaymentIntent; fulfilment marks it paid and
// writes the ledger once, whichever of the webhook, the success page or the paywall gets there
// first; refunds and disputes revoke access and reverse the ledger. Access is granted only to the
// browser that paid (its aw_buyer key) or to whoever holds the purchase's access link.
import { and, desc, eq, gt } from "drizzle-orm";
import type Stripe from "stripe";
import { MAX_PRICE_CENTS } from "../../shared/constants";
import { dollarsToCents } from "../../shared/content";
import type { PurchaseVerification } from "../../shared/payments";
import type { Db } from "../db/client";
import { buyerCustomers, content, ledgerEntries, purchases, users } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { newId, sha256Hex } from "../lib/ids";
import { insertLedgerRow, reversalRows, saleRows } from "./ledger";
import type { EmailJob } from "./mail/templates";

export type PurchaseDeps = {
  db: Db;
  d1: D1Database;
  stripe: Stripe;
  emails: Queue;
  appUrl: string;
  accessSecret: string;
};
type PurchaseRow = typeof purchases.$inferSelect;

export const BUYER_COOKIE = "aw_buyer";
const PAID_LIKE = ["paid", "refunded", "disputed"];

// ---- access tokens: `${purchaseId}.${HMAC(secret, purchaseId)}`; nothing secret is stored ----

async function hmac(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`access:${message}`)));
  return btoa(String.fromCharCode(...sig)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export async function accessTokenFor(secret: string, purchaseId: string): Promise<string> {
  return `${purchaseId}.${await hmac(secret, purchaseId)}`;
}

/** The purchase id a token grants, or null. Compared in constant time. */
export async function purchaseIdFromToken(secret: string, token: string | undefined | null): Promise<string | null> {
  if (!token) return null;
  const [id, sig] = token.split(".");
  if (!id || !sig || !/^[A-Za-z0-9]{1,32}$/.test(id)) return null;
  const expected = await hmac(secret, id);
  if (expected.length !== sig.length) return null;
  let diff = 0;
  for (let i = 0; i < sig.length; i++) diff |= expected.charCodeAt(i) ^ sig.charCodeAt(i);
  return diff === 0 ? id : null;
}

export async function accessUrlFor(deps: Pick<PurchaseDeps, "appUrl" | "accessSecret">, p: Pick<PurchaseRow, "id" | "paymentIntentId" | "contentId">): Promise<string> {
  const url = new URL("/success", deps.appUrl);
  if (p.paymentIntentId) url.searchParams.set("payment_intent", p.paymentIntentId);
  url.searchParams.set("content_id", p.contentId);
  url.searchParams.set("access", await accessTokenFor(deps.accessSecret, p.id));
  return url.toString();
}

// ---- checkout ----

/** The amount to charge, from the server's own record: a client can never lower a price. */
export function chargeAmountCents(item: { pricingModel: string; priceCents: number; minimumPriceCents: number | null }, customAmount: unknown): number {
  if (item.pricingModel !== "pay_what_you_want") return item.priceCents;
  const minimum = item.minimumPriceCents ?? item.priceCents;
  if (customAmount === undefined || customAmount === null || customAmount === "") return minimum;
  const cents = dollarsToCents(typeof customAmount === "number" ? String(customAmount) : String(customAmount));
  if (!Number.isFinite(cents)) throw new ApiError(400, "Amount must be a number with at most two decimals");
  if (cents < minimum) throw new ApiError(400, `Minimum amount is $${(minimum / 100).toFixed(2)}`);
  if (cents > MAX_PRICE_CENTS) throw new ApiError(400, `Maximum amount is $${(MAX_PRICE_CENTS / 100).toLocaleString("en-US")}`);
  return cents;
}

async function customerFor(deps: PurchaseDeps, email: string | null): Promise<string> {
  if (email) {
    const known = await deps.db.select().from(buyerCustomers).where(eq(buyerCustomers.email, email)).get();
    if (known) return known.stripeCustomerId;
  }
  const customer = await deps.stripe.customers.create(email ? { email } : {});
  if (email) {
    await deps.db.insert(buyerCustomers).values({ email, stripeCustomerId: customer.id }).onConflictDoNothing();
    const winner = await deps.db.select().from(buyerCustomers).where(eq(buyerCustomers.email, email)).get();
    return winner?.stripeCustomerId ?? customer.id;
  }
  return customer.id;
}

export async function startCheckout(
  deps: PurchaseDeps,
  input: { contentId: string; customAmount: unknown; buyerEmail: string | null; buyerKey: string },
): Promise<{ clientSecret: string; purchaseId: string; amountCents: number }> {
  const item = await deps.db
    .select()
    .from(content)
    .where(and(eq(content.id, input.contentId), eq(content.isUpsell, false)))
    .get();
  if (!item || item.deletedAt) throw notFound("Content Not Found");
  const amountCents = chargeAmountCents(item, input.customAmount);
  const purchaseId = newId();
  const customer = await customerFor(deps, input.buyerEmail);
  const intent = await deps.stripe.paymentIntents.create(
    {
      amount: amountCents,
      currency: item.currency,
      customer,
      // The card is kept on the buyer's Customer for one-click upsells after this purchase.
      setup_future_usage: "off_session",
      automatic_payment_methods: { enabled: true },
      description: item.title.slice(0, 200),
      ...(input.buyerEmail ? { receipt_email: input.buyerEmail } : {}),
      metadata: { purchaseId, contentId: item.id, creatorId: item.userId },
    },
    { idempotencyKey: `checkout:${purchaseId}` },
  );
  await deps.db.insert(purchases).values({
    id: purchaseId,
    contentId: item.id,
    creatorId: item.userId,
    buyerEmail: input.buyerEmail,
    amountCents,
    currency: item.currency,
    status: "pending",
    paymentIntentId: intent.id,
    stripeCustomerId: customer,
    buyerKeyHash: await sha256Hex(input.buyerKey),
  });
  if (!intent.client_secret) throw new Error("PaymentIntent has no client secret");
  return { clientSecret: intent.client_secret, purchaseId, amountCents };
}

// ---- fulfilment ----

export type FulfilOutcome = "fulfilled" | "already" | "not-succeeded" | "mismatch" | "unknown";

async function emailOf(deps: PurchaseDeps, intent: Stripe.PaymentIntent): Promise<string | null> {
  if (intent.receipt_email) return intent.receipt_email.toLowerCase();
  const customerId = typeof intent.customer === "string" ? intent.customer : intent.customer?.id;
  if (!customerId) return null;
  try {
    const customer = await deps.stripe.customers.retrieve(customerId);
    return "email" in customer && customer.email ? customer.email.toLowerCase() : null;
  } catch {
    return null;
  }
}

/**
 * Marks the purchase of a succeeded PaymentIntent paid and writes its ledger rows, in one D1 batch.
 * Safe to call any number of times, concurrently, in any order with refunds.
 */
export async function fulfil(deps: PurchaseDeps, intent: Stripe.PaymentIntent): Promise<FulfilOutcome> {
  const purchase = await deps.db.select().from(purchases).where(eq(purchases.paymentIntentId, intent.id)).get();
  if (!purchase) return "unknown";
  if (intent.status !== "succeeded") return "not-succeeded";
  if (intent.amount_received !== purchase.amountCents || intent.amount !== purchase.amountCents || intent.currency !== purchase.currency || intent.metadata?.purchaseId !== purchase.id) {
    console.error("payment intent does not match its purchase", intent.id, purchase.id);
    return "mismatch";
  }
  if (PAID_LIKE.includes(purchase.status)) return "already";

  const creator = await deps.db.select({ plan: users.plan }).from(users).where(eq(users.id, purchase.creatorId)).get();
  const email = purchase.buyerEmail ?? (await emailOf(deps, intent));
  const now = Date.now();
  const results = await deps.d1.batch([
    deps.d1
      .prepare("update purchases set status = 'paid', paid_at = ?, buyer_email = coalesce(buyer_email, ?) where id = ? and status = 'pending' returning id")
      .bind(now, email, purchase.id),
    ...saleRows(purchase.id, purchase.creatorId, purchase.amountCents, creator?.plan ?? "free").map((row) => insertLedgerRow(deps.d1, row, PAID_LIKE)),
  ]);
  if ((results[0].results?.length ?? 0) === 0) return "already";

  if (email) {
    const item = await deps.db.select({ title: content.title }).from(content).where(eq(content.id, purchase.contentId)).get();
    const job: EmailJob = {
      dedupeKey: `purchase-access:${purchase.id}`,
      to: email,
      template: "purchase-access",
      data: { title: item?.title ?? "your purchase", amountCents: purchase.amountCents, orderId: purchase.id, accessUrl: await accessUrlFor(deps, purchase) },
    };
    await deps.emails.send(job);
    if (purchase.stripeCustomerId) await deps.db.insert(buyerCustomers).values({ email, stripeCustomerId: purchase.stripeCustomerId }).onConflictDoNothing();
  }
  return "fulfilled";
}

/** Asks Stripe about a purchase's PaymentIntent and fulfils it if it succeeded. */
export async function syncWithStripe(deps: PurchaseDeps, purchase: PurchaseRow): Promise<PurchaseRow> {
  if (purchase.status !== "pending" || !purchase.paymentIntentId) return purchase;
  const intent = await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId);
  await fulfil(deps, intent);
  return (await deps.db.select().from(purchases).where(eq(purchases.id, purchase.id)).get()) ?? purchase;
}

async function saleOf(deps: PurchaseDeps, purchase: PurchaseRow) {
  const creatorRow = await deps.db
    .select({ cents: ledgerEntries.amountCents })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.idempotencyKey, `sale:${purchase.id}:creator`))
    .get();
  return { amountCents: purchase.amountCents, creatorCents: creatorRow?.cents ?? 0 };
}

async function revoke(deps: PurchaseDeps, purchase: PurchaseRow, status: "refunded" | "disputed", rows: ReturnType<typeof reversalRows>) {
  await deps.d1.batch([
    deps.d1.prepare("update purchases set status = ?, revoked_at = coalesce(revoked_at, ?) where id = ? and status in ('paid', 'refunded', 'disputed')").bind(status, Date.now(), purchase.id),
    ...rows.map((row) => insertLedgerRow(deps.d1, row, PAID_LIKE)),
  ]);
}

async function paidPurchaseForIntent(deps: PurchaseDeps, paymentIntentId: string | null): Promise<PurchaseRow | null> {
  if (!paymentIntentId) return null;
  const purchase = await deps.db.select().from(purchases).where(eq(purchases.paymentIntentId, paymentIntentId)).get();
  if (!purchase) return null;
  // A refund or dispute can arrive before payment_intent.succeeded: fulfil first, then reverse.
  return syncWithStripe(deps, purchase);
}

export async function handleRefund(deps: PurchaseDeps, chargeId: string): Promise<void> {
  const charge = await deps.stripe.charges.retrieve(chargeId, { expand: ["refunds"] });
  const intentId = typeof charge.payment_intent === "string" ? charge.payment_intent : (charge.payment_intent?.id ?? null);
  const purchase = await paidPurchaseForIntent(deps, intentId);
  if (!purchase || !PAID_LIKE.includes(purchase.status)) return;
  const sale = await saleOf(deps, purchase);
  const rows = (charge.refunds?.data ?? [])
    .filter((r) => r.status === "succeeded" || r.status === "pending")
    .flatMap((r) => reversalRows(`refund:${r.id}`, "refund", purchase.id, purchase.creatorId, sale, r.amount));
  await revoke(deps, purchase, "refunded", rows);
}

export async function handleDispute(deps: PurchaseDeps, disputeId: string): Promise<void> {
  const dispute = await deps.stripe.disputes.retrieve(disputeId);
  let intentId = typeof dispute.payment_intent === "string" ? dispute.payment_intent : (dispute.payment_intent?.id ?? null);
  if (!intentId) {
    const charge = await deps.stripe.charges.retrieve(typeof dispute.charge === "string" ? dispute.charge : dispute.charge.id);
    intentId = typeof charge.payment_intent === "string" ? charge.payment_intent : (charge.payment_intent?.id ?? null);
  }
  const purchase = await paidPurchaseForIntent(deps, intentId);
  if (!purchase || !PAID_LIKE.includes(purchase.status)) return;
  const sale = await saleOf(deps, purchase);
  await revoke(deps, purchase, "disputed", reversalRows(`dispute:${dispute.id}`, "dispute", purchase.id, purchase.creatorId, sale, dispute.amount));
}

// ---- access ----

export type Claim = { buyerKey?: string | null; access?: string | null };

/** The purchase this caller may see: by access token, or by being the browser that paid. */
export async function claimedPurchase(deps: PurchaseDeps, claim: Claim, where: { paymentIntentId?: string; contentId?: string }): Promise<PurchaseRow | null> {
  const tokenPurchaseId = await purchaseIdFromToken(deps.accessSecret, claim.access);
  if (tokenPurchaseId) {
    const p = await deps.db.select().from(purchases).where(eq(purchases.id, tokenPurchaseId)).get();
    if (p && (!where.paymentIntentId || p.paymentIntentId === where.paymentIntentId) && (!where.contentId || p.contentId === where.contentId)) return p;
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
  // The browser's most recent purchase of this item (the paywall's "process recent purchase").
  return (
    (await deps.db
      .select()
      .from(purchases)
      .where(and(eq(purchases.contentId, where.contentId!), eq(purchases.buyerKeyHash, keyHash), gt(purchases.createdAt, new Date(Date.now() - 7 * 24 * 3600 * 1000))))
      .orderBy(desc(purchases.createdAt))
      .get()) ?? null
  );
}

export async function verification(deps: PurchaseDeps, purchase: PurchaseRow): Promise<PurchaseVerification> {
  const item = await deps.db.select().from(content).where(eq(content.id, purchase.contentId)).get();
  if (!item) throw notFound("Purchase Not Found");
  const token = await accessTokenFor(deps.accessSecret, purchase.id);
  const fileUrl = item.fileKey && item.accessType !== "link" ? `/api/purchases/${purchase.id}/file?access=${encodeURIComponent(token)}` : null;
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
    },
    purchase: { id: purchase.id, amount: purchase.amountCents / 100, buyerEmail: purchase.buyerEmail },
    accessUrl: await accessUrlFor(deps, purchase),
  };
}

/** 403 unless the purchase is paid (refunds and disputes revoke access). */
export function assertPaid(purchase: PurchaseRow | null): asserts purchase is PurchaseRow {
  if (!purchase) throw notFound("Purchase Not Found");
  if (purchase.status === "refunded" || purchase.status === "disputed") throw new ApiError(403, "Access to this purchase was revoked after a refund or dispute");
  if (purchase.status !== "paid") throw new ApiError(409, "Payment is still processing");
}
