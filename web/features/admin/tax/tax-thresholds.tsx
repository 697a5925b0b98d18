// ApeWall's tax registrations (as Stripe holds them) and, for each place of the threshold table,
// sales against its threshold: "Approaching" from 80 %, "Over" from 100 %.
import { THRESHOLD_STATUS_TEXT, type TaxThresholdRow, type ThresholdStatus } from "@shared/admin-tax";
import { formatCents } from "@shared/money";
import { Landmark } from "lucide-react";
import { LoadFailed } from "@/components/load-failed";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { withoutStatus } from "@/lib/api";
import { useTaxRegistrations } from "./queries";

const VARIANT: Record<ThresholdStatus, "success" | "destructive" | "warning" | "outline" | "secondary"> = {
  registered: "success",
  over: "destructive",
  approaching: "warning",
  first_sale: "outline",
  below: "secondary",
};

const StatusBadge = ({ status }: { status: ThresholdStatus }) => (
  <Badge variant={VARIANT[status]} data-testid="threshold-status">
    {THRESHOLD_STATUS_TEXT[status]}
  </Badge>
);

const share = (t: TaxThresholdRow) =>
  t.percent === null
    ? "—"
    : t.percent === 0 && t.salesLast12MonthsCents > 0
      ? "< 0.1 %"
      : `${t.percent.toLocaleString("en-US")} %`;
const sales = (cents: number, count: number) => `${formatCents(cents)} · ${count.toLocaleString("en-US")}`;

/** From sm: one table row per place. */
function ThresholdTable({ rows }: { rows: TaxThresholdRow[] }) {
  return (
    <div className="relative hidden overflow-x-auto sm:block">
      <table className="w-full text-sm">
        <thead className="text-left text-muted-foreground">
          <tr className="border-b">
            <th className="py-2 pr-3 font-medium">Place</th>
            <th className="py-2 pr-3 font-medium">Threshold</th>
            <th className="py-2 pr-3 text-right font-medium">Last 12 months</th>
            <th className="py-2 pr-3 text-right font-medium">This year</th>
            <th className="py-2 pr-3 text-right font-medium">Of the threshold</th>
            <th className="py-2 font-medium">Status</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((t) => (
            <tr key={t.key} className="border-b align-top last:border-0" data-testid="threshold-row">
              <td className="py-2 pr-3">
                <div className="font-medium">{t.place}</div>
                {t.note && <div className="max-w-72 text-xs text-muted-foreground">{t.note}</div>}
              </td>
              <td className="py-2 pr-3">
                <div>{t.thresholdText}</div>
                <div className="text-xs text-muted-foreground">{t.period}</div>
              </td>
              <td className="py-2 pr-3 text-right tabular-nums">
                {sales(t.salesLast12MonthsCents, t.transactionsLast12Months)}
              </td>
              <td className="py-2 pr-3 text-right tabular-nums">
                {sales(t.salesThisYearCents, t.transactionsThisYear)}
              </td>
              <td className="py-2 pr-3 text-right tabular-nums">{share(t)}</td>
              <td className="py-2">
                <StatusBadge status={t.status} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Below sm: one stacked card per place. */
function ThresholdCard({ t }: { t: TaxThresholdRow }) {
  return (
    <li className="space-y-2 p-3 text-sm" data-testid="threshold-card">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <div className="font-medium">{t.place}</div>
          <div className="text-xs text-muted-foreground">
            {t.thresholdText} · {t.period}
          </div>
        </div>
        <StatusBadge status={t.status} />
      </div>
      <dl className="grid gap-y-1">
        <div className="flex justify-between gap-2">
          <dt className="text-xs text-muted-foreground">Last 12 months · sales</dt>
          <dd className="tabular-nums">{sales(t.salesLast12MonthsCents, t.transactionsLast12Months)}</dd>
        </div>
        <div className="flex justify-between gap-2">
          <dt className="text-xs text-muted-foreground">This year · sales</dt>
          <dd className="tabular-nums">{sales(t.salesThisYearCents, t.transactionsThisYear)}</dd>
        </div>
        <div className="flex justify-between gap-2">
          <dt className="text-xs text-muted-foreground">Of the threshold</dt>
          <dd className="tabular-nums">{share(t)}</dd>
        </div>
      </dl>
      {t.note && <p className="text-xs text-muted-foreground">{t.note}</p>}
    </li>
  );
}

export function TaxThresholdsCard() {
  const { data, isLoading, error, refetch } = useTaxRegistrations();
  return (
    <Card>
      <CardHeader>
        <CardTitle>Registrations and thresholds</CardTitle>
        <CardDescription>
          Where ApeWall is registered at Stripe, and where sales near the amount that requires registering.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error || !data ? (
          <LoadFailed
            what="registrations"
            detail={error ? withoutStatus(error.message) : undefined}
            onRetry={refetch}
          />
        ) : (
          <div className="space-y-5">
            <div className="space-y-2">
              <h3 className="text-sm font-medium">Registered at Stripe</h3>
              {data.registrations.length ? (
                <ul className="flex flex-wrap gap-2" data-testid="tax-registrations">
                  {data.registrations.map((r) => (
                    <li
                      key={r.id}
                      className="flex items-center gap-1.5 rounded-md border bg-background px-2 py-1 text-sm"
                    >
                      <Landmark className="size-3.5 text-muted-foreground" />
                      {r.place}
                      {r.type && <span className="text-xs text-muted-foreground">{r.type.replace(/_/g, " ")}</span>}
                      {r.status !== "active" && <Badge variant="outline">{r.status}</Badge>}
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="text-sm text-muted-foreground">
                  No registrations: Stripe charges no tax anywhere until one is added.
                </p>
              )}
            </div>
            <div className="space-y-2">
              <h3 className="text-sm font-medium">Thresholds</h3>
              <p className="text-xs text-muted-foreground">
                Sales (gross, as charged) · orders. Thresholds in other currencies are compared at a fixed rate.
              </p>
              <ThresholdTable rows={data.thresholds} />
              <ul className="divide-y rounded-md border sm:hidden">
                {data.thresholds.map((t) => (
                  <ThresholdCard key={t.key} t={t} />
                ))}
              </ul>
            </div>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
