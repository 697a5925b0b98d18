// The month's orders whose tax in our ledger and in Stripe's tax transactions disagree, and the
// re-read that records from Stripe the ones missing here (one batch per call until none remain).
import { EVERYTHING_MATCHES, TAX_DIFFERENCE_TEXT, TAX_DIFFERENCES_SHOWN, type TaxDifference } from "@shared/admin-tax";
import { formatCents } from "@shared/money";
import { CircleCheck, RefreshCw } from "lucide-react";
import { LoadFailed } from "@/components/load-failed";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/hooks/use-toast";
import { withoutStatus } from "@/lib/api";
import { type Period, useRereadTax, useTaxReconciliation } from "./queries";

const amount = (c: number | null) => (c === null ? "—" : formatCents(c));
const plural = (n: number, one: string, many: string) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

function Difference({ d }: { d: TaxDifference }) {
  return (
    <li
      className="flex flex-col gap-2 p-3 text-sm sm:flex-row sm:items-center sm:justify-between"
      data-testid="tax-difference"
    >
      <div className="min-w-0 space-y-1">
        <div className="flex flex-wrap items-center gap-2">
          <Badge variant={d.kind === "amounts_differ" ? "warning" : "destructive"}>{TAX_DIFFERENCE_TEXT[d.kind]}</Badge>
          <span className="font-medium">{d.what === "transaction" ? "Sale" : "Refunds and disputes"}</span>
          <span className="text-muted-foreground">· {d.place}</span>
        </div>
        <div className="break-all font-mono text-xs text-muted-foreground">{d.paymentIntentId ?? d.orderId}</div>
      </div>
      <dl className="grid w-fit shrink-0 grid-cols-2 gap-x-6 tabular-nums sm:text-right">
        <dt className="text-xs text-muted-foreground">Ledger</dt>
        <dt className="text-xs text-muted-foreground">Stripe</dt>
        <dd>{amount(d.oursCents)}</dd>
        <dd>{amount(d.stripeCents)}</dd>
      </dl>
    </li>
  );
}

export function TaxReconciliationCard({ period }: { period: Period }) {
  const { data, isLoading, error, refetch } = useTaxReconciliation(period);
  const reread = useRereadTax({
    onSuccess: (r) =>
      toast({
        title: `Recorded ${plural(r.recorded, "tax transaction", "tax transactions")} from Stripe`,
        description: r.notAtStripe ? `Stripe has none for ${plural(r.notAtStripe, "order", "orders")}.` : undefined,
      }),
    onError: (e) =>
      toast({ title: "Re-reading from Stripe failed", description: withoutStatus(e.message), variant: "destructive" }),
  });
  return (
    <Card>
      <CardHeader className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="space-y-1.5">
          <CardTitle>Reconciliation with Stripe</CardTitle>
          <CardDescription>
            Each order's tax in our ledger against Stripe's tax transactions: one transaction per sale, one reversal per
            refund.
          </CardDescription>
        </div>
        {!!data?.rereadable && (
          <Button variant="outline" size="sm" onClick={() => reread.mutate(period)} disabled={reread.isPending}>
            {reread.isPending ? <Spinner className="size-4" label="Re-reading" /> : <RefreshCw className="size-4" />}
            Re-read {plural(data.rereadable, "order", "orders")} from Stripe
          </Button>
        )}
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <LoadFailed what="the reconciliation" detail={withoutStatus(error.message)} onRetry={refetch} />
        ) : !data?.differences.length ? (
          <div className="flex items-center gap-3 rounded-md border border-emerald-200 bg-emerald-50 p-4 text-sm text-emerald-900">
            <CircleCheck className="size-5 shrink-0" />
            <div>
              <p className="font-medium">{EVERYTHING_MATCHES}</p>
              <p className="text-emerald-800">{plural(data?.ordersChecked ?? 0, "order", "orders")} checked.</p>
            </div>
          </div>
        ) : (
          <div className="space-y-3">
            <p className="text-sm text-muted-foreground">
              {plural(data.differences.length, "difference", "differences")} in{" "}
              {plural(data.ordersChecked, "order", "orders")} checked
              {data.truncated ? ` (the first ${TAX_DIFFERENCES_SHOWN} orders with one are listed)` : ""}.
            </p>
            <ul className="divide-y rounded-md border">
              {data.differences.map((d) => (
                <Difference key={`${d.orderId}-${d.what}`} d={d} />
              ))}
            </ul>
          </div>
        )}
        {!!data?.openDisputes.orders && (
          <p className="mt-3 text-sm text-muted-foreground" data-testid="tax-open-disputes">
            Not counted: {plural(data.openDisputes.orders, "order", "orders")} with a dispute still open (
            {formatCents(data.openDisputes.taxCents)} of tax taken back here). Stripe is asked to reverse it only if the
            dispute is lost.
          </p>
        )}
      </CardContent>
    </Card>
  );
}
