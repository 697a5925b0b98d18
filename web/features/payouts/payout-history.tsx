// Payouts made to the creator (GET /api/payout/history); a delayed transfer says why and its next try.
import { useQuery } from "@tanstack/react-query";
import { Banknote } from "lucide-react";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { formatDollars } from "@shared/money";
import { delayText, formatDate, METHOD_LABELS, payoutStatusText, payoutStatusVariant } from "./format";
import { LoadFailed } from "@/components/load-failed";
import { apiQuery } from "@/lib/api";

export function PayoutHistory() {
  const { data, isLoading, error } = useQuery(apiQuery("GET /api/payout/history"));
  useUnauthorizedRedirect(error);
  return (
    <Card>
      <CardHeader>
        <CardTitle>Payout history</CardTitle>
        <CardDescription>Every payout prepared for you and every withdrawal you made.</CardDescription>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <LoadFailed what="your payouts" detail={error.message} className="py-6 text-center" />
        ) : !data?.length ? (
          <div className="flex flex-col items-center gap-2 py-8 text-center text-muted-foreground">
            <Banknote className="size-8" />
            <p>No payouts yet.</p>
          </div>
        ) : (
          <ul className="divide-y rounded-lg border" data-testid="payout-history">
            {data.map((p) => {
              return (
                <li key={p.id} className="flex flex-wrap items-center justify-between gap-2 px-4 py-3 text-sm">
                  <div>
                    <p className="font-medium">
                      {p.kind === "withdrawal" ? "Withdrawal · " : ""}
                      {formatDollars(p.amount)} · {METHOD_LABELS[p.payoutMethod] ?? p.payoutMethod}
                      {p.payoutEmail ? ` · ${p.payoutEmail}` : ""}
                    </p>
                    <p className="text-muted-foreground">
                      Prepared {formatDate(p.createdAt)}
                      {p.paidAt ? ` · paid ${formatDate(p.paidAt)}` : ""}
                      {p.notes ? ` · ${p.notes}` : ""}
                    </p>
                    {p.delay && <p data-testid="payout-delay">{delayText(p.delay)}</p>}
                  </div>
                  <Badge variant={payoutStatusVariant(p.status)}>{payoutStatusText({ ...p, paidAt: null })}</Badge>
                </li>
              );
            })}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
