// The admin's monthly tax report by jurisdiction and its CSV, read from the ledger's `tax` account
// joined to each purchase's place (purchase_taxes). The CSV's figures are the ledger's to the cent.
// Behaviour: docs/tax.md ("The admin's tax report").
import { sql } from "drizzle-orm";
import { TAX_CSV_COLUMNS, type TaxReport, type TaxReportRow } from "../../../shared/admin-tax";
import { dollarsField } from "../../../shared/money";
import { placeName } from "../../../shared/tax";
import type { Db } from "../../db/client";
import { csvCell } from "../payouts-csv";

export type Month = { year: number; month: number };

/** "Washington"; a state or province without a name in shared/tax.ts keeps its code: "United States NJ". */
const placeOf = (country: string | null, region: string | null) => {
  const name = placeName(country, region);
  return region && name === placeName(country) ? `${name} ${region}` : name;
};

/** [start, end) of a calendar month in UTC, in ms: the ledger's created_at. */
export const monthRange = (p: Month): [number, number] => [
  Date.UTC(p.year, p.month - 1, 1),
  Date.UTC(p.year, p.month, 1),
];

/**
 * Every `tax` account row booked in the month, by the place and tax type of its purchase: a sale's
 * `tax` row is collected (and its purchase's net counts), `refund` and `dispute` rows are reversed
 * (a won dispute or a failed refund books its reversal back, so reversed is their net). A sale and
 * its refund fall in the months they happened, as a return declares them. A row without a
 * purchase_taxes row (none should exist) is still counted, under "Unknown", so totals equal the ledger.
 */
export async function taxReport(db: Db, p: Month): Promise<TaxReport> {
  const [from, to] = monthRange(p);
  const raw = await db.all<{
    country: string | null;
    region: string | null;
    tax_type: string | null;
    sales: number;
    net: number;
    collected: number;
    reversed: number;
    owed: number;
  }>(sql`
    select t.country, t.region, t.tax_type,
           sum(case when l.kind = 'tax' and l.amount_cents <> 0 then 1 else 0 end) as sales,
           coalesce(sum(case when l.kind = 'tax' and l.amount_cents <> 0 then t.net_cents end), 0) as net,
           coalesce(sum(case when l.kind = 'tax' then l.amount_cents end), 0) as collected,
           -coalesce(sum(case when l.kind in ('refund', 'dispute') then l.amount_cents end), 0) as reversed,
           sum(l.amount_cents) as owed
    from ledger_entries l left join purchase_taxes t on t.purchase_id = l.purchase_id
    where l.account = 'tax' and l.created_at >= ${from} and l.created_at < ${to}
    group by t.country, t.region, t.tax_type
  `);
  const rows: TaxReportRow[] = raw
    .map((r) => ({
      country: r.country,
      region: r.region,
      place: placeOf(r.country, r.region),
      taxType: r.tax_type,
      sales: Number(r.sales),
      netCents: Number(r.net),
      taxCollectedCents: Number(r.collected),
      taxReversedCents: Number(r.reversed),
      taxOwedCents: Number(r.owed),
    }))
    .sort((a, b) => b.taxOwedCents - a.taxOwedCents || a.place.localeCompare(b.place));
  const sum = (f: (r: TaxReportRow) => number) => rows.reduce((n, r) => n + f(r), 0);
  return {
    year: p.year,
    month: p.month,
    currency: "usd",
    rows,
    total: {
      sales: sum((r) => r.sales),
      netCents: sum((r) => r.netCents),
      taxCollectedCents: sum((r) => r.taxCollectedCents),
      taxReversedCents: sum((r) => r.taxReversedCents),
      taxOwedCents: sum((r) => r.taxOwedCents),
    },
  };
}

const dollars = (cents: number) => dollarsField(cents / 100);

/** The report as CSV: one row per jurisdiction and a last row "Total", amounts in dollars with two decimals. */
export function taxReportCsv(report: TaxReport): string {
  // A figure we formatted ("-2.50": a month that gives back more than it collects) is a number, not a
  // formula: csvCell would put a quote before its minus and a spreadsheet would read it as text.
  const cell = (v: unknown) => (typeof v === "string" && /^-?\d+\.\d\d$/.test(v) ? v : csvCell(v));
  const line = (cells: unknown[]) => cells.map(cell).join(",");
  const figures = (
    r: Pick<TaxReportRow, "sales" | "netCents" | "taxCollectedCents" | "taxReversedCents" | "taxOwedCents">,
  ) => [
    r.sales,
    dollars(r.netCents),
    dollars(r.taxCollectedCents),
    dollars(r.taxReversedCents),
    dollars(r.taxOwedCents),
    report.currency.toUpperCase(),
  ];
  const lines = [
    line([...TAX_CSV_COLUMNS]),
    ...report.rows.map((r) => line([r.place, r.country ?? "", r.region ?? "", r.taxType ?? "", ...figures(r)])),
    line(["Total", "", "", "", ...figures(report.total)]),
  ];
  return `${lines.join("\r\n")}\r\n`;
}

export const taxCsvFileName = (p: Month) => `tax-${p.year}-${String(p.month).padStart(2, "0")}.csv`;
