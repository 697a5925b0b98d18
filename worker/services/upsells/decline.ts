// Declining an upsell offer ("No thanks", or skipping after a declined card). While an accept holds
// the claim, the decline voids it: before the upsell's purchase exists, one statement declines the
// claim; after, its PaymentIntent is cancelled and Stripe decides. Either way one outcome, never both.
// Behaviour: docs/funnels.md (Funnels and upsells).
import type { UpsellOffer } from "../../../shared/funnels";
import { ApiError, notFound } from "../../lib/errors";
import type { PurchaseDeps } from "../purchases/deps";
import { paid, voidIntent } from "./charge";
import { nextOffer } from "./offer";
import {
  ALREADY_PAID,
  failPurchase,
  move,
  type OfferRow,
  type PurchaseRow,
  readOffer,
  readPurchase,
  transition,
} from "./offer-state";

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
