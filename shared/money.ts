// Money as the forms and screens write it: dollars typed by a person, integer cents inside.

/** "12.5" -> 1250; anything that is not a plain amount with at most two decimals -> NaN. */
export function dollarsToCents(value: string | number | undefined | null): number {
  if (value === undefined || value === null) return NaN;
  const s = String(value).trim();
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(s)) return NaN;
  const [whole, frac = ""] = s.split(".");
  return Number(whole) * 100 + Number(frac.padEnd(2, "0"));
}

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** 1234 -> "$12.34", 123456 -> "$1,234.56", -500 -> "-$5.00": an amount as the screens show it. */
export const formatCents = (cents: number): string => usd.format(cents / 100);

/** The same for an amount the API answers in dollars (12.5 -> "$12.50"). */
export const formatDollars = (dollars: number): string => usd.format(dollars);

/** 123456 -> "$1234.56": without thousands separators, as the form messages and the paywall word it. */
export const formatCentsPlain = (cents: number): string => `$${(cents / 100).toFixed(2)}`;

/** The same for an amount in dollars (1234.5 -> "$1234.50"). */
export const formatDollarsPlain = (dollars: number): string => `$${dollars.toFixed(2)}`;

/** 12.5 -> "12.50": a dollar amount as a form field holds it (read back with dollarsToCents). */
export const dollarsField = (dollars: number): string => dollars.toFixed(2);

/** 1000 -> "$10": a whole-dollar constant in a sentence (the payout minimum, the Pro price). */
export const formatCentsShort = (cents: number): string => `$${cents / 100}`;
