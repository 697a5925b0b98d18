// One-click upsells after a purchase: the next offer of the item's live funnel, accepting it (an
// off-session charge of the card the buyer saved at checkout, for an amount the server decides),
// declining it, and the order that results. Only the browser that paid the purchase (aw_buyer)
// or the holder of its access link may act on it. An accepted offer is a purchase of its own
// (parent and step recorded), fulfilled by the same `fulfil` as any sale: ledger rows, access,
// receipt. Idempotent per (purchase, step): the funnel_offers row names the one upsell purchase,
// and every Stripe call for it carries a key derived from that purchase's id.
import { and, asc, eq, inArray } from "drizzle-orm";
import Stripe from "stripe";
import { MAX_PRICE_CENTS, MIN_PRICE_CENTS } from "../../shared/constants";
import { dollarsToCents } from "../../shared/content";
import type { AcceptResult, UpsellOffer } from "../../shared/funnels";
import type { PurchaseVerification } from "../../shared/payments";
import { content, funnelOffers, funnelSteps, purchases } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { newId, sha256Hex } from "../lib/ids";
import { liveFunnelFor, ownedFunnel } from "./funnels";
import { fulfil, purchaseIdFromToken, syncWithStripe, verification, type PurchaseDeps } from "./purchases";

type PurchaseRow = typeof purchases.$inferSelect;
type StepRow = typeof funnelSteps.$inferSelect;
type ItemRow = typeof content.$inferSelect;
type OfferRow = typeof funnelOffers.$inferSelect;

const PAID_LIKE = ["paid", "refunded", "disputed"];
export type UpsellClaim = { buyerKey?: string | null; access?: string | null; purchaseId?: string | null };

/** The paid purchase whose funnel this caller may walk: by its access link, or as the browser that paid it. */
export async function rootPurchase(deps: PurchaseDeps, claim: UpsellClaim): Promise<PurchaseRow> {
  let found: PurchaseRow | undefined;
  const byToken = await purchaseIdFromToken(deps.accessSecret, claim.access);
  if (byToken) {
    if (!claim.purchaseId || claim.purchaseId === byToken) found = await deps.db.select().from(purchases).where(eq(purchases.id, byToken)).get();
  } else if (claim.buyerKey && claim.purchaseId) {
    const keyHash = await sha256Hex(claim.buyerKey);
    found = await deps.db.select().from(purchases).where(and(eq(purchases.id, claim.purchaseId), eq(purchases.buyerKeyHash, keyHash))).get();
  }
  // An upsell's own purchase does not start another funnel.
  if (!found || found.parentPurchaseId) throw notFound("Purchase Not Found");
  const synced = await syncWithStripe(deps, found, { bestEffort: true });
  if (synced.status !== "paid") throw new ApiError(409, "Payment is still processing");
  return synced;
}

/** The steps of the live funnel of the purchase's item, in order, with what this buyer did with each. */
async function funnelState(deps: PurchaseDeps, root: PurchaseRow) {
  const funnel = await liveFunnelFor(deps.db, root.contentId);
  if (!funnel || !root.stripeCustomerId) return null;
  const steps = await deps.db.select().from(funnelSteps).where(eq(funnelSteps.funnelId, funnel.id)).orderBy(asc(funnelSteps.stepOrder));
  const offers = await deps.db.select().from(funnelOffers).where(eq(funnelOffers.parentPurchaseId, root.id));
  const bought = offers.some((o) => o.purchaseId)
    ? await deps.db
        .select({ id: purchases.id, status: purchases.status })
        .from(purchases)
        .where(inArray(purchases.id, offers.flatMap((o) => (o.purchaseId ? [o.purchaseId] : []))))
    : [];
  return { funnel, steps, offers: new Map(offers.map((o) => [o.stepId, o])), paid: new Set(bought.filter((b) => PAID_LIKE.includes(b.status)).map((b) => b.id)) };
}

/**
 * The step to offer now: steps in order; a downsell only right after its upsell was declined;
 * a step whose item is gone is skipped. Null when the funnel is done.
 */
function currentStep(state: NonNullable<Awaited<ReturnType<typeof funnelState>>>, items: Map<string, ItemRow>): StepRow | null {
  let lastUpsell: "accepted" | "declined" | null = null;
  for (const step of state.steps) {
    const item = step.contentId ? items.get(step.contentId) : undefined;
    if (!item || item.deletedAt || item.userId !== state.funnel.userId) continue;
    if (step.stepType === "downsell" && lastUpsell !== "declined") continue;
    const offer = state.offers.get(step.id);
    const outcome = offer?.purchaseId && state.paid.has(offer.purchaseId) ? "accepted" : offer?.status === "declined" ? "declined" : null;
    if (!outcome) return step;
    if (step.stepType === "upsell") lastUpsell = outcome;
  }
  return null;
}

async function itemsOf(deps: PurchaseDeps, steps: StepRow[]) {
  const ids = steps.flatMap((s) => (s.contentId ? [s.contentId] : []));
  const rows = ids.length ? await deps.db.select().from(content).where(inArray(content.id, ids)) : [];
  return new Map(rows.map((r) => [r.id, r]));
}

/** The newest card saved on the buyer's Customer: the one just used at checkout. */
async function savedCard(deps: PurchaseDeps, customerId: string) {
  const list = await deps.stripe.customers.listPaymentMethods(customerId, { type: "card", limit: 1 });
  return list.data[0] ?? null;
}

function offerOf(step: StepRow, item: ItemRow, card: Stripe.PaymentMethod | null): UpsellOffer {
  const tip = item.pricingModel === "pay_what_you_want";
  const priceCents = step.priceCents ?? item.priceCents;
  return {
    stepId: step.id,
    stepType: step.stepType,
    title: step.title,
    description: step.description,
    ctaText: step.ctaText,
    price: priceCents / 100,
    pricingModel: item.pricingModel,
    minimumPrice: tip ? Math.max(item.minimumPriceCents ?? priceCents, MIN_PRICE_CENTS) / 100 : null,
    previewImage: item.previewImageKey ? `/api/content/${item.id}/preview-image` : null,
    accessType: item.accessType,
    card: card?.card ? { brand: card.card.brand, last4: card.card.last4 } : null,
  };
}

/** The offer to show now (recorded as shown), or null when the funnel is done or there is none. */
export async function nextOffer(deps: PurchaseDeps, root: PurchaseRow): Promise<UpsellOffer | null> {
  const state = await funnelState(deps, root);
  if (!state) return null;
  const items = await itemsOf(deps, state.steps);
  const step = currentStep(state, items);
  if (!step) return null;
  const card = await savedCard(deps, root.stripeCustomerId!);
  if (!card) return null;
  await deps.db.insert(funnelOffers).values({ parentPurchaseId: root.id, stepId: step.id, funnelId: state.funnel.id }).onConflictDoNothing();
  return offerOf(step, items.get(step.contentId!)!, card);
}

/** The amount of an accepted offer, decided here: the step's price, or a tip at or above its minimum. */
function amountFor(step: StepRow, item: ItemRow, amount: unknown): number {
  const priceCents = step.priceCents ?? item.priceCents;
  if (item.pricingModel !== "pay_what_you_want") {
    if (priceCents < MIN_PRICE_CENTS) throw new ApiError(400, `Card payments must be at least $${(MIN_PRICE_CENTS / 100).toFixed(2)}`);
    return priceCents;
  }
  const minimum = Math.max(item.minimumPriceCents ?? priceCents, MIN_PRICE_CENTS);
  if (amount === undefined || amount === null || amount === "") return minimum;
  const cents = dollarsToCents(String(amount));
  if (!Number.isFinite(cents)) throw new ApiError(400, "Amount must be a number with at most two decimals");
  if (cents < minimum) throw new ApiError(400, `Minimum amount is $${(minimum / 100).toFixed(2)}`);
  if (cents > MAX_PRICE_CENTS) throw new ApiError(400, `Maximum amount is $${(MAX_PRICE_CENTS / 100).toLocaleString("en-US")}`);
  return cents;
}

/**
 * Accepts the offer of `stepId`: charges the saved card off-session, once. A repeat (double click,
 * retry after a crash) finds the same offer row and upsell purchase and carries on from where
 * Stripe says it is, so the card is charged at most once.
 */
export async function acceptOffer(deps: PurchaseDeps, root: PurchaseRow, stepId: string, amount: unknown): Promise<AcceptResult> {
  let offer = await deps.db.select().from(funnelOffers).where(and(eq(funnelOffers.parentPurchaseId, root.id), eq(funnelOffers.stepId, stepId))).get();
  if (!offer?.purchaseId) {
    const state = await funnelState(deps, root);
    if (!state) throw new ApiError(409, "This offer is not available");
    const items = await itemsOf(deps, state.steps);
    const step = currentStep(state, items);
    if (!step || step.id !== stepId) throw new ApiError(409, "This offer is not available");
    const amountCents = amountFor(step, items.get(step.contentId!)!, amount);
    // The claim: whichever request sets purchase_id first owns the charge; the others follow it.
    await deps.d1
      .prepare(
        `insert into funnel_offers (parent_purchase_id, step_id, funnel_id, status, purchase_id, amount_cents, decided_at)
         values (?1, ?2, ?3, 'accepting', ?4, ?5, ?6)
         on conflict (parent_purchase_id, step_id) do update set status = 'accepting', purchase_id = ?4, amount_cents = ?5, decided_at = ?6
         where funnel_offers.purchase_id is null and funnel_offers.status = 'shown'`,
      )
      .bind(root.id, stepId, state.funnel.id, newId(), amountCents, Date.now())
      .run();
    offer = await deps.db.select().from(funnelOffers).where(and(eq(funnelOffers.parentPurchaseId, root.id), eq(funnelOffers.stepId, stepId))).get();
    if (!offer?.purchaseId) throw new ApiError(409, "This offer was declined");
  }
  return chargeOffer(deps, root, offer as OfferRow & { purchaseId: string });
}

async function chargeOffer(deps: PurchaseDeps, root: PurchaseRow, offer: OfferRow & { purchaseId: string }): Promise<AcceptResult> {
  const purchaseId = offer.purchaseId;
  let purchase = await deps.db.select().from(purchases).where(eq(purchases.id, purchaseId)).get();
  if (!purchase) {
    const step = await deps.db.select().from(funnelSteps).where(eq(funnelSteps.id, offer.stepId)).get();
    const item = step?.contentId ? await deps.db.select().from(content).where(eq(content.id, step.contentId)).get() : undefined;
    if (!step || !item) throw new ApiError(409, "This offer is not available");
    const card = await savedCard(deps, root.stripeCustomerId!);
    if (!card) throw new ApiError(409, "No saved card to charge");
    const intent = await deps.stripe.paymentIntents.create(
      {
        amount: offer.amountCents!,
        currency: item.currency,
        customer: root.stripeCustomerId!,
        payment_method: card.id,
        description: item.title.slice(0, 200),
        ...(root.buyerEmail ? { receipt_email: root.buyerEmail } : {}),
        metadata: { purchaseId, contentId: item.id, creatorId: item.userId, parentPurchaseId: root.id, funnelStepId: step.id },
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
    purchase = (await deps.db.select().from(purchases).where(eq(purchases.id, purchaseId)).get())!;
  }
  if (PAID_LIKE.includes(purchase.status)) return { status: "paid", purchaseId, next: await nextOffer(deps, root) };

  let intent = await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId!);
  if (intent.status === "requires_payment_method" && !intent.last_payment_error) {
    try {
      intent = await deps.stripe.paymentIntents.confirm(intent.id, { off_session: true }, { idempotencyKey: `upsell-confirm:${purchaseId}` });
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeCardError)) throw err;
      intent = await deps.stripe.paymentIntents.retrieve(intent.id);
    }
  }
  return settle(deps, root, purchase, intent);
}

async function settle(deps: PurchaseDeps, root: PurchaseRow, purchase: PurchaseRow, intent: Stripe.PaymentIntent): Promise<AcceptResult> {
  const purchaseId = purchase.id;
  switch (intent.status) {
    case "succeeded":
      await fulfil(deps, intent);
      return { status: "paid", purchaseId, next: await nextOffer(deps, root) };
    case "processing":
      return { status: "processing", purchaseId };
    case "requires_action":
    case "requires_confirmation":
      return { status: "requires_action", purchaseId, clientSecret: intent.client_secret!, paymentMethod: idOf(intent.payment_method) };
    default: {
      const error = intent.last_payment_error;
      if (error?.code === "authentication_required") {
        // The bank wants the buyer: the page confirms on-session with the same saved card.
        return { status: "requires_action", purchaseId, clientSecret: intent.client_secret!, paymentMethod: idOf(error.payment_method ?? null) };
      }
      return { status: "declined", purchaseId, message: error?.message ?? "Your card was declined." };
    }
  }
}

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));

/** After the buyer authenticated on-session: asks Stripe and fulfils. */
export async function completeOffer(deps: PurchaseDeps, root: PurchaseRow, stepId: string): Promise<AcceptResult> {
  const offer = await deps.db.select().from(funnelOffers).where(and(eq(funnelOffers.parentPurchaseId, root.id), eq(funnelOffers.stepId, stepId))).get();
  if (!offer?.purchaseId) throw notFound("Offer not found");
  const purchase = await deps.db.select().from(purchases).where(eq(purchases.id, offer.purchaseId)).get();
  if (!purchase) throw notFound("Offer not found");
  if (PAID_LIKE.includes(purchase.status)) return { status: "paid", purchaseId: purchase.id, next: await nextOffer(deps, root) };
  return settle(deps, root, purchase, await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId!));
}

/**
 * "No thanks" (or skipping after a declined card). Refused once the offer's purchase is paid.
 * An unfinished charge (authentication never completed) is cancelled so it cannot complete later.
 */
export async function declineOffer(deps: PurchaseDeps, root: PurchaseRow, stepId: string): Promise<{ next: UpsellOffer | null }> {
  const offer = await deps.db.select().from(funnelOffers).where(and(eq(funnelOffers.parentPurchaseId, root.id), eq(funnelOffers.stepId, stepId))).get();
  if (!offer) throw notFound("Offer not found");
  const purchase = offer.purchaseId ? await deps.db.select().from(purchases).where(eq(purchases.id, offer.purchaseId)).get() : undefined;
  if (purchase?.paymentIntentId && purchase.status === "pending") {
    const intent = await deps.stripe.paymentIntents.retrieve(purchase.paymentIntentId);
    if (intent.status === "succeeded") {
      await fulfil(deps, intent);
      throw new ApiError(409, "This offer was already paid");
    }
    if (intent.status !== "canceled") await deps.stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `upsell-cancel:${purchase.id}` });
    await deps.db.update(purchases).set({ status: "failed" }).where(and(eq(purchases.id, purchase.id), eq(purchases.status, "pending")));
  }
  const done = await deps.d1
    .prepare(
      `update funnel_offers set status = 'declined', decided_at = ? where parent_purchase_id = ? and step_id = ?
       and (purchase_id is null or purchase_id not in (select id from purchases where status in ('paid', 'refunded', 'disputed')))
       returning step_id`,
    )
    .bind(Date.now(), root.id, stepId)
    .all();
  if (!done.results.length) throw new ApiError(409, "This offer was already paid");
  return { next: await nextOffer(deps, root) };
}

/** Everything bought in this order after the first item: the accepted upsells, each with its own access. */
export async function orderExtras(deps: PurchaseDeps, root: PurchaseRow): Promise<PurchaseVerification[]> {
  const children = await deps.db
    .select()
    .from(purchases)
    .where(and(eq(purchases.parentPurchaseId, root.id), eq(purchases.status, "paid")))
    .orderBy(asc(purchases.createdAt));
  return Promise.all(children.map((p) => verification(deps, p)));
}

/** The creator's preview of an item's funnel (test mode or live): the steps as buyers would see them. Charges nothing. */
export async function previewOffers(deps: PurchaseDeps, userId: string, funnelId: string): Promise<UpsellOffer[]> {
  await ownedFunnel(deps, userId, funnelId);
  const steps = await deps.db.select().from(funnelSteps).where(eq(funnelSteps.funnelId, funnelId)).orderBy(asc(funnelSteps.stepOrder));
  const items = await itemsOf(deps, steps);
  return steps.flatMap((s) => {
    const item = s.contentId ? items.get(s.contentId) : undefined;
    return item && !item.deletedAt && item.userId === userId ? [offerOf(s, item, null)] : [];
  });
}
