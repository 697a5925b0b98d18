// The admin's month and year selects (the payout run's month, the tax report's month).
export type Period = { month: number; year: number };

export const MONTHS = Array.from({ length: 12 }, (_, i) =>
  new Date(Date.UTC(2024, i, 1)).toLocaleString("en-US", { month: "long", timeZone: "UTC" }),
);
const ALL_YEARS = Array.from({ length: 7 }, (_, i) => 2024 + i);
const selectClass = "h-9 rounded-md border border-input bg-background px-3 text-sm shadow-xs";

export function PeriodPicker({
  idPrefix,
  period,
  onChange,
  years = ALL_YEARS,
}: {
  /** The selects' ids: `${idPrefix}-month`, `${idPrefix}-year`. */
  idPrefix: string;
  period: Period;
  onChange: (p: Period) => void;
  years?: number[];
}) {
  return (
    <div className="flex gap-2">
      <label className="sr-only" htmlFor={`${idPrefix}-month`}>
        Month
      </label>
      <select
        id={`${idPrefix}-month`}
        className={selectClass}
        value={period.month}
        onChange={(e) => onChange({ ...period, month: Number(e.target.value) })}
      >
        {MONTHS.map((m, i) => (
          <option key={m} value={i + 1}>
            {m}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor={`${idPrefix}-year`}>
        Year
      </label>
      <select
        id={`${idPrefix}-year`}
        className={selectClass}
        value={period.year}
        onChange={(e) => onChange({ ...period, year: Number(e.target.value) })}
      >
        {years.map((y) => (
          <option key={y} value={y}>
            {y}
          </option>
        ))}
      </select>
    </div>
  );
}
