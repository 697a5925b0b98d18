// The creator's figures from the ledger (GET /api/earnings/stats), the next payout, and any payout
// in "In payouts" that is delayed (GET /api/payout/history, the list below shares it).
import { useQuery } from "@tanstack/react-query";
import { CalendarClock } from "lucide-react";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { formatDollars } from "@shared/money";
import { delayText, nextPayoutText } from "./format";
import { LoadFailed } from "@/components/load-failed";
import { apiQuery } from "@/lib/api";

export function EarningsOverview() {
  const stats = useQuery(apiQuery("GET /api/earnings/stats"));
  const next = useQuery(apiQuery("GET /api/payout/next"));
  const history = useQuery(apiQuery("GET /api/payout/history"));
  const delayed = (history.data ?? []).flatMap((p) => (p.delay ? [{ ...p, delay: p.delay }] : []));
  useUnauthorizedRedirect(stats.error ?? next.error);
  const s = stats.data;
  const figures = s
    ? [
        { label: "Available", value: s.availableBalance, hint: "Ready for the next payout" },
        { label: "On hold", value: s.onHold, hint: "Recent sales, held for refunds and disputes" },
        { label: "In payouts", value: s.pendingPayouts, hint: "Prepared or being sent" },
        { label: "Paid out", value: s.paidOut, hint: "Sent to you so far" },
        { label: "Total earnings", value: s.totalEarnings, hint: "Your share of every sale, net of refunds" },
      ]
    : [];
  return (
    <Card>
      <CardHeader>
        <CardTitle>Earnings overview</CardTitle>
        <CardDescription>Every figure comes from your sales, refunds and payouts as they happened.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {stats.isLoading ? (
          <div className="grid grid-cols-2 gap-3 sm:grid-cols-5">
            {Array.from({ length: 5 }, (_, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: five identical placeholders that never move
              <div key={i} className="h-16 animate-pulse rounded-lg bg-muted" />
            ))}
          </div>
        ) : stats.error ? (
          <LoadFailed what="your earnings" detail={stats.error.message} className="text-sm" />
        ) : (
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5" data-testid="earnings-overview">
            {figures.map((f) => (
              <div key={f.label} className="rounded-lg border bg-muted/30 p-3" title={f.hint}>
                <dt className="text-xs text-muted-foreground">{f.label}</dt>
                <dd className="mt-1 text-lg font-bold">{formatDollars(f.value)}</dd>
              </div>
            ))}
          </dl>
        )}
        {s && s.reserved > 0 && (
          <p className="rounded-lg border bg-muted/30 px-3 py-2 text-sm" data-testid="earnings-reserved">
            {formatDollars(s.reserved)} is reserved for refunds or disputes on their way and is not in Available. It is
            available again if they do not go through.
          </p>
        )}
        {delayed.map((p) => (
          <p
            key={p.id}
            className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
            data-testid="earnings-delayed"
          >
            {p.kind === "withdrawal" ? "Your withdrawal" : "Your payout"} of {formatDollars(p.amount)}:{" "}
            {delayText(p.delay)}
          </p>
        ))}
        {s && s.carriedNegative > 0 && (
          <p className="rounded-lg border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
            A refund or dispute after a payout left {formatDollars(-s.carriedNegative)}. It is carried over and taken
            from your next earnings before anything is paid out.
          </p>
        )}
        <div className="flex items-start gap-2 text-sm" data-testid="next-payout">
          <CalendarClock className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
          {next.isLoading ? (
            <span className="text-muted-foreground">Working out your next payout...</span>
          ) : next.error ? (
            <span className="text-destructive">Couldn't load your next payout.</span>
          ) : (
            next.data && <span>{nextPayoutText(next.data)}</span>
          )}
        </div>
      </CardContent>
    </Card>
  );
}
