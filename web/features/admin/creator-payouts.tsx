// Creator payout rows for a chosen month (spec §3, §4), named with the sales they pay: each row's true
// status (shared/admin.ts adminRowStatus), the month's payout with the row's actions (./creator-rows.tsx:
// a table from the sm breakpoint, a stacked row per creator below it), 'Process All Payouts' (asked
// first) and the CSV.
import { Download, Users } from "lucide-react";
import { useState } from "react";
import { READY_FOR_PAYOUT, runDayText, salesUpToText, scheduledRunAt } from "@shared/admin";
import { MANUAL_PAYOUT_DAY } from "@shared/payouts";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/hooks/use-toast";
import { PayoutTable, StackedRows } from "./creator-rows";
import { ProcessConfirmDialog, processPlan } from "./process-confirm";
import { useCreatorPayouts, useDownloadPayoutsCsv, useProcessPayouts, type Period } from "./queries";
import { LoadFailed } from "@/components/load-failed";
import { PeriodPicker } from "./period-picker";

/** The month that closed last: a press prepares only that one (the run's rule). */
const isClosing = (p: Period, now = new Date()) => {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return d.getUTCFullYear() === p.year && d.getUTCMonth() + 1 === p.month;
};

export function CreatorPayouts({ period, onPeriodChange }: { period: Period; onPeriodChange: (p: Period) => void }) {
  const { data, isLoading, error } = useCreatorPayouts(period);
  const [confirming, setConfirming] = useState(false);
  const process = useProcessPayouts({
    onSuccess: (r) => {
      setConfirming(false);
      toast({
        title: "Payouts Processed",
        description: `${r.prepared} prepared, ${r.sent} sent by transfer${r.queued ? ` (${r.queued} more on their way)` : ""}, ${r.markedProcessed} marked paid${r.failed ? `, ${r.failed} failed` : ""}${r.retryLater ? `, ${r.retryLater} to retry` : ""}.`,
      });
    },
    onError: (e) => {
      setConfirming(false);
      toast({ title: "Processing Failed", description: e.message, variant: "destructive" });
    },
  });
  const csv = useDownloadPayoutsCsv({
    onSuccess: (r) =>
      toast({ title: "CSV Downloaded", description: `${r.fileName}: ${r.rows} payout${r.rows === 1 ? "" : "s"}.` }),
    onError: (e) => toast({ title: "Export Failed", description: e.message, variant: "destructive" }),
  });
  const ready = data?.filter((r) => r.statusLabel === READY_FOR_PAYOUT).length ?? 0;
  // What the press does, from the list on screen: the manual payouts listed as pending (of creators
  // not held) are the ones marked paid, never a payout prepared after this list was read.
  const plan = processPlan(data ?? [], isClosing(period));
  const periodName = new Date(Date.UTC(period.year, period.month - 1, 1)).toLocaleString("en-US", {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });

  return (
    <Card>
      <CardHeader className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <CardTitle>Creator Payouts</CardTitle>
          <CardDescription>
            {data
              ? `${data.length} creators, ${ready} ready for payout`
              : "Available balances and this month's payouts"}
          </CardDescription>
          <p className="mt-1 text-sm text-muted-foreground" data-testid="payout-period">
            {`${periodName} payouts: the run on ${runDayText(period)} pays ${salesUpToText(scheduledRunAt(period)).replace("for ", "")} (each sale is held 7 days); a payout prepared later pays later sales too, as its row says.`}
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <PeriodPicker idPrefix="admin" period={period} onChange={onPeriodChange} />
          <Button variant="outline" onClick={() => csv.mutate(period)} disabled={csv.isPending}>
            {csv.isPending ? <Spinner className="size-4" label="Exporting" /> : <Download className="size-4" />} Export
            CSV
          </Button>
          <Button onClick={() => setConfirming(true)} disabled={process.isPending || isLoading}>
            {process.isPending && <Spinner className="size-4 text-primary-foreground" label="Processing" />}
            Process All Payouts
          </Button>
          <ProcessConfirmDialog
            open={confirming}
            onOpenChange={setConfirming}
            plan={plan}
            periodName={periodName}
            salesUpTo={salesUpToText(Date.now())}
            pending={process.isPending}
            onConfirm={() => process.mutate({ ...period, markPaid: plan.markPaid })}
          />
        </div>
      </CardHeader>
      <CardContent className="space-y-4">
        <p className="text-xs text-muted-foreground">
          'Process All Payouts' prepares the month if the monthly run has not, sends bank payouts by transfer, and marks
          paid the PayPal, Wise, Zelle, Venmo and Cash App payouts listed below as Prepared: send those by hand first,
          by the {MANUAL_PAYOUT_DAY}st. A payout prepared by this press appears in the list afterwards and is marked
          paid by the next press.
        </p>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <LoadFailed what="creator payouts" detail={error.message} />
        ) : !data?.length ? (
          <EmptyState
            icon={Users}
            title="No creators yet"
            text="Creators appear here once they upload content or make a sale."
          />
        ) : (
          <>
            <StackedRows rows={data} />
            <PayoutTable rows={data} />
          </>
        )}
      </CardContent>
    </Card>
  );
}
