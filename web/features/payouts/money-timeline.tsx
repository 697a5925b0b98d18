// Where each sale's money stands, newest first (GET /api/earnings/timeline, paged), with the payouts,
// withdrawals and skipped months between them, so every cent is explained.
import { History } from "lucide-react";
import type { MoneyState, TimelineEvent, TimelineItem } from "@shared/earnings";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { formatDollars } from "@shared/money";
import {
  delayText,
  formatDate,
  moneyStateText,
  payoutEventTitle,
  payoutStatusText,
  payoutStatusVariant,
  skipText,
} from "./format";
import { useTimelinePages } from "./pages";
import { SaleTaxLine } from "@/features/settings-tax/sale-tax-line";
import { LoadFailed } from "@/components/load-failed";

const stateVariant = (s: MoneyState) =>
  s.kind === "paid" || s.kind === "available"
    ? "success"
    : s.kind === "reversed"
      ? "destructive"
      : s.kind === "on_hold"
        ? "warning"
        : "secondary";

type Row = { at: string; sale: TimelineItem; event?: never } | { at: string; event: TimelineEvent; sale?: never };

/** A page's sales and events in one newest-first list (the server gives each page the events between its sales). */
const rowsOf = (page: { items: TimelineItem[]; events?: TimelineEvent[] }): Row[] =>
  [
    ...page.items.map((sale) => ({ at: sale.createdAt ?? "", sale })),
    ...(page.events ?? []).map((event) => ({ at: event.at, event })),
  ].sort((a, b) => b.at.localeCompare(a.at));

function EventRow({ event }: { event: TimelineEvent }) {
  if (event.kind === "skip") {
    const { title, advice } = skipText(event);
    return (
      <li
        className="flex flex-wrap items-center justify-between gap-2 bg-amber-50/60 px-4 py-3 text-sm"
        data-testid="timeline-skip"
      >
        <div className="min-w-0">
          <p className="font-medium">{title}</p>
          <p className="text-muted-foreground">
            {formatDate(event.at)} · {advice}
          </p>
        </div>
        <Badge variant="warning">Carried over</Badge>
      </li>
    );
  }
  return (
    <li
      className="flex flex-wrap items-center justify-between gap-2 bg-muted/30 px-4 py-3 text-sm"
      data-testid="timeline-payout"
    >
      <div className="min-w-0">
        <p className="font-medium">
          {payoutEventTitle(event)} · {formatDollars(event.amount)}
        </p>
        <p className="text-muted-foreground">
          {formatDate(event.at)}
          {event.status === "failed" && event.notes ? ` · ${event.notes}` : ""}
          {event.status === "failed" ? " The money is back in your available balance." : ""}
        </p>
        {event.delay && <p data-testid="timeline-delay">{delayText(event.delay)}</p>}
      </div>
      <Badge variant={payoutStatusVariant(event.status)}>{payoutStatusText(event)}</Badge>
    </li>
  );
}

function SaleRow({ item }: { item: TimelineItem }) {
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 px-4 py-3 text-sm">
      <div className="min-w-0">
        <p className="truncate font-medium">{item.productName}</p>
        <p className="text-muted-foreground">
          {item.createdAt ? formatDate(item.createdAt) : "—"} · sale {formatDollars(item.amount)} · your share{" "}
          {formatDollars(item.creatorShare)}
        </p>
        <SaleTaxLine tax={item.tax} className="text-sm" />
        {item.refund && (
          <p
            className={item.refund.afterPayout ? "text-destructive" : "text-muted-foreground"}
            data-testid="timeline-refund"
          >
            Refunded {formatDate(item.refund.at)}: {formatDollars(item.refund.amount)} from your share
            {item.refund.afterPayout
              ? ", after it was paid out: taken from your balance, and from your next earnings if the balance is below zero"
              : ""}
          </p>
        )}
        {item.feeAdjustment && (
          <p className="text-muted-foreground" data-testid="fee-adjustment">
            {item.feeAdjustment.reason}: {formatDollars(item.feeAdjustment.amount)}
          </p>
        )}
      </div>
      <Badge variant={stateVariant(item.state)}>{moneyStateText(item.state)}</Badge>
    </li>
  );
}

export function MoneyTimeline() {
  const { data, isLoading, error, hasNextPage, fetchNextPage, isFetchingNextPage } = useTimelinePages();
  useUnauthorizedRedirect(error);
  const rows = data?.pages.flatMap(rowsOf) ?? [];
  return (
    <Card>
      <CardHeader>
        <CardTitle>Where your money is</CardTitle>
        <CardDescription>
          Each sale, your share of it and where that money stands now, with every payout and withdrawal.
        </CardDescription>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <LoadFailed what="your money timeline" detail={error.message} className="py-8 text-center" />
        ) : rows.length === 0 ? (
          <EmptyState
            icon={History}
            title="No sales yet"
            text="When someone buys, each sale appears here with your share and when it will be paid."
          />
        ) : (
          <div className="space-y-3">
            <ul className="divide-y rounded-lg border" data-testid="money-timeline">
              {rows.map((row) =>
                row.event ? (
                  <EventRow key={`${row.event.kind}:${row.event.id}`} event={row.event} />
                ) : (
                  <SaleRow key={row.sale.purchaseId} item={row.sale} />
                ),
              )}
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
