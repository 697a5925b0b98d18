// What to offer a buyer after paying: the live funnel's next step for this order (a downsell only
// after its upsell was declined; an item already in the order or off sale is skipped), the card that
// paid, and the terms shown, recorded on the offer's row each time it is shown. Also the creator's
// preview of a funnel. Behaviour: docs/funnels.md (Funnels and upsells).
import { asc, eq, inArray } from "drizzle-orm";
import type Stripe from "stripe";
import type { UpsellOffer } from "../../../shared/funnels";
import { content, funnelOffers, funnelSteps, purchases } from "../../db/schema";
import { applyVariant, previewVariant } from "../funnels/ab-tests";
import { liveFunnelFor, ownedFunnel } from "../funnels/funnels";
import { stepAmounts } from "../funnels/prices";
import { releaseOrderEmail } from "../mail/order-email";
import type { PurchaseDeps } from "../purchases/deps";
import { offerTaxLine } from "../tax/upsell-tax";
import { type ItemRow, type OfferRow, PAID_LIKE, type PurchaseRow, type StepRow, transition } from "./offer-state";

/** The steps of the live funnel of the purchase's item, in order, with what this buyer did with each. */
export async function funnelState(deps: PurchaseDeps, root: PurchaseRow) {
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
export function currentStep(
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

export async function itemsOf(deps: PurchaseDeps, steps: StepRow[]) {
  const ids = steps.flatMap((s) => (s.contentId ? [s.contentId] : []));
  const rows = ids.length ? await deps.db.select().from(content).where(inArray(content.id, ids)) : [];
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * The card that paid the first purchase, as Stripe records it on that PaymentIntent, and only while
 * it is saved on that purchase's Customer. Never "the newest card of the Customer": on a shared
 * computer that is another buyer's.
 */
export async function rootCard(deps: PurchaseDeps, root: PurchaseRow): Promise<Stripe.PaymentMethod | null> {
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
export type Terms = { priceCents: number; minimumCents: number | null; maximumCents: number | null };

export function termsOf(step: StepRow, item: ItemRow): Terms {
  const { tip, priceCents, minimumCents, maximumCents } = stepAmounts(step, item);
  return tip ? { priceCents, minimumCents, maximumCents } : { priceCents, minimumCents: null, maximumCents: null };
}

/** The terms recorded when the offer was last shown; null when none were (never shown, or shown before they were recorded). */
export function shownTerms(offer: OfferRow | undefined): Terms | null {
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
 * rather than at its deadline (worker/services/mail/order-email.ts).
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
  // The buyer's variant when the step is under an A/B test (worker/services/funnels/ab-tests.ts): its texts and price.
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
  return { ...offerOf(step, item, card), tax: await offerTaxLine(deps, root, item.userId, terms.priceCents) };
}

/**
 * The creator's preview of an item's funnel (test mode or live): the steps as buyers would see them,
 * a step under an A/B test as `variant` (A: the step as it is). Charges nothing, assigns no variant.
 */
export async function previewOffers(
  deps: PurchaseDeps,
  userId: string,
  funnelId: string,
  variant: "A" | "B" = "A",
): Promise<UpsellOffer[]> {
  await ownedFunnel(deps, userId, funnelId);
  const steps = await deps.db
    .select()
    .from(funnelSteps)
    .where(eq(funnelSteps.funnelId, funnelId))
    .orderBy(asc(funnelSteps.stepOrder));
  const items = await itemsOf(deps, steps);
  const shown = steps.filter((s) => {
    const item = s.contentId ? items.get(s.contentId) : undefined;
    return item && !item.deletedAt && item.userId === userId;
  });
  return Promise.all(
    shown.map(async (s) => offerOf(await previewVariant(deps.d1, s, variant), items.get(s.contentId!)!, null)),
  );
}
