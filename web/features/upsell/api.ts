// The buyer's offer calls (worker/routes/upsells.ts). Offers answer only the browser that paid
// (its aw_buyer cookie goes with every call) for the purchase it names, within 30 minutes of
// paying; the order (what was added) may also be read with the purchase's access link.
import type { AcceptResult, OfferState, OrderSummary, UpsellOffer } from "@shared/funnels";
import type { PurchaseVerification } from "@shared/payments";
import { apiRequest, throwIfResNotOk } from "@/lib/api";

export type Claim = { purchaseId: string };

/** The purchase id an access link names (its part before the signature); the link itself proves nothing to the offer calls. */
export const purchaseIdOfAccess = (access: string | undefined) => {
  const id = access?.split(".")[0];
  return id && /^[A-Za-z0-9]{1,32}$/.test(id) ? id : undefined;
};

export async function fetchOffer(claim: Claim): Promise<OfferState> {
  const res = await fetch(`/api/upsell/offer?${new URLSearchParams({ purchaseId: claim.purchaseId })}`, {
    credentials: "include",
  });
  await throwIfResNotOk(res);
  return res.json();
}

export async function fetchOrderExtras(claim: {
  access?: string;
  purchaseId?: string;
}): Promise<{ items: PurchaseVerification[]; order: OrderSummary }> {
  const q = new URLSearchParams();
  if (claim.access) q.set("access", claim.access);
  if (claim.purchaseId) q.set("purchaseId", claim.purchaseId);
  const res = await fetch(`/api/upsell/order?${q}`, { credentials: "include" });
  await throwIfResNotOk(res);
  return res.json();
}

export const acceptOffer = async (claim: Claim, stepId: string, amount?: string): Promise<AcceptResult> =>
  (await apiRequest("POST", "/api/upsell/accept", { ...claim, stepId, amount: amount || undefined })).json();
export const completeOffer = async (claim: Claim, stepId: string): Promise<AcceptResult> =>
  (await apiRequest("POST", "/api/upsell/complete", { ...claim, stepId })).json();
export const declineOffer = async (claim: Claim, stepId: string): Promise<{ next: UpsellOffer | null }> =>
  (await apiRequest("POST", "/api/upsell/decline", { ...claim, stepId })).json();
