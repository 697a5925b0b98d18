// Monthly reports (spec §3) from the ledger, with a small bar chart drawn in CSS (no chart package).
import { BarChart3 } from "lucide-react";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner } from "@/components/spinner";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatDollars } from "@shared/money";
import { useMonthlyReports } from "./queries";
import { LoadFailed } from "@/components/load-failed";

const label = (year: number, month: number) =>
  new Date(Date.UTC(year, month - 1, 1)).toLocaleString("en-US", { month: "short", year: "numeric", timeZone: "UTC" });

export function MonthlyReports() {
  const { data, isLoading, error } = useMonthlyReports();
  return (
    <Card>
      <CardHeader>
        <CardTitle>Monthly Reports</CardTitle>
        <CardDescription>Revenue, platform earnings, Stripe's fees and creator payouts by month</CardDescription>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <LoadFailed what="monthly reports" detail={error.message} />
        ) : !data?.length ? (
          <EmptyState icon={BarChart3} title="No reports yet" text="Reports appear after the first sale." />
        ) : (
          <Chart reports={data} />
        )}
      </CardContent>
    </Card>
  );
}

function Chart({ reports }: { reports: NonNullable<ReturnType<typeof useMonthlyReports>["data"]> }) {
  const oldestFirst = [...reports].reverse();
  const max = Math.max(1, ...oldestFirst.map((r) => Math.max(r.totalRevenue, r.creatorPayouts)));
  const bar = (v: number) => `${Math.max(0, (v / max) * 100)}%`;
  return (
    <div className="space-y-6">
      <div className="flex h-40 items-end gap-3" role="img" aria-label="Revenue and payouts by month">
        {oldestFirst.map((r) => (
          <div key={`${r.year}-${r.month}`} className="flex h-full flex-1 flex-col justify-end">
            <div className="flex h-full items-end justify-center gap-1">
              <div
                className="w-3 rounded-t bg-primary"
                style={{ height: bar(r.totalRevenue) }}
                title={`Revenue ${formatDollars(r.totalRevenue)}`}
              />
              <div
                className="w-3 rounded-t bg-emerald-500"
                style={{ height: bar(r.platformEarnings) }}
                title={`Platform ${formatDollars(r.platformEarnings)}`}
              />
              <div
                className="w-3 rounded-t bg-amber-500"
                style={{ height: bar(r.creatorPayouts) }}
                title={`Payouts ${formatDollars(r.creatorPayouts)}`}
              />
            </div>
            <p className="mt-1 text-center text-xs text-muted-foreground">{label(r.year, r.month)}</p>
          </div>
        ))}
      </div>
      <div className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-muted-foreground">
        <span className="flex items-center gap-1">
          <span className="size-2 rounded-full bg-primary" />
          Revenue
        </span>
        <span className="flex items-center gap-1">
          <span className="size-2 rounded-full bg-emerald-500" />
          Platform earnings
        </span>
        <span className="flex items-center gap-1">
          <span className="size-2 rounded-full bg-amber-500" />
          Creator payouts
        </span>
      </div>
      {reports.some((r) => r.salesBelowFee > 0) && (
        <p
          className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
          data-testid="sales-below-fee"
        >
          {reports.reduce((a, r) => a + r.salesBelowFee, 0)} sales in these months cost more in Stripe fees than the
          platform earned on them (Pro sales at 0%, or very small prices).
        </p>
      )}
      <p className="text-xs text-muted-foreground">
        ApeWall bears Stripe's fees: processing fees (which Stripe keeps when a sale is refunded) and dispute fees.
        Creators' shares are never reduced by them.
      </p>
      {/* The table scrolls inside this box on a phone, never the page. */}
      <div className="relative overflow-x-auto">
        <table className="w-full text-sm">
          <thead className="text-left text-muted-foreground">
            <tr className="border-b">
              <th className="py-2 font-medium">Month</th>
              <th className="py-2 text-right font-medium">Gross sales</th>
              <th className="py-2 text-right font-medium">Refunds</th>
              <th className="py-2 text-right font-medium">Disputes</th>
              <th className="py-2 text-right font-medium">Revenue</th>
              <th className="py-2 text-right font-medium">Platform earnings</th>
              <th className="py-2 text-right font-medium">Stripe fees</th>
              <th className="py-2 text-right font-medium">Dispute fees</th>
              <th className="py-2 text-right font-medium">Platform net</th>
              <th className="py-2 text-right font-medium">Creator payouts</th>
              <th className="py-2 text-right font-medium">Transactions</th>
            </tr>
          </thead>
          <tbody>
            {reports.map((r) => (
              <tr key={`${r.year}-${r.month}`} className="border-b last:border-0">
                <td className="py-2">{label(r.year, r.month)}</td>
                <td className="py-2 text-right">{formatDollars(r.grossSales)}</td>
                <td className="py-2 text-right">{formatDollars(-r.refunds)}</td>
                <td className="py-2 text-right">{formatDollars(-r.disputes)}</td>
                <td className="py-2 text-right">{formatDollars(r.totalRevenue)}</td>
                <td className="py-2 text-right">{formatDollars(r.platformEarnings)}</td>
                <td className="py-2 text-right">{formatDollars(-r.stripeFees)}</td>
                <td className="py-2 text-right">{formatDollars(-r.disputeFees)}</td>
                <td className="py-2 text-right font-medium">{formatDollars(r.platformNet)}</td>
                <td className="py-2 text-right">{formatDollars(r.creatorPayouts)}</td>
                <td className="py-2 text-right">{r.transactionCount}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
