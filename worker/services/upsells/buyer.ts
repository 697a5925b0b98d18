// Who may act on an order's offers (only the browser that paid, within UPSELL_WINDOW_MINUTES of
// paying: the access link is forwarded and mistyped, and the card is not its holder's) and who may
// read the order (that browser, or the access link's holder). Behaviour: docs/funnels.md.
import { and, eq } from "drizzle-orm";
import { UPSELL_WINDOW_MINUTES } from "../../../shared/funnels";
import { purchases } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { sha256Hex } from "../../lib/ids";
import { purchaseIdFromToken } from "../purchases/access-tokens";
import type { PurchaseDeps } from "../purchases/deps";
import { syncWithStripe } from "../purchases/fulfil";
import { type PurchaseRow, readPurchase } from "./offer-state";

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
