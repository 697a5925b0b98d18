// The stand-in's Stripe Tax rate table: where a customer is (country, US state from the ZIP code,
// Canadian province from the postal code) and the standard rate on electronically supplied services
// there. One combined rate per US state (its largest city's: Seattle's 10.25 % for WA). Places not
// listed have no tax on digital goods in the stand-in. See docs/tax.md ("The stand-in").

/** EU member states' standard VAT rates (%), as in force in 2026. */
// biome-ignore format: a table
const EU = {
  AT: 20, BE: 21, BG: 20, CY: 19, CZ: 21, DE: 19, DK: 25, EE: 24, ES: 21, FI: 25.5, FR: 20, GR: 24, HR: 25,
  HU: 27, IE: 23, IT: 22, LT: 21, LU: 17, LV: 21, MT: 18, NL: 21, PL: 23, PT: 23, RO: 21, SE: 25, SI: 22, SK: 23,
};
export const EU_COUNTRIES = Object.keys(EU);

// biome-ignore format: a table
const NAMES = {
  AT: "Austria", BE: "Belgium", BG: "Bulgaria", CY: "Cyprus", CZ: "Czech Republic", DE: "Germany",
  DK: "Denmark", EE: "Estonia", ES: "Spain", FI: "Finland", FR: "France", GR: "Greece", HR: "Croatia",
  HU: "Hungary", IE: "Ireland", IT: "Italy", LT: "Lithuania", LU: "Luxembourg", LV: "Latvia", MT: "Malta",
  NL: "Netherlands", PL: "Poland", PT: "Portugal", RO: "Romania", SE: "Sweden", SI: "Slovenia", SK: "Slovakia",
  GB: "United Kingdom", NO: "Norway", CH: "Switzerland", AU: "Australia", CA: "Canada", US: "United States",
};

/** US states that tax electronically supplied services, one combined (state + local) rate each. */
const US_STATES = {
  WA: ["Washington", 10.25],
  TX: ["Texas", 8.25],
  PA: ["Pennsylvania", 6],
  NY: ["New York", 8.875],
  UT: ["Utah", 7.25],
  TN: ["Tennessee", 9.55],
  CT: ["Connecticut", 6.35],
  SD: ["South Dakota", 6.2],
  OH: ["Ohio", 7.25],
};

// Canada: GST everywhere, HST (federal + provincial in one) in these provinces. Nova Scotia's HST is
// 14 % since April 2025.
const HST = { ON: 13, NS: 14, NB: 15, NL: 15, PE: 15 };
const PROVINCES = ["AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT"];
const CA_POSTAL = { A: "NL", B: "NS", C: "PE", E: "NB", G: "QC", H: "QC", J: "QC", K: "ON", L: "ON", M: "ON" };
Object.assign(CA_POSTAL, { N: "ON", P: "ON", R: "MB", S: "SK", T: "AB", V: "BC", Y: "YT" });

// The first three digits of a US ZIP code -> state (USPS ranges).
// biome-ignore format: a table
const ZIP3 = [
  [5, 5, "NY"], [6, 9, "PR"], [10, 27, "MA"], [28, 29, "RI"], [30, 38, "NH"], [39, 49, "ME"], [50, 54, "VT"],
  [55, 55, "MA"], [56, 59, "VT"], [60, 69, "CT"], [70, 89, "NJ"], [100, 149, "NY"], [150, 196, "PA"],
  [197, 199, "DE"], [200, 205, "DC"], [206, 219, "MD"], [220, 246, "VA"], [247, 268, "WV"], [270, 289, "NC"],
  [290, 299, "SC"], [300, 319, "GA"], [320, 349, "FL"], [350, 369, "AL"], [370, 385, "TN"], [386, 397, "MS"],
  [398, 399, "GA"], [400, 427, "KY"], [430, 459, "OH"], [460, 479, "IN"], [480, 499, "MI"], [500, 528, "IA"],
  [530, 549, "WI"], [550, 567, "MN"], [570, 577, "SD"], [580, 588, "ND"], [590, 599, "MT"], [600, 629, "IL"],
  [630, 658, "MO"], [660, 679, "KS"], [680, 693, "NE"], [700, 714, "LA"], [716, 729, "AR"], [730, 749, "OK"],
  [750, 799, "TX"], [800, 816, "CO"], [820, 831, "WY"], [832, 838, "ID"], [840, 847, "UT"], [850, 865, "AZ"],
  [870, 884, "NM"], [885, 885, "TX"], [889, 898, "NV"], [900, 961, "CA"], [967, 968, "HI"], [970, 979, "OR"],
  [980, 994, "WA"], [995, 999, "AK"],
];

// ISO 3166-1 alpha-2 codes: a country outside this list can't locate a customer.
// biome-ignore format: a table
const ISO = new Set(
  `AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
  CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR
  GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO
  JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR
  MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO
  RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV
  TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW`.split(/\s+/),
);

/**
 * Where `address` puts the customer: `{ country, state }`, or null when it can't locate them (as
 * Stripe: a US address needs a ZIP code, a Canadian one a postal code or province; elsewhere the
 * country is enough).
 */
export function locate(address) {
  const country = String(address?.country ?? "").toUpperCase();
  if (!ISO.has(country)) return null;
  const postal = String(address.postal_code ?? "")
    .trim()
    .toUpperCase();
  const given =
    String(address.state ?? "")
      .trim()
      .toUpperCase() || null;
  if (country === "US") {
    if (!/^\d{5}(-?\d{4})?$/.test(postal)) return null;
    const zip3 = Number(postal.slice(0, 3));
    const state = ZIP3.find(([from, to]) => zip3 >= from && zip3 <= to)?.[2];
    if (!state || (given && given !== state)) return null;
    return { country, state };
  }
  if (country === "CA") {
    const fromPostal = postal ? (CA_POSTAL[postal[0]] ?? (postal[0] === "X" ? (given ?? "NT") : undefined)) : undefined;
    if (postal && !/^[A-Z]\d[A-Z] ?\d[A-Z]\d$/.test(postal)) return null;
    const state = fromPostal ?? given;
    if (!state || !PROVINCES.includes(state)) return null;
    return { country, state };
  }
  return { country, state: null };
}

/**
 * The tax a place levies on electronically supplied services: `{ percentage, taxType, level,
 * displayName, jurisdiction }`, or null where the stand-in has none.
 */
export function rateAt({ country, state }) {
  if (EU[country]) return vat(country, EU[country], "Value-added tax (VAT)");
  if (country === "GB") return vat(country, 20, "Value-added tax (VAT)");
  if (country === "NO") return vat(country, 25, "Merverdiavgift (MVA)");
  if (country === "CH") return vat(country, 8.1, "Mehrwertsteuer (MWST)");
  if (country === "AU") return { ...vat(country, 10, "Goods and Services Tax (GST)"), taxType: "gst" };
  if (country === "CA") {
    if (HST[state])
      return { percentage: HST[state], taxType: "hst", level: "state", displayName: "HST", jurisdiction: state };
    return { percentage: 5, taxType: "gst", level: "country", displayName: "GST", jurisdiction: "Canada" };
  }
  if (country === "US" && US_STATES[state]) {
    const [name, percentage] = US_STATES[state];
    return { percentage, taxType: "sales_tax", level: "state", displayName: "Sales Tax", jurisdiction: name };
  }
  return null;
}

const vat = (country, percentage, displayName) => ({
  percentage,
  taxType: "vat",
  level: "country",
  displayName,
  jurisdiction: NAMES[country],
});

/** The tax type a place would levy, for a zero-tax breakdown where it levies none here. */
export function taxTypeAt({ country }) {
  if (EU[country] || ["GB", "NO", "CH"].includes(country)) return "vat";
  if (country === "AU" || country === "CA") return "gst";
  if (country === "US") return "sales_tax";
  return null;
}

export const placeName = ({ country, state }) =>
  (country === "US" && US_STATES[state]?.[0]) || (country === "CA" && state) || NAMES[country] || country;

// Tax id formats the stand-in checks (Stripe refuses a malformed one with tax_id_invalid); other
// types are taken as given.
const EU_VAT_PREFIX = "(?:AT|BE|BG|CY|CZ|DE|DK|EE|EL|ES|FI|FR|HR|HU|IE|IT|LT|LU|LV|MT|NL|PL|PT|RO|SE|SI|SK|XI)";
const TAX_ID_FORMATS = {
  eu_vat: new RegExp(`^${EU_VAT_PREFIX}[0-9A-Z+*]{2,12}$`),
  gb_vat: /^GB(?:\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  no_vat: /^\d{9}MVA$/,
  ch_vat: /^CHE-?\d{3}\.?\d{3}\.?\d{3} ?(?:MWST|TVA|IVA)$/,
  au_abn: /^\d{11}$/,
  ca_bn: /^\d{9}$/,
  ca_gst_hst: /^\d{9}RT\d{4}$/,
  us_ein: /^\d{2}-?\d{7}$/,
};
export const validTaxId = (type, value) => {
  const format = TAX_ID_FORMATS[type];
  if (!format) return String(value).trim() !== "";
  const upper = String(value).trim().toUpperCase();
  return format.test(type === "ch_vat" ? upper : upper.replace(/[\s.]/g, ""));
};

// The business ids that make a sale B2B in a place where the buyer accounts for the tax (reverse
// charge) when the seller is established elsewhere.
const B2B_IDS = { GB: ["gb_vat"], NO: ["no_vat"], CH: ["ch_vat"], AU: ["au_abn"] };
for (const cc of EU_COUNTRIES) B2B_IDS[cc] = ["eu_vat"];
export const isB2B = (country, taxIds) => taxIds.some((t) => B2B_IDS[country]?.includes(t.type));
