import { Card, CardContent } from "@/components/ui/card";
import { formatDollars } from "@shared/money";
import { useSummary } from "./queries";
import { LoadFailed } from "@/components/load-failed";

/** Spec §3 admin payout summary: every figure is a ledger sum on the server. */
export function SummaryCards() {
  const { data, isLoading, error } = useSummary();
  if (isLoading)
    return <div className="h-28 animate-pulse rounded-xl bg-muted" role="status" aria-label="Loading summary" />;
  if (error || !data) return <LoadFailed what="the payout summary" detail={error?.message} />;
  const cards = [
    { label: "Total Revenue", value: formatDollars(data.totalRevenue) },
    { label: "Platform Commission", value: formatDollars(data.platformCommission) },
    { label: "Total Payouts", value: formatDollars(data.totalPayouts) },
    { label: "Creators", value: data.creatorCount.toLocaleString() },
    { label: "Pending Payouts", value: formatDollars(data.pendingPayouts) },
  ];
  return (
    <div className="grid grid-cols-2 gap-4 md:grid-cols-5">
      {cards.map((c) => (
        <Card key={c.label} className="gap-1 py-5">
          <CardContent className="px-5">
            <p className="text-sm text-muted-foreground">{c.label}</p>
            <p className="mt-1 text-2xl font-bold" data-testid={`summary-${c.label}`}>
              {c.value}
            </p>
          </CardContent>
        </Card>
      ))}
    </div>
  );
}
