// An upsell offer's row in funnel_offers and the only moves it can make, each one conditional update
// (`where status = ?`) so two requests at once cannot both win; the reads and messages the offer's
// other files share. Behaviour: docs/funnels.md (Funnels and upsells).
import { and, eq } from "drizzle-orm";
import { type content, funnelOffers, type funnelSteps, purchases } from "../../db/schema";
import type { PurchaseDeps } from "../purchases/deps";

export type PurchaseRow = typeof purchases.$inferSelect;
export type StepRow = typeof funnelSteps.$inferSelect;
export type ItemRow = typeof content.$inferSelect;
export type OfferRow = typeof funnelOffers.$inferSelect;
type OfferStatus = OfferRow["status"];

export const PAID_LIKE = ["paid", "refunded", "disputed"];
export const DECLINED = "This offer was declined";
export const ALREADY_PAID = "This offer was already paid";
export const NOT_AVAILABLE = "This offer is not available";
export const CARD_GONE = "The card you paid with can no longer be charged.";

/**
 * The offer's state machine, the only moves there are. 'shown' is the offered state (the column's
 * default since migration 0003). A failed offer is not retried: the card that paid has just
 * declined it, and the buyer can skip it; accepting a declined offer is a 409.
 */
const OFFER_TRANSITIONS = {
  shown: ["accepting", "declined"],
  // → declined only once Stripe has cancelled the claim's PaymentIntent (or before it existed).
  accepting: ["paid", "failed", "declined"],
  failed: ["declined"],
  paid: [],
  declined: [],
} as const satisfies Record<OfferStatus, readonly OfferStatus[]>;

export function checkMove(from: OfferStatus, to: OfferStatus) {
  if (!(OFFER_TRANSITIONS[from] as readonly OfferStatus[]).includes(to))
    throw new Error(`an offer cannot go from ${from} to ${to}`);
}

/** One conditional move of the offer; its statement changes a row only if the offer was still in `from`. */
export function transition(
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
export async function move(
  deps: PurchaseDeps,
  offer: Pick<OfferRow, "parentPurchaseId" | "stepId">,
  from: OfferStatus,
  to: OfferStatus,
): Promise<boolean> {
  return ((await transition(deps, offer, from, to).all()).results?.length ?? 0) > 0;
}
export const failPurchase = (deps: PurchaseDeps, purchaseId: string) =>
  deps.d1.prepare("update purchases set status = 'failed' where id = ? and status = 'pending'").bind(purchaseId);

export const readOffer = (deps: PurchaseDeps, rootId: string, stepId: string) =>
  deps.db
    .select()
    .from(funnelOffers)
    .where(and(eq(funnelOffers.parentPurchaseId, rootId), eq(funnelOffers.stepId, stepId)))
    .get();
export const readPurchase = (deps: PurchaseDeps, id: string | null) =>
  id ? deps.db.select().from(purchases).where(eq(purchases.id, id)).get() : Promise.resolve(undefined);
