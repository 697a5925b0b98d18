// Accepting an upsell offer: the amount, decided by the server and only under the terms the buyer
// was shown; the claim of the offer's row (shown → accepting), which names the upsell's own
// purchase; then the charge (./charge.ts). Completing an accept the bank wanted confirmed on-session.
// Behaviour: docs/funnels.md (Funnels and upsells).
import { formatCentsPlain } from "../../../shared/money";
import { MIN_PRICE_CENTS } from "../../../shared/pricing";
import { dollarsToCents } from "../../../shared/content";
import { type AcceptResult, OFFER_CHANGED_MESSAGE } from "../../../shared/funnels";
import { ApiError, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { PurchaseDeps } from "../purchases/deps";
import { applyVariant } from "../funnels/ab-tests";
import { follow } from "./charge";
import { currentStep, funnelState, itemsOf, shownTerms, type Terms, termsOf } from "./offer";
import { checkMove, NOT_AVAILABLE, type PurchaseRow, readOffer } from "./offer-state";

const offerChanged = () => new ApiError(409, OFFER_CHANGED_MESSAGE);
const dollars = formatCentsPlain;

/**
 * The amount of an accepted offer, decided here and only under the terms the buyer was shown: the
 * fixed price, if it is still the price; or a tip the buyer may ask for under what was shown (else
 * 400, as the page said) that the current terms also allow (else 409). Without an amount, a tip is
 * the shown minimum, if that is still allowed.
 */
function amountFor(shown: Terms, now: Terms, amount: unknown): number {
  if ((shown.minimumCents === null) !== (now.minimumCents === null)) throw offerChanged();
  if (
    shown.minimumCents === null ||
    shown.maximumCents === null ||
    now.minimumCents === null ||
    now.maximumCents === null
  ) {
    if (now.priceCents !== shown.priceCents) throw offerChanged();
    if (now.priceCents < MIN_PRICE_CENTS)
      throw new ApiError(400, `Card payments must be at least ${dollars(MIN_PRICE_CENTS)}`);
    return now.priceCents;
  }
  let cents = shown.minimumCents;
  if (amount !== undefined && amount !== null && amount !== "") {
    cents = dollarsToCents(String(amount));
    if (!Number.isFinite(cents)) throw new ApiError(400, "Amount must be a number with at most two decimals");
    if (cents < shown.minimumCents) throw new ApiError(400, `Minimum amount is ${dollars(shown.minimumCents)}`);
    if (cents > shown.maximumCents) throw new ApiError(400, `Maximum amount is ${dollars(shown.maximumCents)}`);
  }
  if (cents < now.minimumCents || cents > now.maximumCents) throw offerChanged();
  return cents;
}

/**
 * Accepts the offer of `stepId`: claims it, then charges the card that paid, off-session, once. A
 * repeat (double click, retry after a crash) finds the claim and carries on from where Stripe says
 * the charge is, so the card is charged at most once.
 */
export async function acceptOffer(
  deps: PurchaseDeps,
  root: PurchaseRow,
  stepId: string,
  amount: unknown,
): Promise<AcceptResult> {
  let offer = await readOffer(deps, root.id, stepId);
  if (!offer || offer.status === "shown") {
    const state = await funnelState(deps, root);
    if (!state) throw new ApiError(409, NOT_AVAILABLE);
    const items = await itemsOf(deps, state.steps);
    const current = currentStep(state, items);
    if (!current || current.id !== stepId) throw new ApiError(409, NOT_AVAILABLE);
    const shown = shownTerms(offer);
    if (!shown) throw offerChanged();
    // The terms now are those of the buyer's own variant, the one they were shown.
    const { step } = await applyVariant(deps.d1, current, root.id);
    const amountCents = amountFor(shown, termsOf(step, items.get(step.contentId!)!), amount);
    // shown → accepting, under the terms just checked: whichever request moves the row first names the
    // purchase; the others follow it. A reload that rewrote the terms meanwhile leaves the row shown.
    checkMove("shown", "accepting");
    await deps.d1
      .prepare(
        `update funnel_offers set status = 'accepting', purchase_id = ?, amount_cents = ?, decided_at = ?
         where parent_purchase_id = ? and step_id = ? and status = 'shown' and purchase_id is null
         and shown_price_cents is ? and shown_minimum_cents is ? and shown_maximum_cents is ?`,
      )
      .bind(newId(), amountCents, Date.now(), root.id, stepId, shown.priceCents, shown.minimumCents, shown.maximumCents)
      .run();
    offer = await readOffer(deps, root.id, stepId);
    if (offer?.status === "shown") throw offerChanged();
  }
  if (!offer) throw new ApiError(409, NOT_AVAILABLE);
  return follow(deps, root, offer);
}

/** After the buyer authenticated on-session: asks Stripe where the charge is and settles it. Confirms nothing. */
export async function completeOffer(deps: PurchaseDeps, root: PurchaseRow, stepId: string): Promise<AcceptResult> {
  const offer = await readOffer(deps, root.id, stepId);
  if (!offer || offer.status === "shown") throw notFound("Offer not found");
  return follow(deps, root, offer, { confirm: false });
}
