// The tax a succeeded PaymentIntent charged, from the calculation it carries, when its order's rows
// name another one (a confirm that moved them and never reached Stripe, then a payment straight at
// Stripe): fulfilment books and records Stripe's figures, never the rows'. docs/tax.md ("Ledger and reversals").
import type Stripe from "stripe";
import type { TaxEvidence, VatId } from "../../../shared/tax";
import { type OrderTax, orderTaxOf, purchaseTaxRows, taxStatements } from "./calculate";

type Deps = { d1: D1Database; stripe: Stripe };
type Part = { id: string; amountCents: number };

/**
 * Null when the PaymentIntent carries no calculation or every purchase's row names the one it
 * carries (the common case: one D1 read, no Stripe call). Otherwise that calculation as an order's
 * tax, and the statements that write it to the rows (only while pending: placed before the batch's
 * paid update). Null too when Stripe cannot say or its lines do not match the parts' amounts (the
 * rows stand, as before).
 */
export async function chargedTax(
  deps: Deps,
  intent: Stripe.PaymentIntent,
  parts: Part[],
): Promise<{ tax: OrderTax; statements: D1PreparedStatement[] } | null> {
  const calculationId = (intent as { hooks?: { inputs?: { tax?: { calculation?: string | null } } } | null }).hooks
    ?.inputs?.tax?.calculation;
  if (!calculationId) return null;
  const rows = await purchaseTaxRows(
    deps.d1,
    parts.map((p) => p.id),
  );
  if (parts.every((p) => rows.some((r) => r.purchase_id === p.id && r.calculation_id === calculationId))) return null;
  try {
    const calc = await deps.stripe.tax.calculations.retrieve(calculationId, { expand: ["line_items"] });
    const lines = calc.line_items?.has_more
      ? (await deps.stripe.tax.calculations.listLineItems(calculationId, { limit: 100 })).data
      : calc.line_items?.data;
    const address = calc.customer_details.address;
    if (!address?.country) return null;
    const taxId = calc.customer_details.tax_ids?.[0];
    const first = lines?.find((l) => l.reference === parts[0].id);
    const tax = orderTaxOf(
      calc,
      lines,
      parts.map((p) => ({ purchaseId: p.id })),
      first?.tax_behavior === "inclusive",
      { country: address.country, region: address.state ?? null, postalCode: address.postal_code ?? null },
      taxId ? { type: taxId.type as VatId["type"], value: taxId.value, country: taxId.value.slice(0, 2) } : null,
    );
    if (tax.lines.some((l) => parts.find((p) => p.id === l.purchaseId)?.amountCents !== l.amountCents)) return null;
    const main = rows.find((r) => r.purchase_id === parts[0].id);
    const evidence = (main ? JSON.parse(main.evidence) : {}) as TaxEvidence;
    console.error(
      "a paid order's rows name another tax calculation than it was charged with; using Stripe's",
      intent.id,
    );
    return { tax, statements: taxStatements(deps.d1, tax, evidence) };
  } catch (err) {
    console.error("could not read the tax calculation a payment carried; the rows' tax stands", intent.id, err);
    return null;
  }
}
