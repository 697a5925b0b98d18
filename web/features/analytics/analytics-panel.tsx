// Views, checkouts started, sales, conversion and revenue for 7/30/90 days, with a chart by day.
import { BarChart3 } from "lucide-react";
import { lazy, Suspense, useState } from "react";
import { ANALYTICS_RANGES } from "@shared/analytics";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { formatDollars } from "@shared/money";
import { useAnalytics } from "./queries";
import { LoadFailed } from "@/components/load-failed";

const AnalyticsChart = lazy(() => import("./analytics-chart"));

export function AnalyticsPanel() {
  const [days, setDays] = useState<number>(30);
  const { data, isLoading, error } = useAnalytics(days);
  useUnauthorizedRedirect(error);
  const t = data?.totals;
  const figures = t
    ? [
        ["Views", t.views.toLocaleString()],
        ["Checkouts started", t.checkouts.toLocaleString()],
        ["Sales", t.sales.toLocaleString()],
        ["Conversion", `${t.conversion}%`],
        // The same ledger rows as Total Earnings: what a refund took back is gone from both.
        ["Revenue (after refunds)", formatDollars(t.revenue)],
      ]
    : [];
  return (
    <Card data-testid="analytics-panel">
      <CardHeader className="flex flex-row flex-wrap items-center justify-between gap-3">
        <CardTitle className="flex items-center gap-2">
          <BarChart3 className="size-5" /> Analytics
        </CardTitle>
        <fieldset className="flex gap-1" aria-label="Range">
          {ANALYTICS_RANGES.map((d) => (
            <Button
              key={d}
              size="sm"
              variant={d === days ? "default" : "outline"}
              onClick={() => setDays(d)}
              aria-pressed={d === days}
            >
              {d} days
            </Button>
          ))}
        </fieldset>
      </CardHeader>
      <CardContent className="space-y-4">
        {isLoading ? (
          <div className="flex h-72 items-center justify-center">
            <Spinner />
          </div>
        ) : error ? (
          <LoadFailed what="your analytics" detail={error.message} className="py-8 text-center" />
        ) : (
          <>
            <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5" data-testid="analytics-totals">
              {figures.map(([label, value]) => (
                <div key={label} className="rounded-lg border bg-muted/30 p-3">
                  <dt className="text-xs text-muted-foreground">{label}</dt>
                  <dd className="mt-1 text-lg font-bold">{value}</dd>
                </div>
              ))}
            </dl>
            {t && t.views + t.checkouts + t.sales === 0 && t.revenue === 0 ? (
              <p className="py-10 text-center text-muted-foreground">
                No views or sales in the last {days} days yet. Share your paywall links to see them here.
              </p>
            ) : (
              <Suspense
                fallback={
                  <div className="flex h-64 items-center justify-center">
                    <Spinner />
                  </div>
                }
              >
                <AnalyticsChart days={data?.byDay ?? []} />
              </Suspense>
            )}
            {data && data.recovered.sales > 0 && (
              <p className="text-sm" data-testid="analytics-recovered">
                Recovered from abandoned checkouts:{" "}
                <strong>
                  {data.recovered.sales} {data.recovered.sales === 1 ? "sale" : "sales"}
                </strong>
                , {formatDollars(data.recovered.revenue)}
              </p>
            )}
            {data?.items.some((i) => i.bumpOffered > 0) && (
              <div className="space-y-2" data-testid="analytics-bumps">
                <h3 className="text-sm font-semibold">Order bumps: share of paid checkouts that took the add-on</h3>
                <ul className="space-y-2 text-sm">
                  {data.items
                    .filter((i) => i.bumpOffered > 0)
                    .sort((a, b) => b.bumpTakeRate - a.bumpTakeRate)
                    .map((i) => (
                      <li key={i.contentId} className="space-y-1">
                        <div className="flex flex-wrap items-baseline justify-between gap-2">
                          <span className="min-w-0 truncate font-medium">{i.title}</span>
                          <span className="text-muted-foreground">
                            {i.bumpTakeRate}% · {i.bumpTaken} of {i.bumpOffered}
                          </span>
                        </div>
                        <div
                          className="h-2 overflow-hidden rounded-full bg-muted"
                          role="img"
                          aria-label={`${i.bumpTakeRate}% took the bump`}
                        >
                          <div
                            className="h-full rounded-full bg-brand-gradient"
                            style={{ width: `${Math.min(100, i.bumpTakeRate)}%` }}
                          />
                        </div>
                      </li>
                    ))}
                </ul>
              </div>
            )}
            {data && data.codes.length > 0 && (
              <div className="space-y-2" data-testid="analytics-codes">
                <h3 className="text-sm font-semibold">Sales with discount codes</h3>
                <ul className="divide-y rounded-lg border text-sm">
                  {data.codes.map((c) => (
                    <li key={c.code} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2">
                      <span className="font-mono font-medium">{c.code}</span>
                      <span className="text-muted-foreground">
                        {c.sales} {c.sales === 1 ? "sale" : "sales"} · {formatDollars(c.revenue)} ·{" "}
                        {formatDollars(c.discountGiven)} off
                      </span>
                    </li>
                  ))}
                </ul>
              </div>
            )}
          </>
        )}
      </CardContent>
    </Card>
  );
}
