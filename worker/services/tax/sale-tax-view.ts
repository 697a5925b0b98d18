// A sale's tax as the creator's screens, the CSV export, the public API and the webhooks show it:
// gross (what the buyer paid), tax and net apart. Decisions: docs/tax.md ("What the creator sees").
import { type SQL, sql } from "drizzle-orm";
import type { SaleTax } from "../../../shared/tax-settings";
import { formatRate } from "../../../shared/tax";
import { purchases } from "../../db/schema";

/** A purchase_taxes row as the JSON `saleTax` reads. */
export const TAX_DETAILS_JSON =
  "json_object('type', tax_type, 'rate', rate_percent, 'country', country, 'region', region, 'reason', taxability_reason)";

/** One subquery per sale: its purchase_taxes row as JSON (null when the sale had no tax calculation). */
export const taxDetailsColumn: SQL<string | null> = sql<
  string | null
>`(select ${sql.raw(TAX_DETAILS_JSON)} from purchase_taxes where purchase_id = ${purchases.id})`;

type Details = {
  type: string | null;
  rate: string | null;
  country: string | null;
  region: string | null;
  reason: string | null;
};

/** The tax in cents as webhooks carry it; null for a sale with no tax and no reverse charge (shown as before tax existed). */
export function saleTaxCents(amountCents: number, taxCents: number | null, detailsJson: string | null) {
  const tax = Number(taxCents ?? 0);
  const d: Details | null = detailsJson ? JSON.parse(detailsJson) : null;
  const reverseCharge = d?.reason === "reverse_charge";
  if (tax <= 0 && !reverseCharge) return null;
  return {
    amountCents: tax,
    netCents: amountCents - tax,
    type: d?.type ?? null,
    rate: formatRate(d?.rate ?? null),
    country: d?.country ?? null,
    region: d?.region ?? null,
    reverseCharge,
  };
}

/** The same in dollars, as every API answer gives money. */
export function saleTax(amountCents: number, taxCents: number | null, detailsJson: string | null): SaleTax | null {
  const t = saleTaxCents(amountCents, taxCents, detailsJson);
  if (!t) return null;
  const { amountCents: tax, netCents: net, ...rest } = t;
  return { amount: tax / 100, net: net / 100, ...rest };
}
