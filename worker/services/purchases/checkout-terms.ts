// Changing an open checkout's terms (its discount code, its order bump) in place: the purchase rows
// are rewritten from the server's prices, then the same PaymentIntent's amount is set to match, so
// the card the buyer typed into the Payment Element stays. Behaviour and why it holds under
// concurrency: docs/checkout-and-codes.md ("Changing a checkout's terms").
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { BUMP_MESSAGES } from "../../../shared/bumps";
import { CHECKOUT_TERMS_MESSAGES } from "../../../shared/paywall";
import { PAYWALL_TEXT } from "../../../shared/paywall";
import { content, purchases } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { newId, sha256Hex } from "../../lib/ids";
import { reserveUse } from "../discounts";
import { bumpForCheckout } from "../funnels/bumps";
import { isUnknownObject } from "../stripe";
import { browserPurchasesOf } from "./buyer-access";
import type { PurchaseDeps, PurchaseRow } from "./deps";
import { type HoldRow, holdStatement, insertAddOn, setMainTerms, writeChargedTerms } from "./charged-terms";
import { bumpsOf } from "./fulfil";
import { parseVatId, type TaxEvidence, type TaxLine, type VatId } from "../../../shared/tax";
import {
  preTaxCents,
  type PurchaseTaxRow,
  purchaseTaxRows,
  taxLineOfRows,
  taxRowStatements,
  taxStatements,
  vatIdOf,
} from "../tax/calculate";
import { termsTax } from "../tax/terms-tax";

/** Stripe changes a PaymentIntent's amount only in these states (its `payment_intent_unexpected_state` otherwise). */
const AMOUNT_CHANGEABLE: Stripe.PaymentIntent.Status[] = [
  "requires_payment_method",
  "requires_confirmation",
  "requires_action",
];

/** What a checkout charges for, as its rows say now. */
type Terms = {
  main: PurchaseRow;
  bumps: PurchaseRow[];
  code: string | null;
  /** The checkout's hold on its code (one at most: discount_redemptions.purchase_id is unique). */
  hold: HoldRow | null;
  totalCents: number;
  /** The purchase_taxes rows of the main purchase and its add-on (none where no tax was calculated). */
  taxes: PurchaseTaxRow[];
};

type ContentRow = typeof content.$inferSelect;

export type CheckoutTerms = {
  amountCents: number;
  discount: { code: string; amountOffCents: number } | null;
  bump: { title: string; amountCents: number } | null;
  tax: TaxLine;
};

async function termsOf(deps: PurchaseDeps, purchaseId: string): Promise<Terms> {
  const main = await deps.db.select().from(purchases).where(eq(purchases.id, purchaseId)).get();
  if (!main) throw notFound("No open checkout");
  const bumps = await bumpsOf(deps, main.id);
  const code = main.discountCodeId
    ? ((
        await deps.d1
          .prepare("select code from discount_codes where id = ?")
          .bind(main.discountCodeId)
          .first<{ code: string }>()
      )?.code ?? null)
    : null;
  const hold = await deps.d1
    .prepare("select id, code_id, buyer, browser, created_at from discount_redemptions where purchase_id = ?")
    .bind(main.id)
    .first<HoldRow>();
  const taxes = await purchaseTaxRows(deps.d1, [main.id, ...bumps.map((b) => b.id)]);
  return {
    main,
    bumps,
    code,
    hold,
    totalCents: main.amountCents + bumps.reduce((a, b) => a + b.amountCents, 0),
    taxes,
  };
}

const calculationOf = (t: Terms) => t.taxes.find((x) => x.purchase_id === t.main.id)?.calculation_id ?? null;
const taxOf = (t: Terms, id: string) => t.taxes.find((x) => x.purchase_id === id);

const sameTerms = (a: Terms, b: Terms) =>
  a.totalCents === b.totalCents &&
  calculationOf(a) === calculationOf(b) &&
  a.main.discountCodeId === b.main.discountCodeId &&
  a.bumps.map((x) => x.id).join() === b.bumps.map((x) => x.id).join();

const isUnexpectedState = (err: unknown) =>
  (err as { code?: string } | null)?.code === "payment_intent_unexpected_state";

/**
 * Sets the PaymentIntent to what the rows say now, then reads the rows again: if another change
 * landed meanwhile (its update may have reached Stripe before this one), it goes round once more.
 * The last update Stripe applies was sent by a caller who then saw the rows unchanged, so Stripe's
 * amount ends equal to the rows'. An amount update is a plain set, so sending it again is harmless.
 */
async function pushToStripe(
  deps: PurchaseDeps,
  purchaseId: string,
  itemTitle: string,
  hadCalculation: boolean,
  vatId: VatId | null,
): Promise<Terms> {
  for (let round = 0; round < 4; round++) {
    const terms = await termsOf(deps, purchaseId);
    if (terms.main.status !== "pending" || !terms.main.paymentIntentId)
      throw new ApiError(409, CHECKOUT_TERMS_MESSAGES.closed);
    const bump = terms.bumps[0];
    const bumpTitle = bump
      ? (await deps.db.select({ title: content.title }).from(content).where(eq(content.id, bump.contentId)).get())
          ?.title
      : undefined;
    await deps.stripe.paymentIntents.update(
      terms.main.paymentIntentId,
      {
        amount: terms.totalCents,
        // The calculation the amount came from, so Stripe records its tax when the payment succeeds
        // ("" detaches one the PaymentIntent carried when the buyer can no longer be placed).
        ...(calculationOf(terms) || hadCalculation
          ? { hooks: { inputs: { tax: { calculation: calculationOf(terms) ?? "" } } } }
          : {}),
        description: (bumpTitle ? `${itemTitle} + ${bumpTitle}` : itemTitle).slice(0, 200),
        // An empty value removes a key (Stripe's metadata rule).
        metadata: {
          discountCode: terms.code ?? "",
          vatId: vatId?.value ?? "",
          bumpPurchaseId: bump?.id ?? "",
          bumpContentId: bump?.contentId ?? "",
          // The exact cents charged for each part: fulfilment's repair writes them back as they are.
          ...chargedCents(terms),
        },
      },
      { idempotencyKey: `checkout-terms:${purchaseId}:${newId()}` },
    );
    if (sameTerms(terms, await termsOf(deps, purchaseId))) return terms;
  }
  throw new ApiError(409, CHECKOUT_TERMS_MESSAGES.changed);
}

/** The cents a PaymentIntent is set to charge, part by part, as metadata (strings; "" removes a key). */
const chargedCents = (terms: Terms) => ({
  mainCents: String(terms.main.amountCents),
  discountCents: String(terms.main.discountCents),
  discountCodeId: terms.main.discountCodeId ?? "",
  bumpCents: terms.bumps[0] ? String(terms.bumps[0].amountCents) : "",
  // Of which tax, part by part (docs/tax.md): written back with the cents.
  mainTaxCents: String(terms.main.taxCents),
  bumpTaxCents: terms.bumps[0] ? String(terms.bumps[0].taxCents) : "",
  taxCalculation: calculationOf(terms) ?? "",
});

/**
 * The rows as they were: written back when Stripe refuses the new amount (it keeps the old one). The
 * new code's hold goes and the old one comes back (the checkout's one hold, as it was).
 */
function restore(deps: PurchaseDeps, before: Terms, after: Terms): D1PreparedStatement[] {
  const d1 = deps.d1;
  const hold = before.hold;
  return [
    hold
      ? holdStatement(d1, before.main.id, hold)
      : d1
          .prepare(
            "delete from discount_redemptions where purchase_id = ? and exists (select 1 from purchases where id = ? and status = 'pending')",
          )
          .bind(before.main.id, before.main.id),
    setMainTerms(d1, before.main.id, before.main),
    ...after.bumps
      .filter((b) => !before.bumps.some((x) => x.id === b.id))
      .flatMap((b) => [
        d1
          .prepare(
            "delete from purchase_taxes where purchase_id = ?1 and exists (select 1 from purchases where id = ?1 and status = 'pending')",
          )
          .bind(b.id),
        d1.prepare("delete from purchases where id = ? and status = 'pending'").bind(b.id),
      ]),
    ...before.bumps
      .filter((b) => !after.bumps.some((x) => x.id === b.id))
      .map((b) => insertAddOn(d1, { ...b, bumpOf: b.bumpOf!, createdAt: b.createdAt.getTime() })),
    // Each row's gross and tax as they were (after the add-on it may insert back).
    ...taxRowStatements(d1, [before.main, ...before.bumps], before.taxes),
  ];
}

/**
 * Rewrites the rows of checkout `before` to the code `discountCode` (null: none) and the bump (ticked
 * or not), at the server's prices, in one batch; the PaymentIntent is not touched. Used by a change of
 * terms and by fulfilment's repair (`applyIntentTerms`).
 */
async function writeTerms(
  deps: PurchaseDeps,
  input: {
    item: ContentRow;
    before: Terms;
    browser: string;
    discountCode: string | null;
    bump: boolean;
    bumpId?: string;
    /** The VAT number now (undefined: the checkout's own), and where the edge says the buyer is. */
    vatId?: VatId | null;
    edge?: TaxEvidence["edge"];
  },
): Promise<void> {
  const { before, item } = input;
  // Read with the rest of `before`: a row read earlier may predate a concurrent change of the same code.
  const main = before.main;
  const mainTax = taxOf(before, main.id);
  // The item's own amount before any code and tax: its price, the buyer's pay-what-you-want amount,
  // or a reminder's amount; it never changes while the checkout is open.
  const mainPreTax = preTaxCents(main.amountCents, mainTax);
  const listCents = mainPreTax + main.discountCents;
  const addBump = input.bump && before.bumps.length === 0 ? await bumpForCheckout(deps.db, item) : null;
  const wanted = input.discountCode?.trim().toUpperCase() || null;
  let code: { codeId: string; priceCents: number; discountCents: number } | null = null;
  // The hold the batch leaves on the checkout: the one it had for this code, or the one reserved now.
  let hold: HoldRow | null = null;
  if (wanted && wanted === before.code && main.discountCodeId) {
    code = { codeId: main.discountCodeId, priceCents: mainPreTax, discountCents: main.discountCents };
    hold = before.hold?.code_id === main.discountCodeId ? before.hold : null;
  } else if (wanted) {
    const buyer = main.buyerEmail?.toLowerCase() ?? `browser:${input.browser}`;
    // The checkout's one hold, now on this code (reserveUse writes it in place of the old one).
    code = await reserveUse(deps.d1, {
      item,
      text: wanted,
      listCents,
      buyer,
      browser: input.browser,
      purchaseId: main.id,
    });
    hold = { id: newId(), code_id: code.codeId, buyer, browser: input.browser, created_at: Date.now() };
  }

  // The tax of the new terms, at the place the checkout was taxed at (the billing address once a
  // confirm saw it), else where the edge places the buyer now.
  const bumpId = addBump ? (input.bumpId ?? newId()) : null;
  const keptBump = input.bump ? before.bumps[0] : undefined;
  const items = [
    { purchaseId: main.id, amountCents: code?.priceCents ?? listCents },
    ...(keptBump
      ? [{ purchaseId: keptBump.id, amountCents: preTaxCents(keptBump.amountCents, taxOf(before, keptBump.id)) }]
      : []),
    ...(addBump ? [{ purchaseId: bumpId!, amountCents: addBump.priceCents }] : []),
  ];
  const d1 = deps.d1;
  const { tax, evidence } = await termsTax(deps, {
    item,
    stored: mainTax,
    edge: input.edge,
    vatId: input.vatId,
    items,
    key: main.id,
  }).catch(async (err) => {
    // Refused (a VAT number Stripe refuses, Stripe Tax down): the hold reserved above goes back as it was.
    if (hold && hold !== before.hold)
      await (before.hold
        ? holdStatement(d1, main.id, before.hold)
        : d1
            .prepare("delete from discount_redemptions where purchase_id = ? and code_id = ?")
            .bind(main.id, hold.code_id)
      ).run();
    throw err;
  });

  await d1.batch([
    setMainTerms(d1, main.id, {
      amountCents: code?.priceCents ?? listCents,
      discountCodeId: code?.codeId ?? null,
      discountCents: code?.discountCents ?? 0,
    }),
    // One hold per checkout, on the code its row names: a concurrent change's batch may have ended
    // the hold this call reserved, so the batch that writes the row writes its hold too.
    hold
      ? holdStatement(d1, main.id, hold)
      : d1
          .prepare(
            "delete from discount_redemptions where purchase_id = ?1 and (?2 is null or code_id != ?2) and exists (select 1 from purchases where id = ?1 and status = 'pending')",
          )
          .bind(main.id, code?.codeId ?? null),
    ...(addBump
      ? [
          insertAddOn(d1, {
            ...main,
            id: bumpId!,
            contentId: addBump.item.id,
            amountCents: addBump.priceCents,
            buyerKeyHash: input.browser,
            bumpOf: main.id,
            createdAt: Date.now(),
          }),
        ]
      : []),
    ...(input.bump
      ? []
      : [
          d1
            .prepare(
              "delete from purchase_taxes where purchase_id in (select id from purchases where bump_of = ? and status = 'pending')",
            )
            .bind(main.id),
          d1.prepare("delete from purchases where bump_of = ? and status = 'pending'").bind(main.id),
        ]),
    // Each purchase's gross and tax, and its purchase_taxes row (after the add-on it may insert).
    ...taxStatements(d1, tax, evidence),
  ]);
}

/**
 * Applies `discountCode` (null: none) and the bump (ticked or not) to the open checkout of
 * `paymentIntentId` started by this browser, at the server's prices, and sets its PaymentIntent's
 * amount to match. The same terms sent again change nothing.
 */
export async function changeCheckoutTerms(
  deps: PurchaseDeps,
  input: {
    paymentIntentId: string;
    buyerKey: string;
    discountCode: string | null;
    bump: boolean;
    /** Undefined: the checkout's own VAT number stays. */
    vatId?: VatId | null;
    edge?: TaxEvidence["edge"];
  },
): Promise<CheckoutTerms> {
  const browser = await sha256Hex(input.buyerKey);
  const main = await deps.db.select().from(purchases).where(eq(purchases.paymentIntentId, input.paymentIntentId)).get();
  // Only the browser that started the checkout may change it; to anyone else it does not exist.
  if (!main || main.buyerKeyHash !== browser || main.bumpOf) throw notFound("No open checkout");
  if (main.status !== "pending" || main.processingSince) throw new ApiError(409, CHECKOUT_TERMS_MESSAGES.closed);
  const item = await deps.db.select().from(content).where(eq(content.id, main.contentId)).get();
  if (!item || item.deletedAt) throw notFound("Content Not Found");
  if (item.unpublishedAt) throw new ApiError(409, PAYWALL_TEXT.unpublished);
  // Stripe's word on whether the amount may still change (a payment may be under way from another tab).
  const intent = await deps.stripe.paymentIntents.retrieve(input.paymentIntentId).catch((err) => {
    throw isUnknownObject(err) ? notFound("No open checkout") : new ApiError(502, CHECKOUT_TERMS_MESSAGES.stripeDown);
  });
  if (!AMOUNT_CHANGEABLE.includes(intent.status)) throw new ApiError(409, CHECKOUT_TERMS_MESSAGES.closed);

  const before = await termsOf(deps, main.id);
  // The VAT number now: the one given, else the checkout's (its row's; a checkout never placed has none, its PaymentIntent keeps it).
  const vatId =
    input.vatId !== undefined
      ? input.vatId
      : (vatIdOf(taxOf(before, main.id)) ?? parseVatId(intent.metadata?.vatId ?? ""));
  const addBump = input.bump && before.bumps.length === 0 ? await bumpForCheckout(deps.db, item) : null;
  if (addBump && (await browserPurchasesOf(deps, browser, addBump.item.id)).some((p) => p.status === "paid"))
    throw new ApiError(409, BUMP_MESSAGES.owned(addBump.item.title));
  await writeTerms(deps, {
    item,
    before,
    browser,
    discountCode: input.discountCode,
    bump: input.bump,
    vatId,
    edge: input.edge,
  });

  let terms: Terms;
  try {
    terms = await pushToStripe(deps, main.id, item.title, calculationOf(before) !== null, vatId);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    // Stripe kept the old amount (the payment began meanwhile, or the update did not reach it): the
    // rows go back to agree with Stripe's word, read again.
    const now = await deps.stripe.paymentIntents.retrieve(input.paymentIntentId).catch(() => null);
    const rows = await termsOf(deps, main.id);
    if (now && now.amount === before.totalCents && !sameTerms(rows, before))
      await deps.d1.batch(restore(deps, before, rows));
    if (isUnexpectedState(err)) throw new ApiError(409, CHECKOUT_TERMS_MESSAGES.closed);
    console.error("checkout terms: Stripe refused or could not be reached", input.paymentIntentId, err);
    throw new ApiError(502, CHECKOUT_TERMS_MESSAGES.stripeDown);
  }
  const bumpRow = terms.bumps[0];
  const bumpItem = bumpRow
    ? await deps.db.select({ title: content.title }).from(content).where(eq(content.id, bumpRow.contentId)).get()
    : null;
  return {
    amountCents: terms.totalCents,
    discount: terms.code ? { code: terms.code, amountOffCents: terms.main.discountCents } : null,
    // The add-on's price before tax (its tax is in the order's tax line).
    bump: bumpRow
      ? { title: bumpItem?.title ?? "", amountCents: preTaxCents(bumpRow.amountCents, taxOf(terms, bumpRow.id)) }
      : null,
    tax: taxLineOfRows([terms.main, ...terms.bumps], terms.taxes),
  };
}

/**
 * Fulfilment's repair for rows left apart from their PaymentIntent for good (a change that gave up
 * after its rounds, or whose request ended between the rows and Stripe): the PaymentIntent is what
 * was charged, so when its metadata names other terms (code, add-on) than the rows, the rows are
 * rewritten to those terms at the server's prices, as a change would. Answers whether it wrote;
 * fulfilment then checks the amount again as always.
 */
export async function applyIntentTerms(deps: PurchaseDeps, intent: Stripe.PaymentIntent): Promise<boolean> {
  const main = await deps.db.select().from(purchases).where(eq(purchases.paymentIntentId, intent.id)).get();
  if (main?.status !== "pending" || main.bumpOf || intent.metadata?.purchaseId !== main.id) return false;
  // A change of terms wrote the exact cents it charged: they are written back as they are, whatever
  // today's prices or the code's limits say (the buyer paid them; the code was held when they did).
  if (intent.metadata.mainCents) return writeChargedTerms(deps, main, intent.metadata);
  const before = await termsOf(deps, main.id);
  const code = intent.metadata.discountCode || null;
  const bump = Boolean(intent.metadata.bumpContentId);
  if (code === before.code && bump === before.bumps.length > 0) return false;
  const item = await deps.db.select().from(content).where(eq(content.id, main.contentId)).get();
  if (!item) return false;
  console.error("checkout rows differ from the terms the PaymentIntent charged; rewriting them", intent.id, main.id);
  await writeTerms(deps, {
    item,
    before,
    browser: main.buyerKeyHash ?? "",
    discountCode: code,
    bump,
    bumpId: intent.metadata.bumpPurchaseId || undefined,
  });
  return true;
}
