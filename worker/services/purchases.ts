// Buying: a checkout makes a pending purchase and its PaymentIntent; fulfilment marks it paid and
// writes the ledger once, whichever of the webhook, the success page or the paywall gets there
// first; refunds and disputes move it between the states of ./purchase-states.ts (one transition
// table) and reverse or restore the ledger, decided from Stripe's word alone. Access is granted
// only to the browser that paid (its aw_buyer key) or to whoever holds the purchase's access link.
import { and, desc, eq, or, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { issueLicenseStatement, newLicenseKey } from "./licenses";
import { MAX_PRICE_CENTS } from "../../shared/pricing";
import { dollarsToCents } from "../../shared/content";
import type { PurchaseVerification } from "../../shared/payments";
import { PAYWALL_TEXT } from "../../shared/paywall";
import type { Db } from "../db/client";
import { buyerCustomers, content, creatorProfiles, licenseKeys, purchases, users } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { newId, sha256Hex } from "../lib/ids";
import { carryOverHolds, releaseHold, reserveUse } from "./discounts";
import { codeDropped } from "../../shared/discounts";
import { bumpForCheckout, publicBump } from "./bumps";
import { BUMP_MESSAGES } from "../../shared/bumps";
import { abandonedCheckout, RECOVER_LINK_OTHER_EMAIL, reminder } from "./recovery";
import { liveFunnelFor } from "./funnels";
// A cycle by design: a creator's refund settles its charge here; settling records each request's status (used only at call time).
import { refundRequestStatements } from "./refund-requests";
import { insertLedgerRow, restoreRows, reverseSale, saleRows, stripeFeeRow, type LedgerRow } from "./ledger";
import { dispatch, outboxInsert, type OutboxGuard } from "./mail/email-outbox";
import { orderEmailJob, orderEmailKey, orderEmailPending } from "./mail/order-email";
import type { EmailJob, OrderMailData, PurchaseAccessMailData, RecoveredPurchase } from "./mail/templates";
import { creatorColumns, mailCreator, publicCreator, toPublicCreator } from "./profile";
import {
  attributeToOrder,
  effectsOf,
  GRANTS_ACCESS,
  STATE_FROM_LEDGER_SQL,
  stripeIdOf,
  type KeyedEffect,
  type PurchaseState,
} from "./purchase-states";
import { chargeReservations } from "./reservations";
import { CHECKOUT_PAYMENT_METHODS, isInvalidEmail } from "./stripe";
import { noteIntentState } from "./payment-processing";
import { planAt, settleProInvoiceCharge } from "./subscriptions";
import { dispatchWebhooks, webhookStatements } from "./webhooks";

export type PurchaseDeps = {
  db: Db;
  d1: D1Database;
  stripe: Stripe;
  emails: Queue;
  /** Creators' outgoing webhooks (./webhooks.ts); without it the sweep hands the rows over. */
  webhooks?: Queue;
  appUrl: string;
  accessSecret: string;
  /** How long a checkout reminder waits (./recovery.ts); CHECKOUT_REMINDER_DELAY_SECONDS shortens it for local runs. */
  reminderDelayMs?: number;
};
type PurchaseRow = typeof purchases.$inferSelect;

export const BUYER_COOKIE = "aw_buyer";
const PAID_LIKE = ["paid", "refunded", "disputed"];

// ---- access tokens: `${purchaseId}.${HMAC(secret, purchaseId)}`; nothing secret is stored ----

async function hmac(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`access:${message}`)));
  return btoa(String.fromCharCode(...sig))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
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

export async function accessUrlFor(
  deps: Pick<PurchaseDeps, "appUrl" | "accessSecret">,
  p: Pick<PurchaseRow, "id" | "paymentIntentId" | "contentId">,
): Promise<string> {
  const url = new URL("/success", deps.appUrl);
  if (p.paymentIntentId) url.searchParams.set("payment_intent", p.paymentIntentId);
  url.searchParams.set("content_id", p.contentId);
  url.searchParams.set("access", await accessTokenFor(deps.accessSecret, p.id));
  return url.toString();
}

// ---- checkout ----

export const BUYER_EMAIL_REFUSED =
  "buyerEmail: this email address was not accepted for the receipt; please check it or use another";

/** The amount to charge, from the server's own record: a client can never lower a price. */
export function chargeAmountCents(
  item: { pricingModel: string; priceCents: number; minimumPriceCents: number | null },
  customAmount: unknown,
): number {
  if (item.pricingModel !== "pay_what_you_want") return item.priceCents;
  const minimum = item.minimumPriceCents ?? item.priceCents;
  if (customAmount === undefined || customAmount === null || customAmount === "") return minimum;
  const cents = dollarsToCents(typeof customAmount === "number" ? String(customAmount) : String(customAmount));
  if (!Number.isFinite(cents)) throw new ApiError(400, "Amount must be a number with at most two decimals");
  if (cents < minimum) throw new ApiError(400, `Minimum amount is $${(minimum / 100).toFixed(2)}`);
  if (cents > MAX_PRICE_CENTS)
    throw new ApiError(400, `Maximum amount is $${(MAX_PRICE_CENTS / 100).toLocaleString("en-US")}`);
  return cents;
}

/**
 * The paying browser's Customer, created once at its first checkout. It carries no email: a browser
 * is not a person (a shared computer has several buyers, each typing their own address, which goes
 * on each PaymentIntent as receipt_email), and the create's parameters never vary, so its
 * idempotency key (the browser alone) replays the same Customer for concurrent first checkouts.
 * (A new key prefix: the old `customer:` key was used with an email and must not be replayed with other parameters.)
 */
async function customerFor(deps: PurchaseDeps, buyerKeyHash: string): Promise<string> {
  const known = await deps.db.select().from(buyerCustomers).where(eq(buyerCustomers.buyerKeyHash, buyerKeyHash)).get();
  if (known) return known.stripeCustomerId;
  const customer = await deps.stripe.customers.create(
    { metadata: { kind: "browser" } },
    { idempotencyKey: `browser-customer:${buyerKeyHash}` },
  );
  await deps.db.insert(buyerCustomers).values({ buyerKeyHash, stripeCustomerId: customer.id }).onConflictDoNothing();
  // A browser has one Customer: the row that was written first wins.
  return (
    (await deps.db.select().from(buyerCustomers).where(eq(buyerCustomers.buyerKeyHash, buyerKeyHash)).get())
      ?.stripeCustomerId ?? customer.id
  );
}

export async function startCheckout(
  deps: PurchaseDeps,
  input: {
    contentId: string;
    customAmount: unknown;
    buyerEmail: string | null;
    buyerKey: string;
    discountCode?: string | null;
    recoverToken?: string | null;
    bump?: boolean;
    noReminder?: boolean;
  },
): Promise<{
  clientSecret: string;
  purchaseId: string;
  amountCents: number;
  discount: { code: string; amountOffCents: number } | null;
  bump: { title: string; amountCents: number } | null;
  /** A reminder's checkout: the address it is bound to, and why its code no longer applies (if so). */
  recovered: { buyerEmail: string; notice: string | null } | null;
}> {
  const item = await deps.db.select().from(content).where(eq(content.id, input.contentId)).get();
  if (!item || item.deletedAt) throw notFound("Content Not Found");
  // Its paywall says so too; a page open from before is refused here.
  if (item.unpublishedAt) throw new ApiError(409, PAYWALL_TEXT.unpublished);
  if (item.isUpsell) throw new ApiError(409, PAYWALL_TEXT.upsellOnly);
  const purchaseId = newId();
  const buyerKeyHash = await sha256Hex(input.buyerKey);
  // A reminder's link: the abandoned checkout's amount, for its address only (./recovery.ts).
  const abandoned = input.recoverToken
    ? await abandonedCheckout(deps.db, deps.accessSecret, input.recoverToken, item.id)
    : null;
  if (abandoned && input.buyerEmail && input.buyerEmail.toLowerCase() !== abandoned.buyerEmail)
    throw new ApiError(400, `buyerEmail: ${RECOVER_LINK_OTHER_EMAIL}`);
  const listCents = abandoned
    ? abandoned.amountCents + abandoned.discountCents
    : chargeAmountCents(item, input.customAmount);
  const buyerEmail = abandoned?.buyerEmail ?? input.buyerEmail ?? null;
  // A code: its price, computed here, and one use held for this checkout (./discounts.ts). A
  // recovered checkout's code is checked again like any; one that no longer applies gives the full price.
  const hold = {
    item,
    listCents,
    buyer: buyerEmail?.toLowerCase() ?? `browser:${buyerKeyHash}`,
    browser: buyerKeyHash,
    purchaseId,
  };
  let notice: string | null = null;
  let discount: Awaited<ReturnType<typeof reserveUse>> | null = null;
  if (abandoned?.discountCodeId) {
    discount = await reserveUse(deps.d1, { ...hold, codeId: abandoned.discountCodeId }).catch(async (err) => {
      if (!(err instanceof ApiError) || err.status >= 500) throw err;
      notice = codeDropped(
        await codeText(deps.d1, abandoned.discountCodeId!),
        err.message.replace(/^discountCode: /, ""),
      );
      return null;
    });
  } else if (input.discountCode) discount = await reserveUse(deps.d1, { ...hold, text: input.discountCode });
  const amountCents = discount?.priceCents ?? listCents;
  // A checkout refused from here on gives back the code's use it held.
  const refused = async (err: unknown): Promise<never> => {
    if (discount) await releaseHold(deps.d1, purchaseId);
    throw err;
  };
  // The order bump, ticked: its own purchase at the bump price, paid by the same PaymentIntent. A
  // discount code applies to the main item only.
  const bump = input.bump ? await bumpForCheckout(deps.db, item).catch(refused) : null;
  if (bump && (await browserPurchasesOf(deps, buyerKeyHash, bump.item.id)).some((p) => p.status === "paid")) {
    await refused(new ApiError(409, BUMP_MESSAGES.owned(bump.item.title)));
  }
  const bumpPurchaseId = bump ? newId() : null;
  // Whether this checkout offered the bump at all (its take rate's denominator in analytics).
  const bumpOffered = !!bump || (item.bumpPriceCents !== null && (await publicBump(deps.db, item)) !== null);
  // A card is kept only when a live funnel may offer a one-click upsell after this payment.
  const savesCard = !!(await liveFunnelFor(deps.db, item.id));
  // An address our check accepts may still be one Stripe refuses as a receipt_email: the buyer is
  // asked for another one, and nothing was created to charge.
  const refusedEmail = (err: unknown): Promise<never> =>
    refused(isInvalidEmail(err) ? new ApiError(400, BUYER_EMAIL_REFUSED) : err);
  const customer = savesCard ? await customerFor(deps, buyerKeyHash).catch(refusedEmail) : null;
  const intent = await deps.stripe.paymentIntents
    .create(
      {
        amount: amountCents + (bump?.priceCents ?? 0),
        currency: item.currency,
        // The card is kept on the buyer's Customer for one-click upsells after this purchase.
        ...(customer ? { customer, setup_future_usage: "off_session" as const } : {}),
        allowed_payment_method_types: CHECKOUT_PAYMENT_METHODS,
        description: (bump ? `${item.title} + ${bump.item.title}` : item.title).slice(0, 200),
        ...(buyerEmail ? { receipt_email: buyerEmail } : {}),
        metadata: {
          purchaseId,
          contentId: item.id,
          creatorId: item.userId,
          ...(discount ? { discountCode: discount.code } : {}),
          ...(bump ? { bumpPurchaseId: bumpPurchaseId!, bumpContentId: bump.item.id } : {}),
        },
      },
      { idempotencyKey: `checkout:${purchaseId}` },
    )
    .catch(refusedEmail);
  const row = deps.db.insert(purchases).values({
    id: purchaseId,
    contentId: item.id,
    creatorId: item.userId,
    buyerEmail,
    amountCents,
    currency: item.currency,
    status: "pending",
    paymentIntentId: intent.id,
    stripeCustomerId: customer,
    buyerKeyHash,
    discountCodeId: discount?.codeId ?? null,
    discountCents: discount?.discountCents ?? 0,
    recoveredFrom: abandoned?.id ?? null,
    bumpOffered,
    noReminder: input.noReminder === true,
  });
  const bumpRow = bump
    ? deps.db.insert(purchases).values({
        id: bumpPurchaseId!,
        contentId: bump.item.id,
        creatorId: item.userId,
        buyerEmail,
        amountCents: bump.priceCents,
        currency: item.currency,
        status: "pending",
        paymentIntentId: null,
        stripeCustomerId: customer,
        buyerKeyHash,
        bumpOf: purchaseId,
      })
    : null;
  // With an email, the checkout and its one reminder (due in an hour) are written together.
  const insert = row.toSQL();
  const bumpInsert = bumpRow?.toSQL();
  const now = Date.now();
  const remind = buyerEmail
    ? await reminder(deps.d1, { purchaseId, contentId: item.id, email: buyerEmail }, now, deps.reminderDelayMs)
    : null;
  await deps.d1.batch([
    deps.d1.prepare(insert.sql).bind(...insert.params),
    ...(bumpInsert ? [deps.d1.prepare(bumpInsert.sql).bind(...bumpInsert.params)] : []),
    ...(remind ? [remind.statement] : []),
    // Started again by the same browser: the code's use moves to this checkout, not a second one.
    ...(discount ? [carryOverHolds(deps.d1, { purchaseId, browser: buyerKeyHash, contentId: item.id })] : []),
  ]);
  if (remind) await dispatch(deps.d1, deps.emails, [remind.id], now);
  if (!intent.client_secret) throw new Error("PaymentIntent has no client secret");
  return {
    clientSecret: intent.client_secret,
    purchaseId,
    amountCents: amountCents + (bump?.priceCents ?? 0),
    discount: discount ? { code: discount.code, amountOffCents: discount.discountCents } : null,
    bump: bump ? { title: bump.item.title, amountCents: bump.priceCents } : null,
    recovered: abandoned ? { buyerEmail: abandoned.buyerEmail, notice } : null,
  };
}

const codeText = async (d1: D1Database, codeId: string) =>
  (await d1.prepare("select code from discount_codes where id = ?").bind(codeId).first<{ code: string }>())?.code ?? "";

// ---- fulfilment ----

export type FulfilOutcome = "fulfilled" | "already" | "not-succeeded" | "mismatch" | "unknown";

/**
 * The address the buyer gave for this payment (receipt_email), never the Customer's: a browser's
 * Customer is shared by everyone who buys on that computer (older ones carry the first buyer's
 * email), and the receipt holds a permanent access link.
 */
const emailOf = (intent: Stripe.PaymentIntent): string | null => intent.receipt_email?.toLowerCase() ?? null;

async function receiptJob(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  email: string,
  licenseKey?: string,
): Promise<EmailJob> {
  return {
    dedupeKey: `purchase-access:${purchase.id}`,
    to: email,
    template: "purchase-access",
    data: await receiptData(deps, purchase, licenseKey),
  };
}

/**
 * What the receipt (and its reminder) says: the item, the order, the access link, who the buyer paid
 * and its license key. `pendingKey`: the key fulfil's batch is about to write with this email (the
 * receipt exists only if that batch commits, so the key it names is the one written).
 */
export async function receiptData(
  deps: Pick<PurchaseDeps, "db" | "appUrl" | "accessSecret">,
  purchase: PurchaseRow,
  pendingKey?: string,
): Promise<PurchaseAccessMailData> {
  const [item, creator, license] = await Promise.all([
    deps.db
      .select({ title: content.title, issueLicenseKeys: content.issueLicenseKeys })
      .from(content)
      .where(eq(content.id, purchase.contentId))
      .get(),
    publicCreator(deps.db, purchase.creatorId),
    deps.db.select({ key: licenseKeys.key }).from(licenseKeys).where(eq(licenseKeys.purchaseId, purchase.id)).get(),
  ]);
  const licenseKey = license?.key ?? (item?.issueLicenseKeys ? pendingKey : undefined);
  return {
    title: item?.title ?? "your purchase",
    amountCents: purchase.amountCents,
    orderId: purchase.id,
    accessUrl: await accessUrlFor(deps, purchase),
    creator: mailCreator(deps.appUrl, creator),
    ...(licenseKey ? { licenseKey } : {}),
  };
}

/** The order bump's purchases paid (or to be paid) by a main purchase's PaymentIntent, in a stable order. */
const bumpsOf = (deps: Pick<PurchaseDeps, "db">, mainId: string) =>
  deps.db.select().from(purchases).where(eq(purchases.bumpOf, mainId)).orderBy(purchases.id);

/**
 * Marks the purchase of a succeeded PaymentIntent paid and writes its ledger rows, in one D1 batch.
 * Safe to call any number of times, concurrently, in any order with refunds.
 */
export async function fulfil(
  deps: PurchaseDeps,
  intent: Stripe.PaymentIntent,
  { notify = true } = {},
): Promise<FulfilOutcome> {
  const purchase = await deps.db.select().from(purchases).where(eq(purchases.paymentIntentId, intent.id)).get();
  if (!purchase) return "unknown";
  if (intent.status !== "succeeded") return "not-succeeded";
  // An order bump ticked at checkout is its own purchase, paid by this PaymentIntent too.
  const bumps = await bumpsOf(deps, purchase.id);
  const totalCents = purchase.amountCents + bumps.reduce((a, b) => a + b.amountCents, 0);
  if (
    intent.amount_received !== totalCents ||
    intent.amount !== totalCents ||
    intent.currency !== purchase.currency ||
    intent.metadata?.purchaseId !== purchase.id
  ) {
    console.error("payment intent does not match its purchase", intent.id, purchase.id);
    return "mismatch";
  }
  if (PAID_LIKE.includes(purchase.status)) return "already";

  // The fee follows the creator's plan when the buyer paid (a paid Pro period covering the
  // payment), not when the event happens to be handled.
  const plan = await planAt(deps.db, purchase.creatorId, new Date(intent.created * 1000));
  const email = purchase.buyerEmail ?? emailOf(intent);
  const now = Date.now();
  const ledger = saleRows(purchase, plan);
  const licenseKey = newLicenseKey();
  // Each add-on: paid in this batch only if the main purchase was (its paid_at is ours), with its
  // own ledger rows, license key and webhook; the emails are the order's (below).
  const added = await Promise.all(
    bumps.map(async (bump) => {
      const rows = saleRows(bump, plan);
      return { bump, rows, key: newLicenseKey(), hooks: await saleWebhooks(deps, bump, rows, email, now) };
    }),
  );
  const mails = notify
    ? await fulfilmentEmails(
        deps,
        purchase,
        ledger,
        email,
        now,
        licenseKey,
        added.map((a) => ({ purchase: a.bump, ledger: a.rows })),
      )
    : { statements: [], keys: [] };
  const hooks = await saleWebhooks(deps, purchase, ledger, email, now);
  // Stripe's fee on the charge, booked with the sale; if Stripe cannot say now, the charge's next settle books it.
  const fee = await processingFeeOf(deps.stripe, intent).catch(() => null);
  const results = await deps.d1.batch([
    deps.d1
      .prepare(
        "update purchases set status = 'paid', paid_at = ?, buyer_email = coalesce(buyer_email, ?) where id = ? and status = 'pending' returning id",
      )
      .bind(now, email, purchase.id),
    ...(bumps.length
      ? [
          deps.d1
            .prepare(
              `update purchases set status = 'paid', paid_at = ?1, buyer_email = coalesce(buyer_email, ?2)
               where bump_of = ?3 and status = 'pending' and exists (select 1 from purchases m where m.id = ?3 and m.status = 'paid' and m.paid_at = ?1)`,
            )
            .bind(now, email, purchase.id),
        ]
      : []),
    ...ledger.map((row) => insertLedgerRow(deps.d1, row, PAID_LIKE)),
    ...added.flatMap((a) => a.rows.map((row) => insertLedgerRow(deps.d1, row, PAID_LIKE))),
    ...(fee
      ? [insertLedgerRow(deps.d1, stripeFeeRow(purchase, "stripe_fee", fee.chargeId, fee.feeCents), PAID_LIKE)]
      : []),
    issueLicenseStatement(deps.d1, purchase.id, now, licenseKey),
    ...added.map((a) => issueLicenseStatement(deps.d1, a.bump.id, now, a.key)),
    ...mails.statements,
    ...hooks.statements,
    ...added.flatMap((a) => a.hooks.statements),
  ]);
  if ((results[0].results?.length ?? 0) === 0) return "already";
  if (mails.keys.length) await dispatch(deps.d1, deps.emails, mails.keys, now);
  await dispatchWebhooks(
    deps.d1,
    deps.webhooks,
    purchase.creatorId,
    [...hooks.keys, ...added.flatMap((a) => a.hooks.keys)],
    now,
  );
  return "fulfilled";
}

/** Stripe's processing fee on the PaymentIntent's charge, from its balance transaction (null when it has none yet). */
async function processingFeeOf(
  stripe: Stripe,
  intent: Stripe.PaymentIntent,
): Promise<{ chargeId: string; feeCents: number } | null> {
  const chargeId = idOf(intent.latest_charge);
  if (!chargeId) return null;
  const charge = await stripe.charges.retrieve(chargeId, { expand: ["balance_transaction"] });
  return feeOfCharge(charge);
}

function feeOfCharge(charge: Stripe.Charge): { chargeId: string; feeCents: number } | null {
  const bt = charge.balance_transaction;
  return bt && typeof bt === "object" && Number.isInteger(bt.fee) ? { chargeId: charge.id, feeCents: bt.fee } : null;
}

/** What a sale's webhook says (README "Webhooks"): the order, the item, the money in cents, the buyer. */
async function saleWebhookData(deps: PurchaseDeps, purchase: PurchaseRow, buyerEmail: string | null) {
  const item = await deps.db
    .select({ title: content.title })
    .from(content)
    .where(eq(content.id, purchase.contentId))
    .get();
  return {
    purchaseId: purchase.id,
    orderId: purchase.parentPurchaseId ?? purchase.bumpOf ?? purchase.id,
    itemId: purchase.contentId,
    itemTitle: item?.title ?? null,
    amountCents: purchase.amountCents,
    currency: purchase.currency,
    buyerEmail,
  };
}

/**
 * sale.completed for every sale fulfilled, and upsell.accepted too for an upsell's purchase (with its
 * funnel and step), written only if this batch marked the purchase paid; keyed by the purchase.
 */
async function saleWebhooks(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  ledger: LedgerRow[],
  email: string | null,
  now: number,
) {
  const paidHere = {
    sql: "exists (select 1 from purchases where id = ? and status = 'paid' and paid_at = ?)",
    binds: [purchase.id, now],
  };
  const netCents = ledger.filter((r) => r.account === "creator").reduce((a, r) => a + r.amountCents, 0);
  const data = {
    ...(await saleWebhookData(deps, purchase, email)),
    netCents,
    feeCents: purchase.amountCents - netCents,
  };
  const statements = webhookStatements(
    deps.d1,
    purchase.creatorId,
    "sale.completed",
    data,
    `sale:${purchase.id}`,
    now,
    paidHere,
  );
  const keys = [`sale:${purchase.id}`];
  if (purchase.parentPurchaseId) {
    const offer = await deps.d1
      .prepare("select funnel_id, step_id from funnel_offers where purchase_id = ?")
      .bind(purchase.id)
      .first<{ funnel_id: string; step_id: string }>();
    const upsell = {
      ...data,
      parentPurchaseId: purchase.parentPurchaseId,
      funnelId: offer?.funnel_id ?? null,
      stepId: offer?.step_id ?? null,
    };
    statements.push(
      ...webhookStatements(
        deps.d1,
        purchase.creatorId,
        "upsell.accepted",
        upsell,
        `upsell:${purchase.id}`,
        now,
        paidHere,
      ),
    );
    keys.push(`upsell:${purchase.id}`);
  }
  return { statements, keys };
}

/**
 * The emails a sale's fulfilment writes, as outbox inserts for its own D1 batch, each only if that
 * batch marked the purchase paid (its paid_at is ours): they exist exactly when the sale committed,
 * once per purchase (their dedupe keys).
 * - The buyer: an item in a live funnel starts the order email (./mail/order-email.ts), which waits
 *   for the funnel; an upsell's purchase is in that email while it waits, else gets its own "Added to
 *   your order"; a purchase with an order bump gets the order email at once (listing both; the
 *   bump's own purchase writes none); any other purchase gets its receipt at once.
 * - The creator: "You made a sale", with their net as this batch's ledger rows book it, unless they
 *   turned it off (creator_profiles.email_on_sale, read inside the batch).
 * Not called for a fulfilment that a refund or dispute forced (notify: false): that sale may be taken
 * back, and settleCharge writes the buyer's receipt if it ends paid.
 */
async function fulfilmentEmails(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  ledger: LedgerRow[],
  email: string | null,
  now: number,
  licenseKey: string,
  bumps: { purchase: PurchaseRow; ledger: LedgerRow[] }[],
): Promise<{ statements: D1PreparedStatement[]; keys: string[] }> {
  const paidHere = {
    sql: "exists (select 1 from purchases where id = ? and status = 'paid' and paid_at = ?)",
    binds: [purchase.id, now],
  };
  const both = (a: OutboxGuard, b: OutboxGuard): OutboxGuard => ({
    sql: `(${a.sql}) and (${b.sql})`,
    binds: [...a.binds, ...b.binds],
  });
  const out: { job: EmailJob; guard: OutboxGuard }[] = [];
  if (email) {
    if (purchase.parentPurchaseId) {
      const pending = orderEmailPending(purchase.parentPurchaseId);
      const data = await receiptData(deps, purchase, licenseKey);
      out.push({
        job: {
          dedupeKey: `order-added:${purchase.id}`,
          to: email,
          template: "order-added",
          data: { ...data, rootOrderId: purchase.parentPurchaseId },
        },
        guard: both(paidHere, { sql: `not (${pending.sql})`, binds: pending.binds }),
      });
    } else if (await liveFunnelFor(deps.db, purchase.contentId)) {
      out.push({ job: orderEmailJob(purchase.id, email, now), guard: paidHere });
    } else if (bumps.length) {
      // One receipt listing the item and its add-on, each with its own access link: the order email, sent now.
      out.push({ job: orderEmailJob(purchase.id, email, now, { waitForFunnel: false }), guard: paidHere });
    } else {
      out.push({ job: await receiptJob(deps, purchase, email, licenseKey), guard: paidHere });
    }
  }
  const sale = await saleEmailJob(deps, purchase, ledger, email, bumps);
  if (sale) {
    out.push({
      job: sale,
      guard: both(paidHere, {
        sql: "not exists (select 1 from creator_profiles where user_id = ? and email_on_sale = 0)",
        binds: [purchase.creatorId],
      }),
    });
  }
  return {
    statements: out.map((m) => outboxInsert(deps.d1, m.job, now, m.guard)),
    keys: out.map((m) => m.job.dedupeKey),
  };
}

/**
 * "You made a sale" to the creator's account address; the net is the creator's rows of `ledger`. An
 * order bump bought with it is in the same email ("Guide + Workbook (order bump)"), with both amounts.
 */
async function saleEmailJob(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  ledger: LedgerRow[],
  buyerEmail: string | null,
  bumps: { purchase: PurchaseRow; ledger: LedgerRow[] }[] = [],
): Promise<EmailJob | null> {
  const titleOf = async (p: PurchaseRow) =>
    (await deps.db.select({ title: content.title }).from(content).where(eq(content.id, p.contentId)).get())?.title;
  const [creator, title, bumpTitles] = await Promise.all([
    deps.db.select({ email: users.email }).from(users).where(eq(users.id, purchase.creatorId)).get(),
    titleOf(purchase),
    Promise.all(bumps.map((b) => titleOf(b.purchase))),
  ]);
  if (!creator?.email) return null;
  const creatorCents = (rows: LedgerRow[]) =>
    rows.filter((r) => r.account === "creator").reduce((a, r) => a + r.amountCents, 0);
  const netCents = creatorCents(ledger) + bumps.reduce((a, b) => a + creatorCents(b.ledger), 0);
  const amountCents = purchase.amountCents + bumps.reduce((a, b) => a + b.purchase.amountCents, 0);
  const titles = [title ?? "your item", ...bumpTitles.map((t) => `${t ?? "an item"} (order bump)`)].join(" + ");
  return {
    dedupeKey: `sale:${purchase.id}`,
    to: creator.email,
    template: "sale-made",
    data: {
      title: titles,
      amountCents,
      netCents,
      buyerEmail,
      orderId: purchase.id,
      salesUrl: new URL("/dashboard", deps.appUrl).href,
    },
  };
}

/** What an order email lists, read when it is sent: the root and its upsells that are paid now. */
export async function orderMailData(
  deps: Pick<PurchaseDeps, "db" | "appUrl" | "accessSecret">,
  rootPurchaseId: string,
): Promise<OrderMailData | null> {
  const rows = await deps.db
    .select({
      id: purchases.id,
      paymentIntentId: purchases.paymentIntentId,
      contentId: purchases.contentId,
      creatorId: purchases.creatorId,
      amountCents: purchases.amountCents,
      title: content.title,
      licenseKey: licenseKeys.key,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .leftJoin(licenseKeys, eq(licenseKeys.purchaseId, purchases.id))
    .where(
      and(
        or(
          eq(purchases.id, rootPurchaseId),
          eq(purchases.parentPurchaseId, rootPurchaseId),
          eq(purchases.bumpOf, rootPurchaseId),
        ),
        eq(purchases.status, "paid"),
      ),
    )
    .orderBy(sql`${purchases.id} <> ${rootPurchaseId}`, purchases.paidAt);
  if (!rows.length) return null;
  const items = await Promise.all(
    rows.map(async (r) => ({
      title: r.title,
      amountCents: r.amountCents,
      orderId: r.id,
      accessUrl: await accessUrlFor(deps, r),
      ...(r.licenseKey ? { licenseKey: r.licenseKey } : {}),
    })),
  );
  return {
    rootPurchaseId,
    items,
    totalCents: items.reduce((a, i) => a + i.amountCents, 0),
    creator: mailCreator(deps.appUrl, await publicCreator(deps.db, rows[0].creatorId)),
  };
}

/**
 * Asks Stripe about a purchase's PaymentIntent and fulfils it if it succeeded. With `bestEffort`
 * (the speed-up calls of the browser), a Stripe error leaves the purchase as it is: the webhook
 * fulfils it later. Webhook handling lets errors through, so Stripe redelivers.
 */
export async function syncWithStripe(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  { notify = true, bestEffort = false } = {},
): Promise<PurchaseRow> {
  if (purchase.status === "pending" && purchase.bumpOf) {
    // An order bump is paid with its main purchase's PaymentIntent: fulfilling that one pays both.
    const main = await deps.db.select().from(purchases).where(eq(purchases.id, purchase.bumpOf)).get();
    if (main) await syncWithStripe(deps, main, { notify, bestEffort });
    return (await deps.db.select().from(purchases).where(eq(purchases.id, purchase.id)).get()) ?? purchase;
  }
  if (purchase.status !== "pending" || !purchase.paymentIntentId) return purchase;
  let intent: Stripe.PaymentIntent;
  try {
    intent = await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId);
  } catch (err) {
    if (!bestEffort) throw err;
    console.warn("could not ask Stripe about", purchase.paymentIntentId, (err as Error).message);
    return purchase;
  }
  await noteIntentState(deps.d1, intent, purchase);
  await fulfil(deps, intent, { notify });
  return (await deps.db.select().from(purchases).where(eq(purchases.id, purchase.id)).get()) ?? purchase;
}

// ---- refunds and disputes: the transition table in ./purchase-states.ts ----

async function paidPurchaseForIntent(deps: PurchaseDeps, paymentIntentId: string | null): Promise<PurchaseRow | null> {
  if (!paymentIntentId) return null;
  const purchase = await deps.db.select().from(purchases).where(eq(purchases.paymentIntentId, paymentIntentId)).get();
  if (!purchase) return null;
  // A refund or dispute can arrive before payment_intent.succeeded: book the sale first (without
  // the access email: the purchase may be taken back), then settle it; settleCharge writes the
  // receipt if the purchase ends paid (a partial or pending refund, an inquiry, a won dispute).
  return syncWithStripe(deps, purchase, { notify: false });
}

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));

/** Every refund of a charge, all pages (a charge carries at most its first 10). */
async function allRefunds(stripe: Stripe, chargeId: string): Promise<Stripe.Refund[]> {
  const out: Stripe.Refund[] = [];
  for await (const refund of stripe.refunds.list({ charge: chargeId, limit: 100 })) out.push(refund);
  return out;
}

async function allDisputes(stripe: Stripe, chargeId: string): Promise<Stripe.Dispute[]> {
  const out: Stripe.Dispute[] = [];
  for await (const dispute of stripe.disputes.list({ charge: chargeId, limit: 100 })) out.push(dispute);
  return out;
}

export type SettleOutcome = { purchaseId: string; status: PurchaseState } | { invoiceCharge: true } | null;

/** The statements that settle one purchase of the charge from its own shares of the refunds and disputes. */
async function settlePurchase(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  refunds: Stripe.Refund[],
  disputes: Stripe.Dispute[],
  now: number,
) {
  const effects = effectsOf(purchase.amountCents, refunds, disputes);
  const reversal = (e: KeyedEffect) =>
    reverseSale(deps.d1, purchase.id, e.key, e.effect === "reverse_refund" ? "refund" : "dispute", e.cents);
  const restoring = effects.filter((e) => e.effect === "restore_refund" || e.effect === "restore_dispute");
  const reversing = effects.filter((e) => e.effect === "reverse_refund" || e.effect === "reverse_dispute");
  const reversals = reversing.map(reversal);
  const restores = restoring.map((e) =>
    restoreRows(
      deps.d1,
      purchase.id,
      e.effect === "restore_refund" ? `refund:${e.source}` : `dispute:${e.source}`,
      e.key,
    ),
  );
  // Retried after the restores: only reversals whose own object was not given back (a failed
  // refund's or won dispute's reversal booked after its restore would stay booked).
  const retries = reversing.filter((e) => !restoring.some((r) => r.source === e.source)).map(reversal);
  // The buyer hears of each refund that succeeded and was booked here, once per refund (by its id),
  // whoever made it (the creator's sales table or Stripe's dashboard).
  const refundMails = purchase.buyerEmail ? await refundJobs(deps, purchase, purchase.buyerEmail, refunds) : [];
  const hooks = await settleWebhooks(deps, purchase, refunds, disputes, now);
  return {
    reservations: chargeReservations(deps.d1, purchase.id, refunds, disputes, now),
    // Reversals, then restores, then the reversals again: one the cap left short (the sale was
    // already taken back) gets its turn once a restore made room, whichever came first.
    ledger: [...reversals, ...restores, ...(restores.length ? retries : [])],
    state: deps.d1
      .prepare(
        `update purchases set status = ${STATE_FROM_LEDGER_SQL},
           revoked_at = case when (${STATE_FROM_LEDGER_SQL}) = 'paid' then null else coalesce(revoked_at, ?2) end
         where id = ?1 and status in ('paid', 'refunded', 'disputed') returning status`,
      )
      .bind(purchase.id, now),
    after: [
      ...hooks.statements,
      ...refundMails.map(({ job, refundId }) =>
        outboxInsert(deps.d1, job, now, {
          sql: "exists (select 1 from ledger_entries where idempotency_key = ?)",
          binds: [`refund:${refundId}:creator`],
        }),
      ),
    ],
    mailKeys: refundMails.map((m) => m.job.dedupeKey),
    hookKeys: hooks.keys,
  };
}

/**
 * The buyer's receipt (the access links) of an order settled before its fulfilment wrote one: a
 * refund or dispute handled before payment_intent.succeeded books the sale without it (see
 * paidPurchaseForIntent), and a buyer who keeps access must still get the link, whatever the order
 * of events. Written only if a purchase of the order ends paid and no receipt or order email was
 * ever written or sent for it; an order with a bump gets the order email (listing what is paid).
 */
async function orderReceipt(
  deps: PurchaseDeps,
  main: PurchaseRow,
  withBump: boolean,
  now: number,
): Promise<{ job: EmailJob; statement: D1PreparedStatement } | null> {
  if (!main.buyerEmail) return null;
  const job = withBump
    ? orderEmailJob(main.id, main.buyerEmail, now, { waitForFunnel: false })
    : await receiptJob(deps, main, main.buyerEmail);
  const keys = [`purchase-access:${main.id}`, orderEmailKey(main.id)];
  const statement = outboxInsert(deps.d1, job, now, {
    sql: `exists (select 1 from purchases where (id = ? or bump_of = ?) and status = 'paid')
      and not exists (select 1 from outbox_emails where id in (?, ?)) and not exists (select 1 from emails_sent where dedupe_key in (?, ?))`,
    binds: [main.id, main.id, ...keys, ...keys],
  });
  return { job, statement };
}

/**
 * Brings a purchase's refunds and disputes in line with what Stripe says about its charge now: every
 * refund and dispute is re-read (whatever event named one of them), their keyed ledger effects are
 * written and the state is computed from the ledger, in one D1 batch. Safe to call any number of
 * times, in any order. A charge that paid an order bump too settles both purchases, each with its
 * own share of each refund and dispute (purchase-states.ts `attributeToOrder`). A charge that paid a
 * Pro invoice goes to ./subscriptions.ts instead.
 */
export async function settleCharge(deps: PurchaseDeps, chargeId: string): Promise<SettleOutcome> {
  const charge = await deps.stripe.charges.retrieve(chargeId, { expand: ["balance_transaction"] });
  const purchase = await paidPurchaseForIntent(deps, idOf(charge.payment_intent));
  const [refunds, disputes] = await Promise.all([
    allRefunds(deps.stripe, charge.id),
    allDisputes(deps.stripe, charge.id),
  ]);
  if (!purchase) {
    const settled = await settleProInvoiceCharge(deps, charge, refunds, disputes);
    return settled ? { invoiceCharge: true } : null;
  }
  if (!PAID_LIKE.includes(purchase.status)) return null;
  const bumps = (await bumpsOf(deps, purchase.id)).filter((b) => PAID_LIKE.includes(b.status));
  const order = [purchase, ...bumps];
  const shares = attributeToOrder(order, refunds, disputes);

  const now = Date.now();
  const parts = await Promise.all(
    order.map((p) => settlePurchase(deps, p, shares.get(p.id)!.refunds, shares.get(p.id)!.disputes, now)),
  );
  const receipt = await orderReceipt(deps, purchase, bumps.length > 0, now);
  // Stripe's word about each creator's refund request (forward only); reads nothing below.
  const requests = refundRequestStatements(deps.d1, refunds);
  const fee = feeOfCharge(charge);
  const ledger = [
    ...parts.flatMap((p) => p.ledger),
    ...(fee
      ? [insertLedgerRow(deps.d1, stripeFeeRow(purchase, "stripe_fee", fee.chargeId, fee.feeCents), PAID_LIKE)]
      : []),
    ...disputes.flatMap((d) =>
      (d.balance_transactions ?? [])
        .filter((t) => Number.isInteger(t.fee) && t.fee !== 0)
        .map((t) => insertLedgerRow(deps.d1, stripeFeeRow(purchase, "dispute_fee", t.id, t.fee), PAID_LIKE)),
    ),
  ];
  const results = await deps.d1.batch<{ status: PurchaseState }>([
    ...requests,
    ...ledger,
    ...parts.map((p) => p.state),
    ...parts.flatMap((p) => p.reservations),
    ...parts.flatMap((p) => p.after),
    ...(receipt ? [receipt.statement] : []),
  ]);
  const mailKeys = parts.flatMap((p) => p.mailKeys);
  if (mailKeys.length) await dispatch(deps.d1, deps.emails, mailKeys, now);
  await dispatchWebhooks(
    deps.d1,
    deps.webhooks,
    purchase.creatorId,
    parts.flatMap((p) => p.hookKeys),
    now,
  );
  const receiptWritten = !!receipt && (results[results.length - 1].meta.changes ?? 0) > 0;
  if (receiptWritten) await dispatch(deps.d1, deps.emails, [receipt.job.dedupeKey], now);
  // The main purchase's state: the first of the state updates, after the requests and the ledger.
  const [status] = results[requests.length + ledger.length].results ?? [];
  return status ? { purchaseId: purchase.id, status: status.status } : null;
}

/**
 * sale.refunded for each refund, sale.disputed for each chargeback, written only once this batch (or
 * an earlier one) booked its reversal (its `:creator` ledger row), once per refund or dispute id. A
 * refund that reversed nothing (the sale was already taken back) and an inquiry send none.
 */
async function settleWebhooks(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  refunds: Stripe.Refund[],
  disputes: Stripe.Dispute[],
  now: number,
) {
  const reversing = [...refunds.filter((r) => r.status === "succeeded" || r.status === "pending"), ...disputes];
  if (!reversing.length) return { statements: [] as D1PreparedStatement[], keys: [] as string[] };
  const base = await saleWebhookData(deps, purchase, purchase.buyerEmail);
  const booked = (key: string) => ({
    sql: "exists (select 1 from ledger_entries where idempotency_key = ?)",
    binds: [`${key}:creator`],
  });
  const refundedCents = refunds
    .filter((r) => r.status === "succeeded" || r.status === "pending")
    .reduce((a, r) => a + r.amount, 0);
  const out: { statements: D1PreparedStatement[]; keys: string[] } = { statements: [], keys: [] };
  for (const r of refunds.filter((r) => r.status === "succeeded" || r.status === "pending")) {
    const data = {
      ...base,
      refundId: stripeIdOf(r.id),
      refundStatus: r.status,
      refundedCents: r.amount,
      totalRefundedCents: refundedCents,
      accessEnded: refundedCents >= purchase.amountCents,
    };
    out.statements.push(
      ...webhookStatements(
        deps.d1,
        purchase.creatorId,
        "sale.refunded",
        data,
        `refund:${r.id}`,
        now,
        booked(`refund:${r.id}`),
      ),
    );
    out.keys.push(`refund:${r.id}`);
  }
  for (const d of disputes) {
    const data = {
      ...base,
      disputeId: stripeIdOf(d.id),
      disputedCents: d.amount,
      reason: d.reason,
      disputeStatus: d.status,
    };
    out.statements.push(
      ...webhookStatements(
        deps.d1,
        purchase.creatorId,
        "sale.disputed",
        data,
        `dispute:${d.id}`,
        now,
        booked(`dispute:${d.id}`),
      ),
    );
    out.keys.push(`dispute:${d.id}`);
  }
  return out;
}

/** The buyer's email for each succeeded refund of the charge (written only once its reversal is booked). */
async function refundJobs(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  email: string,
  refunds: Stripe.Refund[],
): Promise<{ job: EmailJob; refundId: string }[]> {
  const succeeded = refunds.filter((r) => r.status === "succeeded");
  if (!succeeded.length) return [];
  const item = await deps.db
    .select({ title: content.title })
    .from(content)
    .where(eq(content.id, purchase.contentId))
    .get();
  const totalCents = succeeded.reduce((a, r) => a + r.amount, 0);
  return succeeded.map((r) => ({
    refundId: r.id,
    job: {
      dedupeKey: `refund-issued:${r.id}`,
      to: email,
      template: "refund-issued" as const,
      data: {
        title: item?.title ?? "your purchase",
        amountCents: r.amount,
        orderId: purchase.id,
        accessEnded: totalCents >= purchase.amountCents,
      },
    },
  }));
}

/**
 * Any refund event, routed by its type: charge.refunded's object is the charge; refund.* and
 * charge.refund.updated's object is the refund. (Not by the id's prefix: a charge of a non-card
 * payment method is `py_…`.)
 */
export async function handleRefundEvent(deps: PurchaseDeps, event: { type: string; id: string }): Promise<void> {
  const chargeId =
    event.type === "charge.refunded" ? event.id : idOf((await deps.stripe.refunds.retrieve(event.id)).charge);
  if (chargeId) await settleCharge(deps, chargeId);
}

/** Any charge.dispute.* event. */
export async function handleDisputeEvent(deps: PurchaseDeps, disputeId: string): Promise<void> {
  const dispute = await deps.stripe.disputes.retrieve(disputeId);
  const chargeId = idOf(dispute.charge);
  if (chargeId) await settleCharge(deps, chargeId);
}

// ---- access ----

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
function browserPurchasesOf(deps: PurchaseDeps, keyHash: string, contentId: string) {
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

export async function verification(deps: PurchaseDeps, purchase: PurchaseRow): Promise<PurchaseVerification> {
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
      buyerEmail: purchase.buyerEmail,
      licenseKey: license?.key ?? null,
    },
    accessUrl: await accessUrlFor(deps, purchase),
    addOns: await addOnsOf(deps, purchase),
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
