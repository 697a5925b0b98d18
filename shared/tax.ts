// Sales tax and VAT as buyers, creators and the API see them: the creator's choice of tax-inclusive
// prices, a business buyer's VAT number, the tax line a checkout shows, and what a purchase's tax was
// decided on. Behaviour and decisions: docs/tax.md.
import { z } from "zod";
import { formatCents } from "./money";

/** Stripe's tax code for electronically supplied services (digital goods, files, links, texts). */
export const DIGITAL_GOODS_TAX_CODE = "txcd_10000000";

/** auto: exclusive for buyers in the US (as they expect prices before tax), inclusive elsewhere. */
export const TAX_BEHAVIORS = ["auto", "inclusive", "exclusive"] as const;
export type TaxBehavior = (typeof TAX_BEHAVIORS)[number];

/** Whether a price includes tax for a buyer in `country`, under the creator's choice. */
export const pricesIncludeTax = (behavior: TaxBehavior, country: string | null): boolean =>
  behavior === "auto" ? country !== "US" : behavior === "inclusive";

/** The EU member states (VAT numbers start with these; Greece's is EL). */
export const EU_COUNTRIES = [
  "AT",
  "BE",
  "BG",
  "HR",
  "CY",
  "CZ",
  "DK",
  "EE",
  "FI",
  "FR",
  "DE",
  "GR",
  "HU",
  "IE",
  "IT",
  "LV",
  "LT",
  "LU",
  "MT",
  "NL",
  "PL",
  "PT",
  "RO",
  "SK",
  "SI",
  "ES",
  "SE",
] as const;

/** Format of each EU VAT number after its prefix (the VIES patterns), and the UK's. */
const VAT_FORMATS: Record<string, RegExp> = {
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  HR: /^\d{11}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  FI: /^\d{8}$/,
  FR: /^[0-9A-HJ-NP-Z]{2}\d{9}$/,
  DE: /^\d{9}$/,
  EL: /^\d{9}$/,
  HU: /^\d{8}$/,
  IE: /^(\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^\d{11}$/,
  LV: /^\d{11}$/,
  LT: /^(\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^\d{2,10}$/,
  SK: /^\d{10}$/,
  SI: /^\d{8}$/,
  ES: /^[0-9A-Z]\d{7}[0-9A-Z]$/,
  SE: /^\d{12}$/,
  GB: /^(\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  XI: /^(\d{9}|\d{12})$/,
};

export type VatId = { type: "eu_vat" | "gb_vat"; value: string; country: string };

export const VAT_ID_INVALID = "VAT number: enter an EU or UK VAT number with its country prefix, like DE123456789";

/** "de 123.456-789" -> { type: "eu_vat", value: "DE123456789", country: "DE" }; null when its format is wrong. */
export function parseVatId(input: string): VatId | null {
  const value = input.toUpperCase().replace(/[\s.\-/]/g, "");
  const prefix = value.slice(0, 2);
  const format = VAT_FORMATS[prefix];
  if (!format?.test(value.slice(2))) return null;
  if (prefix === "GB") return { type: "gb_vat", value, country: "GB" };
  return { type: "eu_vat", value, country: prefix === "EL" ? "GR" : prefix === "XI" ? "GB" : prefix };
}

/** A VAT number as a form sends it: blank means none. */
export const vatIdInputSchema = z
  .string()
  .max(40, VAT_ID_INVALID)
  .transform((s, ctx) => {
    if (s.trim() === "") return null;
    const id = parseVatId(s);
    if (!id) ctx.addIssue({ code: "custom", message: VAT_ID_INVALID });
    return id ?? z.NEVER;
  });

/**
 * What a tax was decided on, stored with each purchase: the edge's guess (request.cf), the card's
 * billing address and issuing country from the confirmation, and which of them decided the place.
 */
const taxEvidenceSchema = z.object({
  edge: z.object({ country: z.string().nullable(), region: z.string().nullable(), postalCode: z.string().nullable() }),
  billing: z
    .object({ country: z.string().nullable(), postalCode: z.string().nullable(), state: z.string().nullable() })
    .nullable(),
  cardCountry: z.string().nullable(),
  /** Which evidence located the buyer: the billing address (the card's), or the edge before a card was typed. */
  decidedBy: z.enum(["billing", "edge", "first_purchase"]),
});
export type TaxEvidence = z.infer<typeof taxEvidenceSchema>;

/** The tax line a checkout shows, in the API's answers. Amounts in dollars like every answer. */
export const taxLineSchema = z
  .object({
    amount: z.number().meta({ description: "The tax, in dollars (0 where none is due)" }),
    net: z.number().meta({ description: "The price without tax, in dollars" }),
    total: z.number().meta({ description: "What the buyer pays, tax included, in dollars" }),
    inclusive: z.boolean().meta({ description: "The price includes the tax (else the tax is added on top)" }),
    type: z
      .string()
      .nullable()
      .meta({ description: "vat, gst, hst, sales_tax, … (null where none is due)", example: "vat" }),
    rate: z.string().nullable().meta({ description: "The rate in percent", example: "20" }),
    country: z.string().nullable().meta({ example: "FR" }),
    region: z.string().nullable().meta({ description: "US state or Canadian province", example: "WA" }),
    reverseCharge: z.boolean(),
    reason: z.string().nullable().meta({ description: "Stripe's taxability_reason", example: "standard_rated" }),
    text: z.string().nullable().meta({
      description: "The line as the checkout shows it; null where no tax is due",
      example: "Includes $1.67 VAT (20%, France)",
    }),
  })
  .meta({ id: "TaxLine", description: "Sales tax or VAT on a checkout or purchase (docs/tax.md)" });
export type TaxLine = z.infer<typeof taxLineSchema>;

const TAX_NAMES: Record<string, string> = {
  vat: "VAT",
  gst: "GST",
  hst: "HST",
  pst: "PST",
  qst: "QST",
  rst: "RST",
  jct: "JCT",
  sales_tax: "sales tax",
  igst: "IGST",
  lease_tax: "lease tax",
  amusement_tax: "amusement tax",
  communications_tax: "communications tax",
  retail_delivery_fee: "retail delivery fee",
  service_tax: "service tax",
};
export const taxName = (type: string | null): string => (type ? (TAX_NAMES[type] ?? type.replace(/_/g, " ")) : "tax");

/** US states and Canadian provinces by code, for the tax line and reports. */
const REGION_NAMES: Record<string, string> = {
  "US-WA": "Washington",
  "US-TX": "Texas",
  "US-NY": "New York",
  "US-PA": "Pennsylvania",
  "US-OH": "Ohio",
  "US-UT": "Utah",
  "US-TN": "Tennessee",
  "US-CT": "Connecticut",
  "US-SD": "South Dakota",
  "US-CA": "California",
  "US-OR": "Oregon",
  "US-FL": "Florida",
  "US-IL": "Illinois",
  "US-MA": "Massachusetts",
  "CA-ON": "Ontario",
  "CA-QC": "Quebec",
  "CA-BC": "British Columbia",
  "CA-AB": "Alberta",
  "CA-NS": "Nova Scotia",
  "CA-NB": "New Brunswick",
  "CA-NL": "Newfoundland and Labrador",
  "CA-PE": "Prince Edward Island",
  "CA-MB": "Manitoba",
  "CA-SK": "Saskatchewan",
};

const countryNames = new Intl.DisplayNames(["en"], { type: "region" });

/** "FR" -> "France"; ("US", "WA") -> "Washington": the place as a receipt or report names it. */
export function placeName(country: string | null, region: string | null = null): string {
  if (!country) return "Unknown";
  if (region && REGION_NAMES[`${country}-${region}`]) return REGION_NAMES[`${country}-${region}`];
  try {
    return countryNames.of(country) ?? country;
  } catch {
    return country;
  }
}

/** "20.0000" -> "20", "10.2500" -> "10.25". */
export const formatRate = (percent: string | null): string | null =>
  percent === null ? null : String(Number(Number(percent).toFixed(4)));

export const REVERSE_CHARGE_TEXT = "Reverse charge: the customer accounts for the VAT";

/**
 * The line the checkout shows: "Includes $1.67 VAT (20%, France)" or "+ $0.89 sales tax (Washington)".
 * US sales tax names the state alone (its rate mixes state and local taxes); other taxes name their rate.
 */
export function taxLineText(
  line: Pick<TaxLine, "inclusive" | "type" | "rate" | "country" | "region" | "reverseCharge">,
  taxCents: number,
): string | null {
  if (line.reverseCharge) return REVERSE_CHARGE_TEXT;
  if (taxCents <= 0) return null;
  const place = placeName(line.country, line.region);
  const where = line.type === "sales_tax" || !line.rate ? place : `${formatRate(line.rate)}%, ${place}`;
  return `${line.inclusive ? "Includes" : "+"} ${formatCents(taxCents)} ${taxName(line.type)} (${where})`;
}
