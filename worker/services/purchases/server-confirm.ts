// Finalizing a checkout on the server, as Stripe documents it: the browser sends the ConfirmationToken
// Stripe.js made from the form; the server reads the card from it, refuses a card, email or address
// over its decline limit without asking Stripe, then confirms the PaymentIntent. Behaviour:
// docs/payments.md ("Confirming on the server"), docs/security.md ("Card testing").
import type Stripe from "stripe";
import { DECLINE_LIMIT_MESSAGES } from "../../../shared/card-testing";
import { ApiError, notFound } from "../../lib/errors";
import { isUnknownObject } from "../stripe";
import { claimedPurchase } from "./buyer-access";
import { claimConfirm, confirmAnswered, recordDecline } from "./card-testing";
import type { PurchaseDeps } from "./deps";
import { noteIntentState } from "./processing";
import type { TaxEvidence, TaxLine } from "../../../shared/tax";
import { taxAtConfirm } from "../tax/confirm-tax";
import { taxBehaviorOf } from "./checkout";

export type ConfirmInput = {
  paymentIntentId: string;
  confirmationToken: string;
  email: string | null;
  buyerKey: string | undefined;
  clientHash: string | null;
  /** Where the edge places the buyer now (used only where the checkout has no estimate yet). */
  edge?: TaxEvidence["edge"];
};

type StripeFailure = { type?: string; message?: string; code?: string; payment_intent?: Stripe.PaymentIntent };

/** Confirms the browser's own pending checkout with its token; answers Stripe's status, or throws what the buyer is shown. */
export async function confirmCheckout(
  deps: PurchaseDeps,
  input: ConfirmInput,
  now = Date.now(),
): Promise<
  | { paymentIntent: string; status: string }
  /** The tax at the billing address changed the total: nothing was charged; the buyer is shown it and pays again. */
  | { changed: { amountCents: number; tax: TaxLine } }
> {
  const purchase = input.buyerKey
    ? await claimedPurchase(deps, { buyerKey: input.buyerKey }, { paymentIntentId: input.paymentIntentId })
    : null;
  if (purchase?.status !== "pending" || purchase.bumpOf || purchase.parentPurchaseId)
    throw notFound("No open checkout");

  const token = await deps.stripe.confirmationTokens.retrieve(input.confirmationToken).catch((err) => {
    if (isUnknownObject(err)) throw new ApiError(400, "confirmationToken: No such payment details; please try again");
    console.error("could not read a ConfirmationToken", err);
    throw new ApiError(502, "Stripe could not be reached. Please try again.");
  });
  if (token.payment_intent || token.setup_intent)
    throw new ApiError(400, "confirmationToken: These payment details were already used; please try again");

  const payer = {
    fingerprint: token.payment_method_preview?.card?.fingerprint ?? null,
    email: (input.email ?? purchase.buyerEmail)?.toLowerCase() ?? null,
    clientHash: input.clientHash,
  };
  // One conditional insert: declines and confirms still in flight count, so confirms sent at once cannot all pass.
  const claim = await claimConfirm(deps.d1, { token: token.id, paymentIntentId: input.paymentIntentId, payer }, now);
  if (claim !== "sent") throw new ApiError(429, DECLINE_LIMIT_MESSAGES[claim]);

  // The billing address decides the tax (docs/tax.md); a total that changed is shown before any charge.
  // The PaymentIntent carries the calculation its amount came from (set with it): it is not named
  // again here, where a change of terms may have set a newer amount and calculation meanwhile.
  try {
    const tax = await taxAtConfirm(
      deps,
      purchase,
      token,
      input.edge ?? { country: null, region: null, postalCode: null },
      () => taxBehaviorOf(deps, purchase.creatorId),
    );
    if ("changed" in tax) {
      await confirmAnswered(deps.d1, token.id);
      return tax;
    }
  } catch (err) {
    await confirmAnswered(deps.d1, token.id);
    throw err;
  }

  const returnUrl = new URL(`/success?content_id=${encodeURIComponent(purchase.contentId)}`, deps.appUrl).href;
  let intent: Stripe.PaymentIntent;
  try {
    intent = await deps.stripe.paymentIntents.confirm(
      input.paymentIntentId,
      {
        confirmation_token: token.id,
        return_url: returnUrl,
        ...(input.email ? { receipt_email: input.email } : {}),
      },
      // Per checkout and token: the same token sent for two checkouts is two requests to Stripe.
      { idempotencyKey: `checkout-confirm:${input.paymentIntentId}:${token.id}` },
    );
  } catch (err) {
    const e = err as StripeFailure;
    if (e.type === "StripeCardError") {
      if (e.payment_intent) await recordDecline(deps.d1, e.payment_intent, payer, now);
      await confirmAnswered(deps.d1, token.id);
      throw new ApiError(402, e.message ?? "Your card was declined.");
    }
    if (e.type === "StripeInvalidRequestError") {
      await confirmAnswered(deps.d1, token.id);
      if (e.code === "payment_intent_unexpected_state")
        throw new ApiError(409, "This checkout is already paid or was changed. Please reload the page.");
      throw new ApiError(400, e.message ?? "Stripe refused these payment details.");
    }
    if (e.type === "StripeIdempotencyError") {
      await confirmAnswered(deps.d1, token.id);
      throw new ApiError(409, "This payment is already being sent with other details. Please reload the page.");
    }
    await confirmAnswered(deps.d1, token.id);
    console.error("could not confirm a checkout", input.paymentIntentId, err);
    throw new ApiError(502, "Stripe could not be reached. Please try again.");
  }
  await confirmAnswered(deps.d1, token.id);
  // Stripe has answered (and may have charged): our own bookkeeping failing must not say otherwise.
  await noteIntentState(deps.d1, intent).catch((err) =>
    console.error("could not note a confirmed checkout's state", intent.id, err),
  );
  return { paymentIntent: intent.id, status: intent.status };
}
