// The buyer's offer calls (worker/routes/upsells.ts). The purchase is proved by the access link
// (or the paying browser's cookie), so every call carries it.
import type { AcceptResult, OfferState, UpsellOffer } from "@shared/funnels";
import type { PurchaseVerification } from "@shared/payments";
import { apiRequest, throwIfResNotOk } from "@/lib/api";

export type Claim = { access?: string; purchaseId?: string };

const query = (claim: Claim) => {
  const q = new URLSearchParams();
  if (claim.access) q.set("access", claim.access);
  if (claim.purchaseId) q.set("purchaseId", claim.purchaseId);
  return q.toString();
};

export async function fetchOffer(claim: Claim): Promise<OfferState> {
  const res = await fetch(`/api/upsell/offer?${query(claim)}`, { credentials: "include" });
  await throwIfResNotOk(res);
  return res.json();
}

export async function fetchOrderExtras(claim: Claim): Promise<PurchaseVerification[]> {
  const res = await fetch(`/api/upsell/order?${query(claim)}`, { credentials: "include" });
  await throwIfResNotOk(res);
  return ((await res.json()) as { items: PurchaseVerification[] }).items;
}

export const acceptOffer = async (claim: Claim, stepId: string, amount?: string): Promise<AcceptResult> =>
  (await apiRequest("POST", "/api/upsell/accept", { ...claim, stepId, amount: amount || undefined })).json();
export const completeOffer = async (claim: Claim, stepId: string): Promise<AcceptResult> => (await apiRequest("POST", "/api/upsell/complete", { ...claim, stepId })).json();
export const declineOffer = async (claim: Claim, stepId: string): Promise<{ next: UpsellOffer | null }> =>
  (await apiRequest("POST", "/api/upsell/decline", { ...claim, stepId })).json();
