// The tax of a checkout at confirm: the card's billing address from the ConfirmationToken decides
// the place (the edge's guess stays as evidence), the calculation is made again where it moved, and
// a total that changed is set on the PaymentIntent and shown to the buyer before anything is
// charged. Behaviour: docs/tax.md ("Where the buyer is", "When Stripe Tax cannot answer").
import type Stripe from "stripe";
import { parseVatId, type TaxEvidence, type TaxLine } from "../../../shared/tax";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import type { PurchaseDeps, PurchaseRow } from "../purchases/deps";
import { bumpsOf } from "../purchases/fulfil";
import {
  calculateTax,
  placeOf,
  preTaxCents,
  purchaseTaxRows,
  TAX_UNAVAILABLE,
  TaxUnavailable,
  taxLineOf,
  taxStatements,
  vatIdOf,
} from "./calculate";
import { billingPlace, edgePlace, parseEvidence, tokenEvidence } from "./evidence";

const BILLING_UNLOCATED =
  "Tax could not be calculated for this billing address. Please check its country and postal code.";
export const TOTAL_CHANGED = "The tax for your billing address changed the total. Please check it and press Pay again.";

export type ConfirmTax =
  /** Confirm as the PaymentIntent is: it carries the calculation its amount came from (or none: untaxed). */
  | { calculationId: string | null }
  /** The total changed: the PaymentIntent and rows now say `amountCents`; nothing was charged. */
  | { changed: { amountCents: number; tax: TaxLine } };

const sameBilling = (a: TaxEvidence["billing"], b: TaxEvidence["billing"]) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Settles the tax of pending checkout `main` on the token's billing address before it is confirmed.
 * Throws 400 (an address Stripe cannot place), 409 (the PaymentIntent moved on) or 502 (Stripe Tax
 * or Stripe could not answer: nothing is charged).
 */
export async function taxAtConfirm(
  deps: PurchaseDeps,
  main: PurchaseRow,
  token: Stripe.ConfirmationToken,
  requestEdge: TaxEvidence["edge"],
  behavior: () => Promise<"auto" | "inclusive" | "exclusive">,
): Promise<ConfirmTax> {
  const bumps = await bumpsOf(deps, main.id);
  const rows = [main, ...bumps];
  const taxes = await purchaseTaxRows(
    deps.d1,
    rows.map((r) => r.id),
  );
  const stored = taxes.find((t) => t.purchase_id === main.id);
  const before = parseEvidence(stored?.evidence);
  const { billing, cardCountry } = tokenEvidence(token);
  const edge = before?.edge ?? requestEdge;
  const fromBilling = billingPlace(billing);
  if (billing && !fromBilling) throw new ApiError(400, BILLING_UNLOCATED);
  // Nothing new to decide on: the estimate stands (or the checkout stays untaxed where nothing places the buyer).
  if (!fromBilling && (stored || !edgePlace(edge))) return { calculationId: stored?.calculation_id ?? null };
  if (fromBilling && stored && before?.decidedBy === "billing" && sameBilling(before.billing, billing))
    return { calculationId: stored.calculation_id };

  const evidence: TaxEvidence = { edge, billing, cardCountry, decidedBy: fromBilling ? "billing" : "edge" };
  // A checkout never placed has no row to carry its VAT number: its PaymentIntent's metadata does.
  const vatId = stored
    ? vatIdOf(stored)
    : parseVatId(
        (
          await deps.stripe.paymentIntents.retrieve(main.paymentIntentId!).catch((err) => {
            console.error("could not read a checkout's PaymentIntent", main.paymentIntentId, err);
            throw new ApiError(502, "Stripe could not be reached. Please try again.");
          })
        ).metadata?.vatId ?? "",
      );
  const tax = await calculateTax(deps.stripe, {
    currency: main.currency,
    behavior: await behavior(),
    place: fromBilling ?? placeOf(stored) ?? edgePlace(edge),
    vatId,
    items: rows.map((r) => ({
      purchaseId: r.id,
      amountCents: preTaxCents(
        r.amountCents,
        taxes.find((t) => t.purchase_id === r.id),
      ),
    })),
    key: main.id,
  }).catch((err) => {
    throw err instanceof TaxUnavailable ? new ApiError(502, TAX_UNAVAILABLE) : err;
  });
  if (tax.unlocated && fromBilling) throw new ApiError(400, BILLING_UNLOCATED);

  const totalBefore = rows.reduce((a, r) => a + r.amountCents, 0);
  const changed = tax.totalCents !== totalBefore;
  // The amount and the calculation are set together (never the calculation alone at confirm): a
  // change of terms landing meanwhile sets both too, so whatever is charged carries its own calculation.
  if (changed || tax.calculationId !== (stored?.calculation_id ?? null)) {
    // The PaymentIntent first (it is what is charged), then the rows it now agrees with.
    const bump = bumps[0];
    const mainLine = tax.lines.find((l) => l.purchaseId === main.id)!;
    const bumpLine = bump ? tax.lines.find((l) => l.purchaseId === bump.id) : undefined;
    try {
      await deps.stripe.paymentIntents.update(
        main.paymentIntentId!,
        {
          amount: tax.totalCents,
          ...(tax.calculationId || stored
            ? { hooks: { inputs: { tax: { calculation: tax.calculationId ?? "" } } } }
            : {}),
          metadata: {
            mainCents: String(mainLine.amountCents),
            discountCents: String(main.discountCents),
            discountCodeId: main.discountCodeId ?? "",
            bumpCents: bumpLine ? String(bumpLine.amountCents) : "",
            mainTaxCents: String(mainLine.taxCents),
            bumpTaxCents: bumpLine ? String(bumpLine.taxCents) : "",
            taxCalculation: tax.calculationId ?? "",
          },
        },
        { idempotencyKey: `checkout-tax:${main.id}:${newId()}` },
      );
    } catch (err) {
      if ((err as { code?: string }).code === "payment_intent_unexpected_state")
        throw new ApiError(409, "This checkout is already paid or was changed. Please reload the page.");
      console.error("could not set a checkout's taxed amount", main.paymentIntentId, err);
      throw new ApiError(502, "Stripe could not be reached. Please try again.");
    }
  }
  await deps.d1.batch(taxStatements(deps.d1, tax, evidence));
  if (changed) return { changed: { amountCents: tax.totalCents, tax: taxLineOf(tax) } };
  return { calculationId: tax.calculationId };
}
