// A Stripe Tax calculation for an order's purchases (main item, order bump, or an upsell alone),
// the tax line a checkout shows from it, and the statements that write each purchase's gross and
// tax and its purchase_taxes row. Behaviour and the decisions where Stripe cannot answer: docs/tax.md.
import type Stripe from "stripe";
import {
  DIGITAL_GOODS_TAX_CODE,
  formatRate,
  pricesIncludeTax,
  type TaxBehavior,
  type TaxEvidence,
  type TaxLine,
  taxLineText,
  VAT_ID_INVALID,
  type VatId,
} from "../../../shared/tax";
import { ApiError } from "../../lib/errors";
import { newId, sha256Hex } from "../../lib/ids";
import type { TaxPlace } from "./evidence";

/** What the checkout says when Stripe Tax cannot answer (an outage): nothing is charged. */
export const TAX_UNAVAILABLE = "Tax could not be calculated. Please try again.";

/** Stripe Tax could not be reached or failed: the caller decides (docs/tax.md, "When Stripe Tax cannot answer"). */
export class TaxUnavailable extends Error {}

/** One purchase of the order and what it charges before tax (after its discount code). */
type TaxItem = { purchaseId: string; amountCents: number };

type TaxedLine = { purchaseId: string; amountCents: number; taxCents: number; netCents: number };

export type OrderTax = {
  /** Stripe's calculation (null when none was made: the buyer could not be located). */
  calculationId: string | null;
  /** The address sent to Stripe Tax; null when none was. */
  place: TaxPlace | null;
  /** Stripe could not locate the buyer from `place` (customer_tax_location_invalid). */
  unlocated: boolean;
  inclusive: boolean;
  lines: TaxedLine[];
  totalCents: number;
  taxCents: number;
  type: string | null;
  ratePercent: string | null;
  reason: string | null;
  country: string | null;
  region: string | null;
  vatId: VatId | null;
};

type Input = {
  currency: string;
  behavior: TaxBehavior;
  place: TaxPlace | null;
  vatId: VatId | null;
  items: TaxItem[];
  /** Names the order in the Idempotency-Key (with a hash of the inputs: the same inputs give the same calculation). */
  key: string;
};

/** The order untaxed: each purchase charges its amount. */
function untaxed(input: Input, unlocated = false): OrderTax {
  const total = input.items.reduce((a, i) => a + i.amountCents, 0);
  return {
    calculationId: null,
    place: input.place,
    unlocated,
    inclusive: pricesIncludeTax(input.behavior, input.place?.country ?? null),
    lines: input.items.map((i) => ({
      purchaseId: i.purchaseId,
      amountCents: i.amountCents,
      taxCents: 0,
      netCents: i.amountCents,
    })),
    totalCents: total,
    taxCents: 0,
    type: null,
    ratePercent: null,
    reason: null,
    country: input.place?.country ?? null,
    region: input.place?.region ?? null,
    vatId: input.vatId,
  };
}

const code = (err: unknown) => (err as { code?: string; type?: string } | null)?.code;
const isInvalidRequest = (err: unknown) => (err as { type?: string } | null)?.type === "StripeInvalidRequestError";

/**
 * Asks Stripe Tax for the order's tax at `place`, one line per purchase (reference = purchase id,
 * the digital-goods tax code, the creator's inclusive or exclusive choice). No place: no call, no tax.
 * Throws TaxUnavailable when Stripe fails; a place Stripe cannot locate comes back untaxed with `unlocated`.
 */
export async function calculateTax(stripe: Stripe, input: Input): Promise<OrderTax> {
  if (!input.place || input.items.length === 0) return untaxed(input);
  const inclusive = pricesIncludeTax(input.behavior, input.place.country);
  const params: Stripe.Tax.CalculationCreateParams = {
    currency: input.currency,
    line_items: input.items.map((i) => ({
      amount: i.amountCents,
      reference: i.purchaseId,
      tax_code: DIGITAL_GOODS_TAX_CODE,
      tax_behavior: inclusive ? "inclusive" : "exclusive",
    })),
    customer_details: {
      address: {
        country: input.place.country,
        ...(input.place.postalCode ? { postal_code: input.place.postalCode } : {}),
        ...(input.place.region ? { state: input.place.region } : {}),
      },
      address_source: "billing",
      ...(input.vatId ? { tax_ids: [{ type: input.vatId.type, value: input.vatId.value }] } : {}),
    },
    expand: ["line_items"],
  };
  let calc: Stripe.Tax.Calculation;
  try {
    const key = `tax-calc:${input.key}:${(await sha256Hex(JSON.stringify(params))).slice(0, 32)}`;
    calc = await stripe.tax.calculations.create(params, { idempotencyKey: key }).catch((err) => {
      // Stripe answers a key's first result again for 24 hours, a 500 included: a failure it replays
      // is asked once more under a key of its own (a calculation moves no money).
      if ((err as { headers?: Record<string, string> } | null)?.headers?.["idempotent-replayed"] !== "true") throw err;
      return stripe.tax.calculations.create(params, { idempotencyKey: `${key}:${newId()}` });
    });
  } catch (err) {
    if (isInvalidRequest(err) && code(err) === "customer_tax_location_invalid") return untaxed(input, true);
    // Stripe's own check of the VAT number's format (ours is shared/tax.ts): the buyer is told the same.
    if (isInvalidRequest(err) && code(err) === "tax_id_invalid") throw new ApiError(400, `vatId: ${VAT_ID_INVALID}`);
    console.error("Stripe Tax could not calculate", input.key, err);
    throw new TaxUnavailable(TAX_UNAVAILABLE);
  }
  if (!calc.id) throw new TaxUnavailable(TAX_UNAVAILABLE);
  let stripeLines = calc.line_items?.data;
  if (!stripeLines || calc.line_items?.has_more) {
    stripeLines = (await stripe.tax.calculations.listLineItems(calc.id, { limit: 100 }).catch(() => null))?.data;
  }
  return orderTaxOf(calc, stripeLines, input.items, inclusive, input.place, input.vatId);
}

/**
 * An order's tax as a calculation Stripe made states it: a line per purchase (by its reference),
 * the rate, type and place of its largest breakdown. Throws TaxUnavailable when a purchase has no line.
 */
export function orderTaxOf(
  calc: Stripe.Tax.Calculation,
  stripeLines: Stripe.Tax.CalculationLineItem[] | undefined,
  items: { purchaseId: string }[],
  inclusive: boolean,
  place: TaxPlace,
  vatId: VatId | null,
): OrderTax {
  const lines = items.map((i) => {
    const l = stripeLines?.find((x) => x.reference === i.purchaseId);
    if (!l) throw new TaxUnavailable(TAX_UNAVAILABLE);
    const gross = inclusive ? l.amount : l.amount + l.amount_tax;
    return { purchaseId: i.purchaseId, amountCents: gross, taxCents: l.amount_tax, netCents: gross - l.amount_tax };
  });
  const breakdown = calc.tax_breakdown ?? [];
  const charged = breakdown.filter((b) => b.amount > 0);
  const main = [...breakdown].sort((a, b) => b.amount - a.amount)[0];
  // US sales tax adds state and local rates: the rate shown is their sum.
  const rate = charged.length
    ? String(Number(charged.reduce((a, b) => a + Number(b.tax_rate_details.percentage_decimal), 0).toFixed(4)))
    : (main?.tax_rate_details.percentage_decimal ?? null);
  const totalTax = lines.reduce((a, l) => a + l.taxCents, 0);
  return {
    calculationId: calc.id,
    place,
    unlocated: false,
    inclusive,
    lines,
    totalCents: lines.reduce((a, l) => a + l.amountCents, 0),
    taxCents: totalTax,
    type:
      totalTax > 0 || main?.taxability_reason === "reverse_charge" ? (main?.tax_rate_details.tax_type ?? null) : null,
    ratePercent: rate,
    reason: main?.taxability_reason ?? null,
    country: main?.tax_rate_details.country ?? place.country,
    region: main?.tax_rate_details.state ?? place.region,
    vatId,
  };
}

const dollars = (cents: number) => cents / 100;

/** The tax line a checkout answers (shared/tax.ts taxLineSchema). */
export function taxLineOf(o: OrderTax): TaxLine {
  const reverseCharge = o.reason === "reverse_charge";
  const rate = o.taxCents > 0 || reverseCharge ? formatRate(o.ratePercent) : null;
  const line = {
    inclusive: o.inclusive,
    type: o.taxCents > 0 || reverseCharge ? o.type : null,
    rate,
    country: o.country,
    region: o.region,
    reverseCharge,
  };
  return {
    ...line,
    amount: dollars(o.taxCents),
    net: dollars(o.totalCents - o.taxCents),
    total: dollars(o.totalCents),
    reason: o.reason,
    text: taxLineText(line, o.taxCents),
  };
}

/** A row of purchase_taxes as stored, read back into an order's tax (one purchase). */
export type PurchaseTaxRow = {
  purchase_id: string;
  calculation_id: string | null;
  country: string | null;
  region: string | null;
  postal_code: string | null;
  tax_type: string | null;
  rate_percent: string | null;
  taxability_reason: string | null;
  inclusive: number;
  net_cents: number;
  tax_cents: number;
  vat_id: string | null;
  vat_id_type: string | null;
  evidence: string;
};

export const purchaseTaxRows = async (d1: D1Database, ids: string[]): Promise<PurchaseTaxRow[]> =>
  ids.length
    ? (
        await d1
          .prepare(`select * from purchase_taxes where purchase_id in (${ids.map(() => "?").join(",")})`)
          .bind(...ids)
          .all<PurchaseTaxRow>()
      ).results
    : [];

/** What a purchase charges before tax added on top: its gross less an exclusive tax. */
export const preTaxCents = (amountCents: number, tax: PurchaseTaxRow | undefined) =>
  tax && !tax.inclusive ? amountCents - tax.tax_cents : amountCents;

/** The VAT number a stored row carries. */
export const vatIdOf = (row: PurchaseTaxRow | undefined | null): VatId | null =>
  row?.vat_id && row.vat_id_type
    ? { type: row.vat_id_type as VatId["type"], value: row.vat_id, country: row.vat_id.slice(0, 2) }
    : null;

/** The place a stored row was taxed at (null: untaxed). */
export const placeOf = (row: PurchaseTaxRow | undefined | null): TaxPlace | null =>
  row?.country ? { country: row.country, region: row.region, postalCode: row.postal_code } : null;

const PENDING = "exists (select 1 from purchases where id = ?1 and status = 'pending')";

/** A purchase_taxes row written as it is (insert, or replace the purchase's), only while its purchase is pending. */
function putTaxRow(d1: D1Database, r: PurchaseTaxRow): D1PreparedStatement {
  return d1
    .prepare(
      `insert into purchase_taxes (purchase_id, calculation_id, country, region, postal_code, tax_type, rate_percent,
         taxability_reason, inclusive, net_cents, tax_cents, vat_id, vat_id_type, evidence, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15 where ${PENDING}
       on conflict (purchase_id) do update set calculation_id = excluded.calculation_id, country = excluded.country,
         region = excluded.region, postal_code = excluded.postal_code, tax_type = excluded.tax_type,
         rate_percent = excluded.rate_percent, taxability_reason = excluded.taxability_reason,
         inclusive = excluded.inclusive, net_cents = excluded.net_cents, tax_cents = excluded.tax_cents,
         vat_id = excluded.vat_id, vat_id_type = excluded.vat_id_type, evidence = excluded.evidence`,
    )
    .bind(
      r.purchase_id,
      r.calculation_id,
      r.country,
      r.region,
      r.postal_code,
      r.tax_type,
      r.rate_percent,
      r.taxability_reason,
      r.inclusive,
      r.net_cents,
      r.tax_cents,
      r.vat_id,
      r.vat_id_type,
      r.evidence,
      Date.now(),
    );
}

const dropTaxRow = (d1: D1Database, purchaseId: string) =>
  d1.prepare(`delete from purchase_taxes where purchase_id = ?1 and ${PENDING}`).bind(purchaseId);

/**
 * Each purchase of the order set to its gross and tax, and its purchase_taxes row written (or, when
 * no calculation was made, removed), all only while the purchase is pending.
 */
export function taxStatements(d1: D1Database, o: OrderTax, evidence: TaxEvidence): D1PreparedStatement[] {
  return o.lines.flatMap((l) => [
    d1
      .prepare("update purchases set amount_cents = ?2, tax_cents = ?3 where id = ?1 and status = 'pending'")
      .bind(l.purchaseId, l.amountCents, l.taxCents),
    o.calculationId
      ? putTaxRow(d1, {
          purchase_id: l.purchaseId,
          calculation_id: o.calculationId,
          country: o.country,
          region: o.region,
          postal_code: o.place?.postalCode ?? null,
          tax_type: o.type,
          rate_percent: o.ratePercent,
          taxability_reason: o.reason,
          inclusive: o.inclusive ? 1 : 0,
          net_cents: l.netCents,
          tax_cents: l.taxCents,
          vat_id: o.vatId?.value ?? null,
          vat_id_type: o.vatId?.type ?? null,
          evidence: JSON.stringify(evidence),
        })
      : dropTaxRow(d1, l.purchaseId),
  ]);
}

type TaxedRow = { id: string; amountCents: number; taxCents: number };

/** Purchases' tax as it was (their gross, tax_cents and purchase_taxes rows): written back when Stripe kept the old amount. */
export function taxRowStatements(d1: D1Database, rows: TaxedRow[], taxes: PurchaseTaxRow[]): D1PreparedStatement[] {
  return rows.flatMap((r) => {
    const t = taxes.find((x) => x.purchase_id === r.id);
    return [
      d1
        .prepare("update purchases set amount_cents = ?2, tax_cents = ?3 where id = ?1 and status = 'pending'")
        .bind(r.id, r.amountCents, r.taxCents),
      t ? putTaxRow(d1, t) : dropTaxRow(d1, r.id),
    ];
  });
}

/** The tax line of an order as its rows say (the first row is the order's main purchase). */
export function taxLineOfRows(rows: TaxedRow[], taxes: PurchaseTaxRow[], fallbackInclusive = true): TaxLine {
  const t = taxes.find((x) => x.purchase_id === rows[0]?.id);
  const place = placeOf(t);
  return taxLineOf({
    calculationId: t?.calculation_id ?? null,
    place,
    unlocated: false,
    inclusive: t ? !!t.inclusive : fallbackInclusive,
    lines: [],
    totalCents: rows.reduce((a, r) => a + r.amountCents, 0),
    taxCents: rows.reduce((a, r) => a + r.taxCents, 0),
    type: t?.tax_type ?? null,
    ratePercent: t?.rate_percent ?? null,
    reason: t?.taxability_reason ?? null,
    country: t?.country ?? null,
    region: t?.region ?? null,
    vatId: vatIdOf(t),
  });
}
