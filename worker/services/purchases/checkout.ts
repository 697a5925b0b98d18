// A checkout: a pending purchase (and its order bump's) and the PaymentIntent that pays it, priced
// from the server's record, with the code's use held and the checkout reminder written in one batch.
// Behaviour: docs/payments.md, docs/checkout-and-codes.md.
import { formatCentsPlain } from "../../../shared/money";
import { eq } from "drizzle-orm";
import { MAX_PRICE_CENTS } from "../../../shared/pricing";
import { dollarsToCents } from "../../../shared/content";
import { BUMP_MESSAGES } from "../../../shared/bumps";
import { codeDropped } from "../../../shared/discounts";
import { PAYWALL_TEXT } from "../../../shared/paywall";
import type { TaxEvidence, TaxLine, VatId } from "../../../shared/tax";
import { buyerCustomers, content, purchases, users } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { newId, sha256Hex } from "../../lib/ids";
import { bumpForCheckout, publicBump } from "../funnels/bumps";
import { carryOverHolds, releaseHold, reserveUse } from "../discounts";
import { liveFunnelFor } from "../funnels/funnels";
import { dispatch } from "../mail/email-outbox";
import { CHECKOUT_PAYMENT_METHODS, isInvalidEmail } from "../stripe";
import { browserPurchasesOf } from "./buyer-access";
import type { PurchaseDeps } from "./deps";
import { abandonedCheckout, RECOVER_LINK_OTHER_EMAIL, reminder } from "./recovery";
import {
  calculateTax,
  type OrderTax,
  preTaxCents,
  purchaseTaxRows,
  TaxUnavailable,
  taxLineOf,
  taxStatements,
} from "../tax/calculate";
import { edgePlace } from "../tax/evidence";

const BUYER_EMAIL_REFUSED =
  "buyerEmail: this email address was not accepted for the receipt; please check it or use another";

/** The amount to charge, from the server's own record: a client can never lower a price. */
function chargeAmountCents(
  item: { pricingModel: string; priceCents: number; minimumPriceCents: number | null },
  customAmount: unknown,
): number {
  if (item.pricingModel !== "pay_what_you_want") return item.priceCents;
  const minimum = item.minimumPriceCents ?? item.priceCents;
  if (customAmount === undefined || customAmount === null || customAmount === "") return minimum;
  const cents = dollarsToCents(typeof customAmount === "number" ? String(customAmount) : String(customAmount));
  if (!Number.isFinite(cents)) throw new ApiError(400, "Amount must be a number with at most two decimals");
  if (cents < minimum) throw new ApiError(400, `Minimum amount is ${formatCentsPlain(minimum)}`);
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
    /** Where the edge says the buyer is (docs/tax.md), and a business buyer's VAT number. */
    edge?: TaxEvidence["edge"];
    vatId?: VatId | null;
  },
): Promise<{
  clientSecret: string;
  purchaseId: string;
  amountCents: number;
  discount: { code: string; amountOffCents: number } | null;
  bump: { title: string; amountCents: number } | null;
  /** A reminder's checkout: the address it is bound to, and why its code no longer applies (if so). */
  recovered: { buyerEmail: string; notice: string | null } | null;
  tax: TaxLine;
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
  // A reminder's amount is what its checkout charged before tax: tax is worked out afresh here.
  const listCents = abandoned
    ? preTaxCents(abandoned.amountCents, (await purchaseTaxRows(deps.d1, [abandoned.id]))[0]) + abandoned.discountCents
    : chargeAmountCents(item, input.customAmount);
  const buyerEmail = abandoned?.buyerEmail ?? input.buyerEmail ?? null;
  // A code: its price, computed here, and one use held for this checkout (../discounts.ts). A
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
  const { tax, evidence } = await estimateTax(deps, {
    item,
    edge: input.edge ?? { country: null, region: null, postalCode: null },
    vatId: input.vatId ?? null,
    items: [
      { purchaseId, amountCents },
      ...(bump ? [{ purchaseId: bumpPurchaseId!, amountCents: bump.priceCents }] : []),
    ],
  }).catch(refused);
  const grossOf = (id: string) => tax.lines.find((l) => l.purchaseId === id)!;
  const intent = await deps.stripe.paymentIntents
    .create(
      {
        amount: tax.totalCents,
        currency: item.currency,
        // Stripe records the tax transaction of this calculation when the payment succeeds.
        ...(tax.calculationId ? { hooks: { inputs: { tax: { calculation: tax.calculationId } } } } : {}),
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
          // Kept here too: a checkout the edge cannot place has no purchase_taxes row to carry it (docs/tax.md).
          ...(input.vatId ? { vatId: input.vatId.value } : {}),
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
    amountCents: grossOf(purchaseId).amountCents,
    taxCents: grossOf(purchaseId).taxCents,
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
        amountCents: grossOf(bumpPurchaseId!).amountCents,
        taxCents: grossOf(bumpPurchaseId!).taxCents,
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
    ...taxStatements(deps.d1, tax, evidence),
    ...(remind ? [remind.statement] : []),
    // Started again by the same browser: the code's use moves to this checkout, not a second one.
    ...(discount ? [carryOverHolds(deps.d1, { purchaseId, browser: buyerKeyHash, contentId: item.id })] : []),
  ]);
  if (remind) await dispatch(deps.d1, deps.emails, [remind.id], now);
  if (!intent.client_secret) throw new Error("PaymentIntent has no client secret");
  return {
    clientSecret: intent.client_secret,
    purchaseId,
    amountCents: tax.totalCents,
    discount: discount ? { code: discount.code, amountOffCents: discount.discountCents } : null,
    // The add-on's price as offered (its tax is in the order's tax line).
    bump: bump ? { title: bump.item.title, amountCents: bump.priceCents } : null,
    recovered: abandoned ? { buyerEmail: abandoned.buyerEmail, notice } : null,
    tax: taxLineOf(tax),
  };
}

/** The creator's choice of tax-inclusive prices (docs/tax.md). */
export const taxBehaviorOf = async (deps: PurchaseDeps, creatorId: string) =>
  (await deps.db.select({ b: users.taxBehavior }).from(users).where(eq(users.id, creatorId)).get())?.b ?? "auto";

/**
 * The first estimate, on the edge's evidence. A buyer the edge cannot place (no country, or a US
 * address without a postal code) gets none, and so does a checkout started while Stripe Tax is down:
 * the card's billing address decides at confirm, where a calculation that cannot be made charges nothing.
 */
async function estimateTax(
  deps: PurchaseDeps,
  input: {
    item: typeof content.$inferSelect;
    edge: TaxEvidence["edge"];
    vatId: VatId | null;
    items: { purchaseId: string; amountCents: number }[];
  },
): Promise<{ tax: OrderTax; evidence: TaxEvidence }> {
  const evidence: TaxEvidence = { edge: input.edge, billing: null, cardCountry: null, decidedBy: "edge" };
  const order = {
    currency: input.item.currency,
    behavior: await taxBehaviorOf(deps, input.item.userId),
    place: edgePlace(input.edge),
    vatId: input.vatId,
    items: input.items,
    key: input.items[0].purchaseId,
  };
  try {
    return { tax: await calculateTax(deps.stripe, order), evidence };
  } catch (err) {
    if (!(err instanceof TaxUnavailable)) throw err;
    return { tax: await calculateTax(deps.stripe, { ...order, place: null }), evidence };
  }
}

const codeText = async (d1: D1Database, codeId: string) =>
  (await d1.prepare("select code from discount_codes where id = ?").bind(codeId).first<{ code: string }>())?.code ?? "";
