// The tax preview on /settings: for one price and one choice of tax-inclusive prices, what a buyer
// in each of a few places pays and what the creator earns (net minus the 20 % / 0 % fee). Stripe Tax
// computes each place, as at checkout; its figures are cached in KV per (price, choice) for a day
// (the creator's plan and so the fee are applied after, per creator). docs/tax.md "What the creator sees".
import type Stripe from "stripe";
import { PLATFORM_FEE_PERCENT } from "../../../shared/pricing";
import {
  DIGITAL_GOODS_TAX_CODE,
  parseVatId,
  pricesIncludeTax,
  taxLineText,
  type TaxBehavior,
} from "../../../shared/tax";
import { PREVIEW_BUYERS, TAX_SETTINGS_MESSAGES, type TaxPreview } from "../../../shared/tax-settings";
import { ApiError } from "../../lib/errors";

const CACHE_SECONDS = 24 * 60 * 60;
const cacheKey = (priceCents: number, behavior: TaxBehavior) => `tax-preview:v1:${priceCents}:${behavior}`;

/** What Stripe said for one place: enough to rebuild the row for any plan. */
type Place = {
  id: string;
  buyer: string;
  totalCents: number;
  taxCents: number;
  inclusive: boolean;
  type: string | null;
  rate: string | null;
  country: string | null;
  region: string | null;
  reverseCharge: boolean;
};

/** `beforeStripe` runs on a cache miss only, before Stripe is asked (the route's per-creator limit: it may throw 429). */
export type PreviewDeps = { stripe: () => Stripe; kv: KVNamespace; beforeStripe?: () => Promise<void> };

/** One Stripe Tax calculation for a buyer of the preview, the same request checkout makes for a real buyer. */
async function calculate(
  stripe: Stripe,
  priceCents: number,
  behavior: TaxBehavior,
  buyer: (typeof PREVIEW_BUYERS)[number],
) {
  const inclusive = pricesIncludeTax(behavior, buyer.country);
  const vat = buyer.vatId ? parseVatId(buyer.vatId) : null;
  const calc = await stripe.tax.calculations.create({
    currency: "usd",
    line_items: [
      {
        amount: priceCents,
        reference: "preview",
        tax_code: DIGITAL_GOODS_TAX_CODE,
        tax_behavior: inclusive ? "inclusive" : "exclusive",
      },
    ],
    customer_details: {
      address: {
        country: buyer.country,
        postal_code: buyer.postalCode,
        ...(buyer.region ? { state: buyer.region } : {}),
      },
      address_source: "billing",
      ...(vat ? { tax_ids: [{ type: vat.type, value: vat.value }] } : {}),
    },
  });
  const taxCents = calc.tax_amount_exclusive + calc.tax_amount_inclusive;
  const taxed = calc.tax_breakdown.filter((b) => b.amount > 0);
  const first = taxed[0] ?? calc.tax_breakdown[0];
  const rate = taxed.length
    ? String(taxed.reduce((a, b) => a + Number(b.tax_rate_details.percentage_decimal), 0))
    : null;
  const place: Place = {
    id: buyer.id,
    buyer: buyer.label,
    totalCents: calc.amount_total,
    taxCents,
    inclusive,
    type: taxCents > 0 ? (first?.tax_rate_details.tax_type ?? null) : null,
    rate,
    country: first?.tax_rate_details.country ?? buyer.country,
    region: first?.tax_rate_details.state ?? buyer.region,
    reverseCharge: calc.tax_breakdown.some((b) => b.taxability_reason === "reverse_charge"),
  };
  return place;
}

async function places(deps: PreviewDeps, priceCents: number, behavior: TaxBehavior): Promise<Place[]> {
  const key = cacheKey(priceCents, behavior);
  const cached = await deps.kv.get<Place[]>(key, "json").catch(() => null);
  if (cached) return cached;
  await deps.beforeStripe?.();
  let fresh: Place[];
  try {
    const stripe = deps.stripe();
    fresh = await Promise.all(PREVIEW_BUYERS.map((b) => calculate(stripe, priceCents, behavior, b)));
  } catch (err) {
    console.error("tax preview: Stripe Tax failed", { priceCents, behavior, err: String(err) });
    throw new ApiError(502, TAX_SETTINGS_MESSAGES.unavailable);
  }
  // The cache only saves calculations: a write KV refuses (one a second per key) must not fail the answer.
  await deps.kv
    .put(key, JSON.stringify(fresh), { expirationTtl: CACHE_SECONDS })
    .catch((err) => console.warn("tax preview: could not cache", key, String(err)));
  return fresh;
}

/** The preview for a creator on `plan`: each buyer's payment, its tax, the net, ApeWall's fee on the net, and the creator's earnings. */
export async function taxPreview(
  deps: PreviewDeps,
  priceCents: number,
  behavior: TaxBehavior,
  plan: "free" | "pro",
): Promise<TaxPreview> {
  const feePercent = plan === "pro" ? 0 : PLATFORM_FEE_PERCENT;
  const rows = (await places(deps, priceCents, behavior)).map((p) => {
    const netCents = p.totalCents - p.taxCents;
    // As the ledger books a sale: the fee on the net, rounded to the cent.
    const feeCents = Math.round((netCents * feePercent) / 100);
    return {
      id: p.id,
      buyer: p.buyer,
      buyerPays: p.totalCents / 100,
      tax: p.taxCents / 100,
      net: netCents / 100,
      fee: feeCents / 100,
      earns: (netCents - feeCents) / 100,
      inclusive: p.inclusive,
      reverseCharge: p.reverseCharge,
      taxLine: taxLineText(p, p.taxCents),
    };
  });
  return { price: priceCents / 100, behavior, feePercent, rows };
}
