// Where each sale's money stands, newest first (GET /api/earnings/timeline, paged).
import { History } from "lucide-react";
import type { MoneyState } from "@shared/types";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { formatUsd } from "@/lib/utils";
import { formatDate, moneyStateText } from "./format";
import { useTimelinePages } from "./pages";

const stateVariant = (s: MoneyState) =>
  s.kind === "paid" || s.kind === "available" ? "success" : s.kind === "reversed" ? "destructive" : s.kind === "on_hold" ? "warning" : "secondary";

export function MoneyTimeline() {
  const { data, isLoading, error, hasNextPage, fetchNextPage, isFetchingNextPage } = useTimelinePages();
  useUnauthorizedRedirect(error);
  const items = data?.pages.flatMap((p) => p.items) ?? [];
  return (
    <Card>
      <CardHeader>
        <CardTitle>Where your money is</CardTitle>
        <CardDescription>Each sale, your share of it and where that money stands now.</CardDescription>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <p className="py-8 text-center text-destructive">Couldn't load your money timeline. {error.message}</p>
        ) : items.length === 0 ? (
          <EmptyState icon={History} title="No sales yet" text="When someone buys, each sale appears here with your share and when it will be paid." />
        ) : (
          <div className="space-y-3">
            <ul className="divide-y rounded-lg border" data-testid="money-timeline">
              {items.map((item) => (
                <li key={item.purchaseId} className="flex flex-wrap items-center justify-between gap-2 px-4 py-3 text-sm">
                  <div className="min-w-0">
                    <p className="truncate font-medium">{item.productName}</p>
                    <p className="text-muted-foreground">
                      {item.createdAt ? formatDate(item.createdAt) : "—"} · sale {formatUsd(item.amount)} · your share {formatUsd(item.creatorShare)}
                    </p>
                    {item.feeAdjustment && (
                      <p className="text-muted-foreground" data-testid="fee-adjustment">
                        {item.feeAdjustment.reason}: {formatUsd(item.feeAdjustment.amount)}
                      </p>
                    )}
                  </div>
                  <Badge variant={stateVariant(item.state)}>{moneyStateText(item.state)}</Badge>
                </li>
              ))}
            </ul>
            {hasNextPage && (
              <div className="flex justify-center">
                <Button size="sm" variant="outline" onClick={() => fetchNextPage()} disabled={isFetchingNextPage}>
                  {isFetchingNextPage ? "Loading..." : "Load more"}
                </Button>
              </div>
            )}
          </div>
        )}
      </CardContent>
    </Card>
  );
}
