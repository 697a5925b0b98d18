// Where a buyer is, for tax: the edge's guess from the request (request.cf, or the development
// header that stands in for it), the card's billing address and issuing country from a
// ConfirmationToken, and which of them decides the place of supply. Behaviour: docs/tax.md.
import type Stripe from "stripe";
import type { TaxEvidence } from "../../../shared/tax";

/** A place Stripe Tax can be asked about: an ISO country, and the US state / postal code where they matter. */
export type TaxPlace = { country: string; region: string | null; postalCode: string | null };

type Edge = TaxEvidence["edge"];
type Billing = NonNullable<TaxEvidence["billing"]>;

export const DEV_GEO_HEADER = "x-apewall-dev-geo";

const NO_EDGE: Edge = { country: null, region: null, postalCode: null };
/** Cloudflare's codes for no country: unknown, Tor. */
const NOT_A_COUNTRY = new Set(["XX", "T1"]);

const text = (v: unknown, max: number): string | null =>
  typeof v === "string" && v.trim() !== "" && v.length <= max ? v.trim().toUpperCase() : null;
const country = (v: unknown): string | null => {
  const c = text(v, 2);
  return c && /^[A-Z]{2}$/.test(c) && !NOT_A_COUNTRY.has(c) ? c : null;
};

/**
 * The edge's guess: Cloudflare's `request.cf` (country, regionCode, postalCode). In development the
 * header `x-apewall-dev-geo: FR` or `US-WA-98101` stands in for it, and request.cf is not read: a
 * local run's is made up (wrangler dev's fallback is Austin, Texas), not the buyer's.
 */
export function edgeEvidence(cf: unknown, devHeader: string | undefined, development: boolean): Edge {
  if (development) {
    const m = /^([A-Za-z]{2})(?:-([A-Za-z0-9]{1,3}))?(?:-([A-Za-z0-9 ]{3,10}))?$/.exec(devHeader?.trim() ?? "");
    return m ? { country: country(m[1]), region: text(m[2], 3), postalCode: text(m[3], 10) } : NO_EDGE;
  }
  const geo = (cf ?? {}) as { country?: unknown; regionCode?: unknown; postalCode?: unknown };
  const c = country(geo.country);
  return c ? { country: c, region: text(geo.regionCode, 3), postalCode: text(geo.postalCode, 10) } : NO_EDGE;
}

/** What a ConfirmationToken says of the payer: its billing address (null when it has no country) and the card's country. */
export function tokenEvidence(token: Stripe.ConfirmationToken): {
  billing: Billing | null;
  cardCountry: string | null;
} {
  const preview = token.payment_method_preview;
  const address = preview?.billing_details?.address;
  const c = country(address?.country);
  return {
    billing: c ? { country: c, postalCode: text(address?.postal_code, 10), state: text(address?.state, 3) } : null,
    cardCountry: country(preview?.card?.country),
  };
}

/**
 * Whether Stripe Tax can locate a buyer from this much: a country, and for the US a postal code
 * (Stripe answers `customer_tax_location_invalid` without one) and for Canada a postal code or province.
 */
function locatable(p: { country: string | null; region: string | null; postalCode: string | null }) {
  if (!p.country) return null;
  if (p.country === "US" && !p.postalCode) return null;
  if (p.country === "CA" && !p.postalCode && !p.region) return null;
  return { country: p.country, region: p.region, postalCode: p.postalCode } satisfies TaxPlace;
}

export const edgePlace = (edge: Edge): TaxPlace | null => locatable(edge);
export const billingPlace = (billing: Billing | null): TaxPlace | null =>
  billing ? locatable({ country: billing.country, region: billing.state, postalCode: billing.postalCode }) : null;

export const parseEvidence = (json: string | null | undefined): TaxEvidence | null => {
  try {
    return json ? (JSON.parse(json) as TaxEvidence) : null;
  } catch {
    return null;
  }
};
