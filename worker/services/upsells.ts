// One-click upsells after a purchase: the next offer of the item's live funnel, accepting it (an
// off-session charge of the very card that paid the purchase, for an amount the server decides),
// declining it, and the order that results.
//
// Who may act: only the browser that paid the first purchase (its aw_buyer key, matched to the
// purchase's buyer_key_hash) and only for UPSELL_WINDOW_MINUTES after it was paid. The permanent
// access link is not enough: it is forwarded and mistyped, and the card is not its holder's.
//
// Each (purchase, step) has one funnel_offers row, moved only by OFFER_TRANSITIONS, each move one
// conditional update (`where status = ?`), so two requests at once cannot both win:
//   1. Offer: the row is written as 'shown' when the step is shown, with the terms shown (the price;
//      for a tip step also its minimum and ceiling). Showing it again (a reload) rewrites them while
//      the offer is still 'shown', so the row always holds what the buyer last saw.
//   2. Accept charges only under the terms shown: a fixed price that differs now, a tip amount
//      outside what was shown (400) or outside what holds now (409), or an offer never shown, is
//      refused before anything is claimed or charged (409 OFFER_CHANGED_MESSAGE: the page shows the
//      offer again). Then shown → accepting, conditional on those very terms, claims the row, records
//      the amount and names the upsell's own purchase id. Then, each
//      step safe to repeat with the same keys: create the PaymentIntent (customer + the root's
//      payment_method, key `upsell:{purchaseId}`; Stripe leaves it in requires_confirmation), write
//      the pending purchase (parent and step recorded), confirm it off-session (key
//      `upsell-confirm:{purchaseId}`), and settle on what Stripe says: succeeded → `fulfil` (ledger,
//      access, the buyer's email: listed in the order email, or "Added to your order" once that went) and paid; declined → the PaymentIntent is cancelled, then failed; the bank
//      wants the cardholder → the page confirms on-session and calls complete.
//   3. Decline: shown → declined, or failed → declined (skip after a declined card). While an accept
//      holds the claim, the decline voids it: before the purchase exists, one statement declines the
//      claim (the accept sees that and cancels what it made); after, it cancels the PaymentIntent and
//      Stripe decides: a cancel that Stripe took declines the offer, a PaymentIntent that already
//      succeeded makes it paid and the decline a 409. Either way one outcome, never both.
// A Stripe invalid-request answer to confirm or cancel (the other request got there first) is
// resolved by reading the PaymentIntent again, never a 500.
import { and, asc, eq, inArray } from "drizzle-orm";
import Stripe from "stripe";
import { MIN_PRICE_CENTS } from "../../shared/pricing";
import {
  UPSELL_WINDOW_MINUTES,
  OFFER_CHANGED_MESSAGE,
  type AcceptResult,
  type OrderSummary,
  type UpsellOffer,
} from "../../shared/funnels";
import { dollarsToCents } from "../../shared/content";
import type { PurchaseVerification } from "../../shared/payments";
import { content, funnelOffers, funnelSteps, purchases } from "../db/schema";
import { applyVariant } from "./ab-tests";
import { ApiError, notFound } from "../lib/errors";
import { newId, sha256Hex } from "../lib/ids";
import { liveFunnelFor, ownedFunnel, stepAmounts } from "./funnels";
import { releaseOrderEmail } from "./mail/order-email";
import {
  accessUrlFor,
  fulfil,
  purchaseIdFromToken,
  syncWithStripe,
  verification,
  type PurchaseDeps,
} from "./purchases";
import { CHECKOUT_PAYMENT_METHODS } from "./stripe";

type PurchaseRow = typeof purchases.$inferSelect;
type StepRow = typeof funnelSteps.$inferSelect;
type ItemRow = typeof content.$inferSelect;
type OfferRow = typeof funnelOffers.$inferSelect;
type OfferStatus = OfferRow["status"];

const PAID_LIKE = ["paid", "refunded", "disputed"];
const DECLINED = "This offer was declined";
const ALREADY_PAID = "This offer was already paid";
const NOT_AVAILABLE = "This offer is not available";
const CARD_GONE = "The card you paid with can no longer be charged.";

/**
 * The offer's state machine, the only moves there are. 'shown' is the offered state (the column's
 * default since migration 0003). A failed offer is not retried: the card that paid has just
 * declined it, and the buyer can skip it; accepting a declined offer is a 409.
 */
export const OFFER_TRANSITIONS = {
  shown: ["accepting", "declined"],
  // → declined only once Stripe has cancelled the claim's PaymentIntent (or before it existed).
  accepting: ["paid", "failed", "declined"],
  failed: ["declined"],
  paid: [],
  declined: [],
} as const satisfies Record<OfferStatus, readonly OfferStatus[]>;

function checkMove(from: OfferStatus, to: OfferStatus) {
  if (!(OFFER_TRANSITIONS[from] as readonly OfferStatus[]).includes(to))
    throw new Error(`an offer cannot go from ${from} to ${to}`);
}

/** One conditional move of the offer; its statement changes a row only if the offer was still in `from`. */
function transition(
  deps: PurchaseDeps,
  offer: Pick<OfferRow, "parentPurchaseId" | "stepId">,
  from: OfferStatus,
  to: OfferStatus,
): D1PreparedStatement {
  checkMove(from, to);
  return deps.d1
    .prepare(
      "update funnel_offers set status = ?, decided_at = ? where parent_purchase_id = ? and step_id = ? and status = ? returning status",
    )
    .bind(to, Date.now(), offer.parentPurchaseId, offer.stepId, from);
}
async function move(
  deps: PurchaseDeps,
  offer: Pick<OfferRow, "parentPurchaseId" | "stepId">,
  from: OfferStatus,
  to: OfferStatus,
): Promise<boolean> {
  return ((await transition(deps, offer, from, to).all()).results?.length ?? 0) > 0;
}
const failPurchase = (deps: PurchaseDeps, purchaseId: string) =>
  deps.d1.prepare("update purchases set status = 'failed' where id = ? and status = 'pending'").bind(purchaseId);

const readOffer = (deps: PurchaseDeps, rootId: string, stepId: string) =>
  deps.db
    .select()
    .from(funnelOffers)
    .where(and(eq(funnelOffers.parentPurchaseId, rootId), eq(funnelOffers.stepId, stepId)))
    .get();
const readPurchase = (deps: PurchaseDeps, id: string | null) =>
  id ? deps.db.select().from(purchases).where(eq(purchases.id, id)).get() : Promise.resolve(undefined);

// ---- who may act ----

export type BuyerClaim = { buyerKey?: string | null; purchaseId?: string | null };

/**
 * The paid purchase whose funnel this browser may walk: it must be the browser that paid it, within
 * UPSELL_WINDOW_MINUTES of the payment. An upsell's own purchase does not start another funnel.
 */
export async function rootPurchase(deps: PurchaseDeps, claim: BuyerClaim): Promise<PurchaseRow> {
  if (!claim.buyerKey || !claim.purchaseId) throw notFound("Purchase Not Found");
  const keyHash = await sha256Hex(claim.buyerKey);
  const found = await deps.db
    .select()
    .from(purchases)
    .where(and(eq(purchases.id, claim.purchaseId), eq(purchases.buyerKeyHash, keyHash)))
    .get();
  if (!found || found.parentPurchaseId) throw notFound("Purchase Not Found");
  const synced = await syncWithStripe(deps, found, { bestEffort: true });
  if (synced.status === "pending") throw new ApiError(409, "Payment is still processing");
  if (synced.status !== "paid") throw notFound("Purchase Not Found");
  if (!synced.paidAt || Date.now() - synced.paidAt.getTime() > UPSELL_WINDOW_MINUTES * 60_000)
    throw new ApiError(410, "This offer has expired");
  return synced;
}

/** The purchase whose order (what was added) this caller may read: the paying browser, or the access link's holder. No card is shown. */
export async function orderRoot(
  deps: PurchaseDeps,
  claim: BuyerClaim & { access?: string | null },
): Promise<PurchaseRow> {
  const byToken = await purchaseIdFromToken(deps.accessSecret, claim.access);
  let found: PurchaseRow | undefined;
  if (byToken) {
    if (!claim.purchaseId || claim.purchaseId === byToken) found = await readPurchase(deps, byToken);
  } else if (claim.buyerKey && claim.purchaseId) {
    const keyHash = await sha256Hex(claim.buyerKey);
    found = await deps.db
      .select()
      .from(purchases)
      .where(and(eq(purchases.id, claim.purchaseId), eq(purchases.buyerKeyHash, keyHash)))
      .get();
  }
  if (!found || found.parentPurchaseId) throw notFound("Purchase Not Found");
  return found;
}

// ---- what to offer ----

/** The steps of the live funnel of the purchase's item, in order, with what this buyer did with each. */
async function funnelState(deps: PurchaseDeps, root: PurchaseRow) {
  const funnel = await liveFunnelFor(deps.db, root.contentId);
  if (!funnel || !root.stripeCustomerId) return null;
  const steps = await deps.db
    .select()
    .from(funnelSteps)
    .where(eq(funnelSteps.funnelId, funnel.id))
    .orderBy(asc(funnelSteps.stepOrder));
  const offers = await deps.db.select().from(funnelOffers).where(eq(funnelOffers.parentPurchaseId, root.id));
  const bought = offers.some((o) => o.purchaseId)
    ? await deps.db
        .select({ id: purchases.id, status: purchases.status, contentId: purchases.contentId })
        .from(purchases)
        .where(
          inArray(
            purchases.id,
            offers.flatMap((o) => (o.purchaseId ? [o.purchaseId] : [])),
          ),
        )
    : [];
  const paid = new Set(bought.filter((b) => PAID_LIKE.includes(b.status)).map((b) => b.id));
  // The upsell's own webhook may have fulfilled it first: the offer follows its purchase (accepting → paid).
  const settled = offers.filter((o) => o.status === "accepting" && o.purchaseId && paid.has(o.purchaseId));
  if (settled.length) await deps.d1.batch(settled.map((o) => transition(deps, o, "accepting", "paid")));
  // What this order already holds: an item is never sold twice in one order (a step re-added, or the
  // same item in two steps, is skipped).
  const boughtItems = new Set([
    root.contentId,
    ...bought.filter((b) => PAID_LIKE.includes(b.status)).map((b) => b.contentId),
  ]);
  return { funnel, steps, offers: new Map(offers.map((o) => [o.stepId, o])), paid, boughtItems };
}

/**
 * The step to offer now: steps in order; a downsell only right after its upsell was declined;
 * a step whose item is gone or unpublished, or already in this order, is skipped. Null when the funnel is done.
 */
function currentStep(
  state: NonNullable<Awaited<ReturnType<typeof funnelState>>>,
  items: Map<string, ItemRow>,
): StepRow | null {
  let lastUpsell: "accepted" | "declined" | null = null;
  for (const step of state.steps) {
    const item = step.contentId ? items.get(step.contentId) : undefined;
    // An item its creator took off sale is not offered either.
    if (!item || item.deletedAt || item.unpublishedAt || item.userId !== state.funnel.userId) continue;
    if (step.stepType === "downsell" && lastUpsell !== "declined") continue;
    const offer = state.offers.get(step.id);
    // The purchase is the money's word (its webhook may have fulfilled it before the offer moved).
    const accepted = offer?.status === "paid" || (offer?.purchaseId && state.paid.has(offer.purchaseId));
    const outcome = accepted ? "accepted" : offer?.status === "declined" ? "declined" : null;
    if (!outcome) {
      // Already in this order (bought in another step, or the item the order began with): not offered again.
      if (state.boughtItems.has(item.id)) continue;
      return step;
    }
    if (step.stepType === "upsell") lastUpsell = outcome;
  }
  return null;
}

async function itemsOf(deps: PurchaseDeps, steps: StepRow[]) {
  const ids = steps.flatMap((s) => (s.contentId ? [s.contentId] : []));
  const rows = ids.length ? await deps.db.select().from(content).where(inArray(content.id, ids)) : [];
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The card that paid the first purchase, as Stripe records it on that PaymentIntent, and only while
 * it is saved on that purchase's Customer. Never "the newest card of the Customer": on a shared
 * computer that is another buyer's.
 */
async function rootCard(deps: PurchaseDeps, root: PurchaseRow): Promise<Stripe.PaymentMethod | null> {
  if (!root.paymentIntentId || !root.stripeCustomerId) return null;
  const intent = await deps.stripe.paymentIntents.retrieve(root.paymentIntentId);
  const pm = intent.payment_method;
  if (!pm) return null;
  const card = typeof pm === "string" ? await deps.stripe.paymentMethods.retrieve(pm) : pm;
  const customer = typeof card.customer === "string" ? card.customer : card.customer?.id;
  return customer === root.stripeCustomerId ? card : null;
}

function offerOf(step: StepRow, item: ItemRow, card: Stripe.PaymentMethod | null): UpsellOffer {
  const amounts = stepAmounts(step, item);
  return {
    stepId: step.id,
    stepType: step.stepType,
    title: step.title,
    description: step.description,
    ctaText: step.ctaText,
    price: amounts.priceCents / 100,
    pricingModel: item.pricingModel,
    minimumPrice: amounts.tip ? amounts.minimumCents / 100 : null,
    maximumPrice: amounts.tip ? amounts.maximumCents / 100 : null,
    previewImage: item.previewImageKey ? `/api/content/${item.id}/preview-image` : null,
    accessType: item.accessType,
    card: card?.card ? { brand: card.card.brand, last4: card.card.last4 } : null,
  };
}

/** What an offer asks: a fixed price, or a tip between a minimum and a ceiling (both null for a fixed price). */
type Terms = { priceCents: number; minimumCents: number | null; maximumCents: number | null };

function termsOf(step: StepRow, item: ItemRow): Terms {
  const { tip, priceCents, minimumCents, maximumCents } = stepAmounts(step, item);
  return tip ? { priceCents, minimumCents, maximumCents } : { priceCents, minimumCents: null, maximumCents: null };
}

/** The terms recorded when the offer was last shown; null when none were (never shown, or shown before they were recorded). */
function shownTerms(offer: OfferRow | undefined): Terms | null {
  if (
    !offer ||
    offer.shownPriceCents === null ||
    (offer.shownMinimumCents === null) !== (offer.shownMaximumCents === null)
  )
    return null;
  return {
    priceCents: offer.shownPriceCents,
    minimumCents: offer.shownMinimumCents,
    maximumCents: offer.shownMaximumCents,
  };
}

/**
 * The offer to show now (recorded as shown, with its terms), or null when the funnel is done, there
 * is none, or no card to charge. At null the buyer's funnel has ended: the order email goes now
 * rather than at its deadline (./mail/order-email.ts).
 */
export async function nextOffer(deps: PurchaseDeps, root: PurchaseRow): Promise<UpsellOffer | null> {
  const offer = await offerNow(deps, root);
  if (!offer) await releaseOrderEmail(deps.d1, deps.emails, root.id);
  return offer;
}

async function offerNow(deps: PurchaseDeps, root: PurchaseRow): Promise<UpsellOffer | null> {
  const state = await funnelState(deps, root);
  if (!state) return null;
  const items = await itemsOf(deps, state.steps);
  const current = currentStep(state, items);
  if (!current) return null;
  const card = await rootCard(deps, root);
  if (!card) return null;
  // The buyer's variant when the step is under an A/B test (./ab-tests.ts): its texts and price.
  const { step, test } = await applyVariant(deps.d1, current, root.id);
  const item = items.get(step.contentId!)!;
  const terms = termsOf(step, item);
  const shown = {
    shownPriceCents: terms.priceCents,
    shownMinimumCents: terms.minimumCents,
    shownMaximumCents: terms.maximumCents,
    abTestId: test?.id ?? null,
    variant: test?.variant ?? null,
  };
  // Shown again (a reload): the row takes the terms on screen now, unless the offer has moved on.
  await deps.db
    .insert(funnelOffers)
    .values({ parentPurchaseId: root.id, stepId: step.id, funnelId: state.funnel.id, ...shown })
    .onConflictDoUpdate({
      target: [funnelOffers.parentPurchaseId, funnelOffers.stepId],
      set: shown,
      setWhere: eq(funnelOffers.status, "shown"),
    });
  return offerOf(step, item, card);
}

const offerChanged = () => new ApiError(409, OFFER_CHANGED_MESSAGE);
const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

/**
 * The amount of an accepted offer, decided here and only under the terms the buyer was shown: the
 * fixed price, if it is still the price; or a tip the buyer may ask for under what was shown (else
 * 400, as the page said) that the current terms also allow (else 409). Without an amount, a tip is
 * the shown minimum, if that is still allowed.
 */
function amountFor(shown: Terms, now: Terms, amount: unknown): number {
  if ((shown.minimumCents === null) !== (now.minimumCents === null)) throw offerChanged();
  if (
    shown.minimumCents === null ||
    shown.maximumCents === null ||
    now.minimumCents === null ||
    now.maximumCents === null
  ) {
    if (now.priceCents !== shown.priceCents) throw offerChanged();
    if (now.priceCents < MIN_PRICE_CENTS)
      throw new ApiError(400, `Card payments must be at least ${dollars(MIN_PRICE_CENTS)}`);
    return now.priceCents;
  }
  let cents = shown.minimumCents;
  if (amount !== undefined && amount !== null && amount !== "") {
    cents = dollarsToCents(String(amount));
    if (!Number.isFinite(cents)) throw new ApiError(400, "Amount must be a number with at most two decimals");
    if (cents < shown.minimumCents) throw new ApiError(400, `Minimum amount is ${dollars(shown.minimumCents)}`);
    if (cents > shown.maximumCents) throw new ApiError(400, `Maximum amount is ${dollars(shown.maximumCents)}`);
  }
  if (cents < now.minimumCents || cents > now.maximumCents) throw offerChanged();
  return cents;
}

// ---- accept ----

/**
 * Accepts the offer of `stepId`: claims it, then charges the card that paid, off-session, once. A
 * repeat (double click, retry after a crash) finds the claim and carries on from where Stripe says
 * the charge is, so the card is charged at most once.
 */
export async function acceptOffer(
  deps: PurchaseDeps,
  root: PurchaseRow,
  stepId: string,
  amount: unknown,
): Promise<AcceptResult> {
  let offer = await readOffer(deps, root.id, stepId);
  if (!offer || offer.status === "shown") {
    const state = await funnelState(deps, root);
    if (!state) throw new ApiError(409, NOT_AVAILABLE);
    const items = await itemsOf(deps, state.steps);
    const current = currentStep(state, items);
    if (!current || current.id !== stepId) throw new ApiError(409, NOT_AVAILABLE);
    const shown = shownTerms(offer);
    if (!shown) throw offerChanged();
    // The terms now are those of the buyer's own variant, the one they were shown.
    const { step } = await applyVariant(deps.d1, current, root.id);
    const amountCents = amountFor(shown, termsOf(step, items.get(step.contentId!)!), amount);
    // shown → accepting, under the terms just checked: whichever request moves the row first names the
    // purchase; the others follow it. A reload that rewrote the terms meanwhile leaves the row shown.
    checkMove("shown", "accepting");
    await deps.d1
      .prepare(
        `update funnel_offers set status = 'accepting', purchase_id = ?, amount_cents = ?, decided_at = ?
         where parent_purchase_id = ? and step_id = ? and status = 'shown' and purchase_id is null
         and shown_price_cents is ? and shown_minimum_cents is ? and shown_maximum_cents is ?`,
      )
      .bind(newId(), amountCents, Date.now(), root.id, stepId, shown.priceCents, shown.minimumCents, shown.maximumCents)
      .run();
    offer = await readOffer(deps, root.id, stepId);
    if (offer?.status === "shown") throw offerChanged();
  }
  if (!offer) throw new ApiError(409, NOT_AVAILABLE);
  return follow(deps, root, offer);
}

/** Answers from where the offer stands; an offer being accepted is charged (or its charge read). */
async function follow(
  deps: PurchaseDeps,
  root: PurchaseRow,
  offer: OfferRow,
  { confirm = true } = {},
): Promise<AcceptResult> {
  switch (offer.status) {
    case "declined":
      throw new ApiError(409, DECLINED);
    case "paid":
      return {
        status: "paid",
        purchaseId: offer.purchaseId!,
        next: await nextOffer(deps, root),
        order: await orderSummary(deps, root),
      };
    case "failed":
      return { status: "declined", purchaseId: offer.purchaseId!, message: await failureOf(deps, offer) };
    case "accepting":
      return chargeOffer(deps, root, offer as OfferRow & { purchaseId: string }, { confirm });
    case "shown":
      throw new ApiError(409, NOT_AVAILABLE);
  }
}

async function failureOf(deps: PurchaseDeps, offer: OfferRow): Promise<string> {
  const purchase = await readPurchase(deps, offer.purchaseId);
  if (!purchase?.paymentIntentId) return CARD_GONE;
  const intent = await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId);
  return intent.last_payment_error?.message ?? "Your card was declined.";
}

async function chargeOffer(
  deps: PurchaseDeps,
  root: PurchaseRow,
  offer: OfferRow & { purchaseId: string },
  { confirm }: { confirm: boolean },
): Promise<AcceptResult> {
  const purchaseId = offer.purchaseId;
  let purchase = await readPurchase(deps, purchaseId);
  if (!purchase) {
    if (!confirm) throw new ApiError(409, NOT_AVAILABLE);
    const step = await deps.db.select().from(funnelSteps).where(eq(funnelSteps.id, offer.stepId)).get();
    const item = step?.contentId
      ? await deps.db.select().from(content).where(eq(content.id, step.contentId)).get()
      : undefined;
    if (!step || !item) throw new ApiError(409, NOT_AVAILABLE);
    const card = await rootCard(deps, root);
    if (!card) {
      if (!(await move(deps, offer, "accepting", "failed")))
        return follow(deps, root, (await readOffer(deps, root.id, offer.stepId))!);
      return { status: "declined", purchaseId, message: CARD_GONE };
    }
    // Names the card that paid the first purchase; not confirmed here, so Stripe answers requires_confirmation.
    const intent = await deps.stripe.paymentIntents.create(
      {
        amount: offer.amountCents!,
        currency: item.currency,
        customer: root.stripeCustomerId!,
        payment_method: card.id,
        // The card or Link wallet that paid at checkout, charged without the buyer: the checkout's
        // own methods, none of which redirects.
        allowed_payment_method_types: CHECKOUT_PAYMENT_METHODS,
        description: item.title.slice(0, 200),
        ...(root.buyerEmail ? { receipt_email: root.buyerEmail } : {}),
        metadata: {
          purchaseId,
          contentId: item.id,
          creatorId: item.userId,
          parentPurchaseId: root.id,
          funnelStepId: step.id,
        },
      },
      { idempotencyKey: `upsell:${purchaseId}` },
    );
    await deps.db
      .insert(purchases)
      .values({
        id: purchaseId,
        contentId: item.id,
        creatorId: item.userId,
        buyerEmail: root.buyerEmail,
        amountCents: offer.amountCents!,
        currency: item.currency,
        status: "pending",
        paymentIntentId: intent.id,
        stripeCustomerId: root.stripeCustomerId,
        buyerKeyHash: root.buyerKeyHash,
        funnelStepId: step.id,
        parentPurchaseId: root.id,
      })
      .onConflictDoNothing();
    purchase = (await readPurchase(deps, purchaseId))!;
    // 'No thanks' may have declined the claim before this purchase existed: void what was just made.
    if ((await readOffer(deps, root.id, offer.stepId))?.status === "declined") {
      await voidIntent(deps, purchase);
      await failPurchase(deps, purchaseId).run();
      throw new ApiError(409, DECLINED);
    }
  }
  if (PAID_LIKE.includes(purchase.status)) {
    await move(deps, offer, "accepting", "paid");
    return { status: "paid", purchaseId, next: await nextOffer(deps, root), order: await orderSummary(deps, root) };
  }

  let intent = await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId!);
  let refused = false;
  if (confirm && intent.status === "requires_confirmation") {
    try {
      intent = await deps.stripe.paymentIntents.confirm(
        intent.id,
        { off_session: true },
        { idempotencyKey: `upsell-confirm:${purchaseId}` },
      );
    } catch (err) {
      // A declined card (402), or a PaymentIntent that a decline cancelled or a card that was removed (400): Stripe's word is the PaymentIntent.
      if (!(err instanceof Stripe.errors.StripeCardError || err instanceof Stripe.errors.StripeInvalidRequestError))
        throw err;
      refused = err instanceof Stripe.errors.StripeInvalidRequestError;
      intent = await deps.stripe.paymentIntents.retrieve(intent.id);
    }
  }
  return settle(deps, root, offer, purchase, intent, refused);
}

async function settle(
  deps: PurchaseDeps,
  root: PurchaseRow,
  offer: OfferRow & { purchaseId: string },
  purchase: PurchaseRow,
  intent: Stripe.PaymentIntent,
  refused: boolean,
): Promise<AcceptResult> {
  const purchaseId = purchase.id;
  const needsBuyer = (): AcceptResult => ({
    status: "requires_action",
    purchaseId,
    clientSecret: intent.client_secret!,
    paymentMethod: idOf(intent.payment_method ?? intent.last_payment_error?.payment_method),
  });
  switch (intent.status) {
    case "succeeded":
      return paid(deps, root, offer, intent);
    case "processing":
    case "requires_capture":
      return { status: "processing", purchaseId };
    case "requires_action":
      return needsBuyer();
    case "requires_confirmation":
      // Stripe refused to confirm it (the card was removed from the Customer): nothing can charge it.
      return refused ? failCharge(deps, root, offer, purchase, CARD_GONE) : { status: "processing", purchaseId };
    case "canceled": {
      // Only a decline or a failed charge cancels it; the card was charged by neither.
      const current = await readOffer(deps, root.id, offer.stepId);
      if (current?.status === "failed" || (current?.status === "accepting" && intent.last_payment_error)) {
        await deps.d1.batch([transition(deps, offer, "accepting", "failed"), failPurchase(deps, purchaseId)]);
        return {
          status: "declined",
          purchaseId,
          message: intent.last_payment_error?.message ?? "Your card was declined.",
        };
      }
      await deps.d1.batch([transition(deps, offer, "accepting", "declined"), failPurchase(deps, purchaseId)]);
      throw new ApiError(409, DECLINED);
    }
    case "requires_payment_method": {
      const error = intent.last_payment_error;
      // The bank wants the cardholder: the page confirms on-session with the same card.
      if (error?.code === "authentication_required") return needsBuyer();
      return failCharge(deps, root, offer, purchase, error?.message ?? "Your card was declined.");
    }
    default:
      // A status newer than this code: leave the charge as it is; the webhook fulfils a success.
      return { status: "processing", purchaseId };
  }
}

async function paid(
  deps: PurchaseDeps,
  root: PurchaseRow,
  offer: OfferRow & { purchaseId: string },
  intent: Stripe.PaymentIntent,
): Promise<AcceptResult> {
  await fulfil(deps, intent);
  const purchase = await readPurchase(deps, offer.purchaseId);
  if (purchase && PAID_LIKE.includes(purchase.status)) await move(deps, offer, "accepting", "paid");
  return {
    status: "paid",
    purchaseId: offer.purchaseId,
    next: await nextOffer(deps, root),
    order: await orderSummary(deps, root),
  };
}

/**
 * A charge that will not go through: its PaymentIntent is cancelled first (the page may hold its
 * client secret), then the offer fails and its purchase with it, in one batch.
 */
async function failCharge(
  deps: PurchaseDeps,
  root: PurchaseRow,
  offer: OfferRow & { purchaseId: string },
  purchase: PurchaseRow,
  message: string,
): Promise<AcceptResult> {
  const intent = await voidIntent(deps, purchase);
  if (intent.status === "succeeded") return paid(deps, root, offer, intent);
  if (intent.status !== "canceled") return { status: "processing", purchaseId: purchase.id };
  await deps.d1.batch([transition(deps, offer, "accepting", "failed"), failPurchase(deps, purchase.id)]);
  const current = await readOffer(deps, root.id, offer.stepId);
  if (current?.status === "declined") throw new ApiError(409, DECLINED);
  return { status: "declined", purchaseId: purchase.id, message };
}

/** Cancels the purchase's PaymentIntent unless it already succeeded or was cancelled; answers what Stripe then says it is. */
async function voidIntent(deps: PurchaseDeps, purchase: PurchaseRow): Promise<Stripe.PaymentIntent> {
  let intent = await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId!);
  if (intent.status === "succeeded" || intent.status === "canceled") return intent;
  try {
    intent = await deps.stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `upsell-cancel:${purchase.id}` });
  } catch (err) {
    // It succeeded or was cancelled meanwhile: read what it is now.
    if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
    intent = await deps.stripe.paymentIntents.retrieve(intent.id);
  }
  return intent;
}

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));

/** After the buyer authenticated on-session: asks Stripe where the charge is and settles it. Confirms nothing. */
export async function completeOffer(deps: PurchaseDeps, root: PurchaseRow, stepId: string): Promise<AcceptResult> {
  const offer = await readOffer(deps, root.id, stepId);
  if (!offer || offer.status === "shown") throw notFound("Offer not found");
  return follow(deps, root, offer, { confirm: false });
}

// ---- decline ----

/**
 * "No thanks" (or skipping after a declined card). Refused (409) once the offer is paid. A claim
 * still being charged is voided: its PaymentIntent cancelled, so it can never complete later.
 */
export async function declineOffer(
  deps: PurchaseDeps,
  root: PurchaseRow,
  stepId: string,
): Promise<{ next: UpsellOffer | null }> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const offer = await readOffer(deps, root.id, stepId);
    if (!offer) throw notFound("Offer not found");
    let decided = true;
    switch (offer.status) {
      case "paid":
        throw new ApiError(409, ALREADY_PAID);
      case "declined":
        break;
      case "shown":
      case "failed":
        decided = await move(deps, offer, offer.status, "declined");
        break;
      case "accepting":
        decided = await voidClaim(deps, root, offer);
        break;
    }
    // Lost a race with an accept: decide again from where the offer stands now.
    if (decided) return { next: await nextOffer(deps, root) };
  }
  throw new ApiError(409, "This offer changed; please try again");
}

/** Declines an offer an accept has claimed, if Stripe lets its charge be cancelled. False when the offer moved meanwhile. */
async function voidClaim(deps: PurchaseDeps, root: PurchaseRow, offer: OfferRow): Promise<boolean> {
  // Before the accept has made its purchase: one statement declines the claim (the accept checks after making it).
  const early = await deps.d1
    .prepare(
      `update funnel_offers set status = 'declined', decided_at = ? where parent_purchase_id = ? and step_id = ? and status = 'accepting'
       and not exists (select 1 from purchases where purchases.id = funnel_offers.purchase_id) returning status`,
    )
    .bind(Date.now(), offer.parentPurchaseId, offer.stepId)
    .all();
  if (early.results.length) return true;
  const purchase = await readPurchase(deps, offer.purchaseId);
  if (!purchase?.paymentIntentId) return false;
  const intent = await voidIntent(deps, purchase);
  if (intent.status === "succeeded") {
    await paid(deps, root, offer as OfferRow & { purchaseId: string }, intent);
    throw new ApiError(409, ALREADY_PAID);
  }
  if (intent.status !== "canceled") throw new ApiError(409, "This payment is being processed");
  await deps.d1.batch([
    transition(deps, offer, "accepting", "declined"),
    transition(deps, offer, "failed", "declined"),
    failPurchase(deps, purchase.id),
  ]);
  return true;
}

// ---- the order ----

/** Everything bought in this order after the first item: the accepted upsells, each with its own access. */
export async function orderExtras(deps: PurchaseDeps, root: PurchaseRow): Promise<PurchaseVerification[]> {
  const children = await deps.db
    .select()
    .from(purchases)
    .where(and(eq(purchases.parentPurchaseId, root.id), eq(purchases.status, "paid")))
    .orderBy(asc(purchases.createdAt));
  return Promise.all(children.map((p) => verification(deps, p)));
}

/**
 * What the order has charged, from the server's records: the first purchase's amount, the order
 * bump's add-on charged with it (a purchase of its own, bump_of the first), and each offer that is paid (an offer still 'accepting' whose purchase Stripe's webhook already fulfilled
 * is moved to paid first, as funnelState does), at the amount its purchase was charged.
 */
export async function orderSummary(deps: PurchaseDeps, root: PurchaseRow): Promise<OrderSummary> {
  const settle = await deps.d1
    .prepare(
      `select o.parent_purchase_id as parentPurchaseId, o.step_id as stepId from funnel_offers o join purchases p on p.id = o.purchase_id
       where o.parent_purchase_id = ? and o.status = 'accepting' and p.status in ('paid', 'refunded', 'disputed')`,
    )
    .bind(root.id)
    .all<{ parentPurchaseId: string; stepId: string }>();
  if (settle.results.length) await deps.d1.batch(settle.results.map((o) => transition(deps, o, "accepting", "paid")));
  const { results: added } = await deps.d1
    .prepare(
      `select p.id as purchaseId, c.title as title, p.amount_cents as amountCents
       from funnel_offers o join purchases p on p.id = o.purchase_id join content c on c.id = p.content_id
       where o.parent_purchase_id = ? and o.status = 'paid' order by p.paid_at, p.created_at`,
    )
    .bind(root.id)
    .all<{ purchaseId: string; title: string; amountCents: number }>();
  const item = await deps.db.select({ title: content.title }).from(content).where(eq(content.id, root.contentId)).get();
  // Paid-like as the first purchase is: a refund later does not change what this payment charged.
  const bumps = await deps.db
    .select({ purchase: purchases, title: content.title })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .where(and(eq(purchases.bumpOf, root.id), inArray(purchases.status, ["paid", "refunded", "disputed"])))
    .orderBy(asc(purchases.id));
  const paidCents = root.amountCents + bumps.reduce((t, b) => t + b.purchase.amountCents, 0);
  const totalCents = paidCents + added.reduce((t, a) => t + a.amountCents, 0);
  return {
    first: { title: item?.title ?? "", amount: root.amountCents / 100, accessUrl: await accessUrlFor(deps, root) },
    bumps: await Promise.all(
      bumps.map(async (b) => ({
        purchaseId: b.purchase.id,
        title: b.title,
        amount: b.purchase.amountCents / 100,
        accessUrl: await accessUrlFor(deps, b.purchase),
      })),
    ),
    paid: paidCents / 100,
    added: added.map((a) => ({ purchaseId: a.purchaseId, title: a.title, amount: a.amountCents / 100 })),
    total: totalCents / 100,
  };
}

/** The creator's preview of an item's funnel (test mode or live): the steps as buyers would see them. Charges nothing. */
export async function previewOffers(deps: PurchaseDeps, userId: string, funnelId: string): Promise<UpsellOffer[]> {
  await ownedFunnel(deps, userId, funnelId);
  const steps = await deps.db
    .select()
    .from(funnelSteps)
    .where(eq(funnelSteps.funnelId, funnelId))
    .orderBy(asc(funnelSteps.stepOrder));
  const items = await itemsOf(deps, steps);
  return steps.flatMap((s) => {
    const item = s.contentId ? items.get(s.contentId) : undefined;
    return item && !item.deletedAt && item.userId === userId ? [offerOf(s, item, null)] : [];
  });
}
