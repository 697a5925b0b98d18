// Money as the forms and screens write it: dollars typed by a person, integer cents inside.

/** "12.5" -> 1250; anything that is not a plain amount with at most two decimals -> NaN. */
export function dollarsToCents(value: string | number | undefined | null): number {
  if (value === undefined || value === null) return NaN;
  const s = String(value).trim();
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(s)) return NaN;
  const [whole, frac = ""] = s.split(".");
  return Number(whole) * 100 + Number(frac.padEnd(2, "0"));
}
