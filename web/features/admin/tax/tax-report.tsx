// The month's tax by jurisdiction: a bar per place (tax collected, the part reversed by refunds and
// disputes marked), the figures as a table (stacked on a phone), and the CSV of the same figures.
import type { TaxReport, TaxReportRow } from "@shared/admin-tax";
import { formatCents } from "@shared/money";
import { taxName } from "@shared/tax";
import { Download, Receipt } from "lucide-react";
import { LoadFailed } from "@/components/load-failed";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/hooks/use-toast";
import { withoutStatus } from "@/lib/api";
import { monthName, type Period, useDownloadTaxCsv, useTaxReport } from "./queries";

const rowKey = (r: TaxReportRow) => `${r.country}-${r.region}-${r.taxType}`;
const placeLine = (r: TaxReportRow) => `${r.place} · ${taxName(r.taxType)}`;

function TaxBars({ rows }: { rows: TaxReportRow[] }) {
  const owed = (r: TaxReportRow) => Math.max(0, r.taxOwedCents);
  const max = Math.max(1, ...rows.map((r) => owed(r) + r.taxReversedCents));
  const pct = (c: number) => `${Math.max(0, Math.min(100, (c / max) * 100))}%`;
  return (
    <div className="space-y-3">
      <ul className="space-y-2" aria-label="Tax collected by jurisdiction">
        {rows.map((r) => (
          <li
            key={rowKey(r)}
            className="grid grid-cols-[minmax(0,7rem)_1fr_auto] items-center gap-3 text-sm sm:grid-cols-[minmax(0,12rem)_1fr_auto]"
          >
            <span className="truncate" title={placeLine(r)}>
              {r.place}
            </span>
            <span className="relative h-3 overflow-hidden rounded-full bg-muted">
              <span className="absolute inset-y-0 left-0 rounded-full bg-primary" style={{ width: pct(owed(r)) }} />
              <span
                className="absolute inset-y-0 rounded-full bg-amber-500"
                style={{ left: pct(owed(r)), width: pct(r.taxReversedCents) }}
              />
            </span>
            <span className="text-right tabular-nums">{formatCents(r.taxOwedCents)}</span>
          </li>
        ))}
      </ul>
      <div className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted-foreground">
        <span className="flex items-center gap-1">
          <span className="size-2 rounded-full bg-primary" />
          Tax owed
        </span>
        <span className="flex items-center gap-1">
          <span className="size-2 rounded-full bg-amber-500" />
          Reversed by refunds and disputes
        </span>
      </div>
    </div>
  );
}

const FIGURES = [
  ["Sales", (r: Figures) => String(r.sales)],
  ["Net", (r: Figures) => formatCents(r.netCents)],
  ["Tax collected", (r: Figures) => formatCents(r.taxCollectedCents)],
  ["Refunds reversed", (r: Figures) => formatCents(r.taxReversedCents ? -r.taxReversedCents : 0)],
  ["Tax owed", (r: Figures) => formatCents(r.taxOwedCents)],
] as const;
type Figures = TaxReport["total"];

function ReportTable({ report }: { report: TaxReport }) {
  return (
    <div className="relative hidden overflow-x-auto sm:block">
      <table className="w-full text-sm">
        <thead className="text-left text-muted-foreground">
          <tr className="border-b">
            <th className="py-2 pr-3 font-medium">Jurisdiction</th>
            {FIGURES.map(([label]) => (
              <th key={label} className="py-2 pr-3 text-right font-medium last:pr-0">
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.rows.map((r) => (
            <tr key={rowKey(r)} className="border-b" data-testid="tax-report-row">
              <td className="py-2 pr-3">
                <div className="font-medium">{r.place}</div>
                <div className="text-xs text-muted-foreground">
                  {[r.country, r.region].filter(Boolean).join("-") || "No place recorded"} · {taxName(r.taxType)}
                </div>
              </td>
              {FIGURES.map(([label, f]) => (
                <td key={label} className="py-2 pr-3 text-right tabular-nums last:pr-0">
                  {f(r)}
                </td>
              ))}
            </tr>
          ))}
          <tr className="font-semibold">
            <td className="py-2 pr-3">Total</td>
            {FIGURES.map(([label, f]) => (
              <td key={label} className="py-2 pr-3 text-right tabular-nums last:pr-0">
                {f(report.total)}
              </td>
            ))}
          </tr>
        </tbody>
      </table>
    </div>
  );
}

function ReportStack({ report }: { report: TaxReport }) {
  const card = (key: string, title: string, sub: string | null, r: Figures, testId?: string) => (
    <li key={key} className="space-y-2 p-3 text-sm" data-testid={testId}>
      <div>
        <div className="font-medium">{title}</div>
        {sub && <div className="text-xs text-muted-foreground">{sub}</div>}
      </div>
      <dl className="grid grid-cols-2 gap-x-3 gap-y-1">
        {FIGURES.map(([label, f]) => (
          <div key={label} className="contents">
            <dt className="text-muted-foreground">{label}</dt>
            <dd className="text-right tabular-nums">{f(r)}</dd>
          </div>
        ))}
      </dl>
    </li>
  );
  return (
    <ul className="divide-y rounded-md border sm:hidden">
      {report.rows.map((r) => card(rowKey(r), r.place, taxName(r.taxType), r, "tax-report-card"))}
      {card("total", "Total", null, report.total)}
    </ul>
  );
}

export function TaxReportCard({ period }: { period: Period }) {
  const { data, isLoading, error, refetch } = useTaxReport(period);
  const download = useDownloadTaxCsv({
    onError: (e) => toast({ title: "Download failed", description: withoutStatus(e.message), variant: "destructive" }),
  });
  return (
    <Card>
      <CardHeader className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="space-y-1.5">
          <CardTitle>Tax report · {monthName(period)}</CardTitle>
          <CardDescription>
            Sales, net, tax collected and tax reversed by refunds and disputes, by jurisdiction, from the ledger.
          </CardDescription>
        </div>
        <Button
          variant="outline"
          size="sm"
          onClick={() => download.mutate(period)}
          disabled={download.isPending || !data}
        >
          {download.isPending ? <Spinner className="size-4" label="Downloading" /> : <Download className="size-4" />}
          Download CSV
        </Button>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <LoadFailed what="the tax report" detail={withoutStatus(error.message)} onRetry={refetch} />
        ) : !data?.rows.length ? (
          <div className="flex flex-col items-center gap-2 py-10 text-center">
            <Receipt className="size-9 text-muted-foreground" />
            <p className="font-medium">No tax in {monthName(period)}</p>
            <p className="max-w-sm text-sm text-muted-foreground">
              Jurisdictions appear here once a taxed sale is paid or refunded in the month.
            </p>
          </div>
        ) : (
          <div className="space-y-6">
            <TaxBars rows={data.rows} />
            <ReportTable report={data} />
            <ReportStack report={data} />
          </div>
        )}
      </CardContent>
    </Card>
  );
}
