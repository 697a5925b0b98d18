// The tax of a checkout's new terms (a code, the order bump, a VAT number): at the place the
// checkout was taxed at (the billing address once a confirm saw it), else where the edge places the
// buyer now; the VAT number kept unless one is given. Behaviour: docs/tax.md.
import type { TaxEvidence, VatId } from "../../../shared/tax";
import { ApiError } from "../../lib/errors";
import { taxBehaviorOf } from "../purchases/checkout";
import type { PurchaseDeps } from "../purchases/deps";
import {
  calculateTax,
  type OrderTax,
  type PurchaseTaxRow,
  placeOf,
  TAX_UNAVAILABLE,
  TaxUnavailable,
  vatIdOf,
} from "./calculate";
import { edgePlace, parseEvidence } from "./evidence";

export async function termsTax(
  deps: PurchaseDeps,
  input: {
    item: { currency: string; userId: string };
    /** The main purchase's purchase_taxes row (none: not taxed yet). */
    stored: PurchaseTaxRow | undefined;
    edge: TaxEvidence["edge"] | undefined;
    /** Undefined: the checkout's own. */
    vatId: VatId | null | undefined;
    items: { purchaseId: string; amountCents: number }[];
    key: string;
  },
): Promise<{ tax: OrderTax; evidence: TaxEvidence }> {
  const edge = input.edge ?? { country: null, region: null, postalCode: null };
  const evidence: TaxEvidence = parseEvidence(input.stored?.evidence) ?? {
    edge,
    billing: null,
    cardCountry: null,
    decidedBy: "edge",
  };
  const tax = await calculateTax(deps.stripe, {
    currency: input.item.currency,
    // At the place it was taxed at, the checkout keeps the inclusive or exclusive price it opened with
    // (a creator's change applies to checkouts started after it).
    behavior: input.stored
      ? input.stored.inclusive
        ? "inclusive"
        : "exclusive"
      : await taxBehaviorOf(deps, input.item.userId),
    place: input.stored ? placeOf(input.stored) : edgePlace(edge),
    vatId: input.vatId === undefined ? vatIdOf(input.stored) : input.vatId,
    items: input.items,
    key: input.key,
  }).catch((err) => {
    throw err instanceof TaxUnavailable ? new ApiError(502, TAX_UNAVAILABLE) : err;
  });
  return { tax, evidence };
}
