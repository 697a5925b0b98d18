// One-click upsells and downsells are taxed on the first purchase's evidence (its purchase_taxes
// row: the place, the VAT number) under the same creator's choice, each with a calculation of its
// own; the offer shows its tax before the buyer accepts. Behaviour: docs/tax.md.
import { pricesIncludeTax, type TaxEvidence, type TaxLine, taxLineText, formatRate } from "../../../shared/tax";
import { ApiError } from "../../lib/errors";
import type { PurchaseDeps, PurchaseRow } from "../purchases/deps";
import { taxBehaviorOf } from "../purchases/checkout";
import {
  calculateTax,
  type OrderTax,
  placeOf,
  purchaseTaxRows,
  TAX_UNAVAILABLE,
  TaxUnavailable,
  vatIdOf,
} from "./calculate";
import { parseEvidence } from "./evidence";

type Item = { userId: string; currency: string };

/** The upsell's tax at the first purchase's place; Stripe Tax down: 502 before anything is created or charged. */
export async function upsellTax(
  deps: PurchaseDeps,
  root: PurchaseRow,
  item: Item,
  line: { purchaseId: string; amountCents: number },
): Promise<{ tax: OrderTax; evidence: TaxEvidence }> {
  const first = (await purchaseTaxRows(deps.d1, [root.id]))[0];
  const before = parseEvidence(first?.evidence);
  const evidence: TaxEvidence = {
    edge: before?.edge ?? { country: null, region: null, postalCode: null },
    billing: before?.billing ?? null,
    cardCountry: before?.cardCountry ?? null,
    decidedBy: "first_purchase",
  };
  const tax = await calculateTax(deps.stripe, {
    currency: item.currency,
    behavior: await taxBehaviorOf(deps, item.userId),
    place: placeOf(first),
    vatId: vatIdOf(first),
    items: [line],
    key: line.purchaseId,
  }).catch((err) => {
    throw err instanceof TaxUnavailable ? new ApiError(502, TAX_UNAVAILABLE) : err;
  });
  return { tax, evidence };
}

/**
 * The offer's tax line before it is accepted, at the first purchase's rate (no call to Stripe for an
 * offer merely shown); the charge's own calculation decides. Null where the first purchase was untaxed.
 */
export async function offerTaxLine(
  deps: PurchaseDeps,
  root: PurchaseRow,
  creatorId: string,
  priceCents: number,
): Promise<TaxLine | null> {
  const first = (await purchaseTaxRows(deps.d1, [root.id]))[0];
  if (!first) return null;
  const inclusive = pricesIncludeTax(await taxBehaviorOf(deps, creatorId), first.country);
  const rate = first.tax_cents > 0 ? Number(first.rate_percent ?? 0) : 0;
  const taxCents = inclusive ? Math.round((priceCents * rate) / (100 + rate)) : Math.round((priceCents * rate) / 100);
  const total = inclusive ? priceCents : priceCents + taxCents;
  const reverseCharge = first.taxability_reason === "reverse_charge";
  const line = {
    inclusive,
    type: taxCents > 0 || reverseCharge ? first.tax_type : null,
    rate: taxCents > 0 || reverseCharge ? formatRate(first.rate_percent) : null,
    country: first.country,
    region: first.region,
    reverseCharge,
  };
  return {
    ...line,
    amount: taxCents / 100,
    net: (total - taxCents) / 100,
    total: total / 100,
    reason: first.taxability_reason,
    text: taxLineText(line, taxCents),
  };
}
