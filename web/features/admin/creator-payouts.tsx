// Creator payout rows for a chosen month (spec §3, §4): each row's true status (shared/admin.ts
// adminRowStatus; the spec's 'Ready for Payout' / 'Below Minimum ($25)' where they are true), the
// month's payout if one exists with the row's actions, 'Process All Payouts' (asked first) and the CSV.
import { Download, Users } from "lucide-react";
import { useState } from "react";
import { READY_FOR_PAYOUT, type AdminCreatorPayoutRow, type PayoutRowStatus } from "@shared/admin";
import { MANUAL_PAYOUT_DAY } from "@shared/payouts";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/hooks/use-toast";
import { formatDollars } from "@shared/money";
import { RowActions } from "./payout-actions";
import { METHOD_NAMES, ProcessConfirmDialog, processPlan } from "./process-confirm";
import { useCreatorPayouts, useDownloadPayoutsCsv, useProcessPayouts, type Period } from "./queries";
import { LoadFailed } from "@/components/load-failed";

const MONTHS = Array.from({ length: 12 }, (_, i) =>
  new Date(Date.UTC(2024, i, 1)).toLocaleString("en-US", { month: "long", timeZone: "UTC" }),
);
const YEARS = Array.from({ length: 7 }, (_, i) => 2024 + i);
const selectClass = "h-9 rounded-md border border-input bg-background px-3 text-sm shadow-xs";

function PeriodPicker({ period, onChange }: { period: Period; onChange: (p: Period) => void }) {
  return (
    <div className="flex gap-2">
      <label className="sr-only" htmlFor="admin-month">
        Month
      </label>
      <select
        id="admin-month"
        className={selectClass}
        value={period.month}
        onChange={(e) => onChange({ ...period, month: Number(e.target.value) })}
      >
        {MONTHS.map((m, i) => (
          <option key={m} value={i + 1}>
            {m}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor="admin-year">
        Year
      </label>
      <select
        id="admin-year"
        className={selectClass}
        value={period.year}
        onChange={(e) => onChange({ ...period, year: Number(e.target.value) })}
      >
        {YEARS.map((y) => (
          <option key={y} value={y}>
            {y}
          </option>
        ))}
      </select>
    </div>
  );
}

const PAYOUT_STATUS: Record<string, string> = {
  pending: "Prepared",
  processing: "Sending",
  paid: "Paid",
  failed: "Failed",
};
const BADGE: Record<PayoutRowStatus, "success" | "secondary" | "destructive" | "warning" | "outline" | "default"> = {
  Paid: "success",
  Pending: "default",
  Retrying: "warning",
  Failed: "destructive",
  Held: "warning",
  "Not set up": "outline",
  "Below minimum": "secondary",
};
const statusBadge = (r: AdminCreatorPayoutRow) => (
  <Badge variant={r.statusLabel === READY_FOR_PAYOUT ? "success" : BADGE[r.status]}>{r.statusLabel}</Badge>
);

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
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <PeriodPicker period={period} onChange={onPeriodChange} />
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
          <div className="relative overflow-x-auto">
            <table className="w-full text-sm">
              <thead className="text-left text-muted-foreground">
                <tr className="border-b">
                  <th className="py-2 pr-3 font-medium">Creator</th>
                  <th className="py-2 pr-3 font-medium">Payout method</th>
                  <th className="py-2 pr-3 text-right font-medium">Total earnings</th>
                  <th className="py-2 pr-3 text-right font-medium">Available</th>
                  <th className="py-2 pr-3 text-right font-medium">Content</th>
                  <th className="py-2 pr-3 font-medium">Status</th>
                  <th className="py-2 pr-3 font-medium">This month's payout</th>
                  <th className="py-2 font-medium">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.map((r) => (
                  <tr key={r.userId} className="border-b last:border-0" data-testid="creator-payout-row">
                    <td className="py-2 pr-3">
                      {r.firstName || r.lastName ? (
                        <>
                          <div className="font-medium">{[r.firstName, r.lastName].filter(Boolean).join(" ")}</div>
                          <div className="text-xs text-muted-foreground">{r.email}</div>
                        </>
                      ) : (
                        <div className="font-medium break-all">{r.email}</div>
                      )}
                    </td>
                    <td className="py-2 pr-3">
                      {r.payoutSetUp ? (
                        <>
                          <div>{METHOD_NAMES[r.payoutMethod ?? ""] ?? r.payoutMethod}</div>
                          <div className="text-xs text-muted-foreground">{r.payoutEmail}</div>
                        </>
                      ) : (
                        <span className="text-muted-foreground">Not set up</span>
                      )}
                    </td>
                    <td className="py-2 pr-3 text-right">{formatDollars(r.totalEarnings)}</td>
                    <td className="py-2 pr-3 text-right font-medium">{formatDollars(r.availableBalance)}</td>
                    <td className="py-2 pr-3 text-right">{r.contentCount}</td>
                    <td className="py-2 pr-3">
                      {statusBadge(r)}
                      {r.held?.reason && <div className="mt-1 text-xs text-muted-foreground">{r.held.reason}</div>}
                    </td>
                    <td className="py-2 pr-3">
                      {r.payout ? (
                        <>
                          <div>{`${formatDollars(r.payout.amount)} · ${PAYOUT_STATUS[r.payout.status] ?? r.payout.status}`}</div>
                          {r.payout.status === "failed" && r.payout.notes && (
                            <div className="text-xs text-destructive">{r.payout.notes}</div>
                          )}
                          {r.payout.reference && (
                            <div className="text-xs text-muted-foreground break-all">Ref: {r.payout.reference}</div>
                          )}
                          {r.status === "Retrying" && (
                            <div className="text-xs text-amber-700 break-all">
                              {r.payout.nextRetryAt
                                ? `Retry ${new Date(r.payout.nextRetryAt).toLocaleString()}`
                                : "Retrying"}
                              {r.payout.lastError ? ` · ${r.payout.lastError}` : ""}
                            </div>
                          )}
                        </>
                      ) : (
                        <span className="text-muted-foreground">None</span>
                      )}
                    </td>
                    <td className="py-2 text-right">
                      <RowActions row={r} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
