// Charging an accepted upsell offer, each step safe to repeat with the same keys: the PaymentIntent
// (the customer and the card that paid the first purchase, key `upsell:{purchaseId}`), the pending
// purchase, the off-session confirm (key `upsell-confirm:{purchaseId}`), then settling on what Stripe
// says. A Stripe invalid-request answer (another request got there first) is resolved by reading the
// PaymentIntent again, never a 500. Behaviour: docs/funnels.md (Funnels and upsells).
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import type { AcceptResult } from "../../../shared/funnels";
import { content, funnelSteps, purchases } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import type { PurchaseDeps } from "../purchases/deps";
import { fulfil } from "../purchases/fulfil";
import { CHECKOUT_PAYMENT_METHODS } from "../stripe";
import { nextOffer, rootCard } from "./offer";
import {
  CARD_GONE,
  DECLINED,
  failPurchase,
  move,
  NOT_AVAILABLE,
  type OfferRow,
  PAID_LIKE,
  type PurchaseRow,
  readOffer,
  readPurchase,
  transition,
} from "./offer-state";
import { orderSummary } from "./order";
import { upsellTax } from "../tax/upsell-tax";
import { taxStatements } from "../tax/calculate";

/** Answers from where the offer stands; an offer being accepted is charged (or its charge read). */
export async function follow(
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
    // Taxed on the first purchase's evidence, with a calculation of its own (docs/tax.md).
    const { tax, evidence } = await upsellTax(deps, root, item, { purchaseId, amountCents: offer.amountCents! });
    // Names the card that paid the first purchase; not confirmed here, so Stripe answers requires_confirmation.
    const intent = await deps.stripe.paymentIntents.create(
      {
        amount: tax.totalCents,
        currency: item.currency,
        ...(tax.calculationId ? { hooks: { inputs: { tax: { calculation: tax.calculationId } } } } : {}),
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
      // With its calculation: one asked afresh after a failure Stripe replayed has a new id (../tax/calculate.ts).
      { idempotencyKey: `upsell:${purchaseId}${tax.calculationId ? `:${tax.calculationId}` : ""}` },
    );
    const inserted = deps.db
      .insert(purchases)
      .values({
        id: purchaseId,
        contentId: item.id,
        creatorId: item.userId,
        buyerEmail: root.buyerEmail,
        amountCents: tax.totalCents,
        taxCents: tax.taxCents,
        currency: item.currency,
        status: "pending",
        paymentIntentId: intent.id,
        stripeCustomerId: root.stripeCustomerId,
        buyerKeyHash: root.buyerKeyHash,
        funnelStepId: step.id,
        parentPurchaseId: root.id,
      })
      .onConflictDoNothing()
      .toSQL();
    // The purchase and its tax row together (the row only while the purchase is pending).
    await deps.d1.batch([
      deps.d1.prepare(inserted.sql).bind(...inserted.params),
      ...taxStatements(deps.d1, tax, evidence),
    ]);
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

export async function paid(
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
export async function voidIntent(deps: PurchaseDeps, purchase: PurchaseRow): Promise<Stripe.PaymentIntent> {
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
