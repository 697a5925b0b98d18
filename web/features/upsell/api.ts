// The buyer's offer calls (worker/routes/upsells.ts). Offers answer only the browser that paid
// (its aw_buyer cookie goes with every call) for the purchase it names, within 30 minutes of
// paying; the order (what was added) may also be read with the purchase's access link.
import { api } from "@/lib/api";

export type Claim = { purchaseId: string };

/** The purchase id an access link names (its part before the signature); the link itself proves nothing to the offer calls. */
export const purchaseIdOfAccess = (access: string | undefined) => {
  const id = access?.split(".")[0];
  return id && /^[A-Za-z0-9]{1,32}$/.test(id) ? id : undefined;
};

export const fetchOffer = (claim: Claim) => api("GET /api/upsell/offer", { query: { purchaseId: claim.purchaseId } });

export const acceptOffer = (claim: Claim, stepId: string, amount?: string) =>
  api("POST /api/upsell/accept", { body: { ...claim, stepId, amount: amount || undefined } });
export const completeOffer = (claim: Claim, stepId: string) =>
  api("POST /api/upsell/complete", { body: { ...claim, stepId } });
export const declineOffer = (claim: Claim, stepId: string) =>
  api("POST /api/upsell/decline", { body: { ...claim, stepId } });
