// Creator payout rows for a chosen month (spec §3, §4): 'Ready for Payout' / 'Below Minimum ($25)',
// the month's payout if one exists, 'Process All Payouts' and the CSV download.
import { Download, Users } from "lucide-react";
import { BELOW_MINIMUM, READY_FOR_PAYOUT } from "@shared/admin";
import { MANUAL_PAYOUT_DAY } from "@shared/constants";
import { EmptyState } from "@/components/empty-state";
import { SectionSpinner, Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/hooks/use-toast";
import { formatUsd } from "@/lib/utils";
import { useCreatorPayouts, useDownloadPayoutsCsv, useProcessPayouts, type Period } from "./queries";

const MONTHS = Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2024, i, 1)).toLocaleString("en-US", { month: "long", timeZone: "UTC" }));
const YEARS = Array.from({ length: 7 }, (_, i) => 2024 + i);
const selectClass = "h-9 rounded-md border border-input bg-background px-3 text-sm shadow-xs";

export function PeriodPicker({ period, onChange }: { period: Period; onChange: (p: Period) => void }) {
  return (
    <div className="flex gap-2">
      <label className="sr-only" htmlFor="admin-month">
        Month
      </label>
      <select id="admin-month" className={selectClass} value={period.month} onChange={(e) => onChange({ ...period, month: Number(e.target.value) })}>
        {MONTHS.map((m, i) => (
          <option key={m} value={i + 1}>
            {m}
          </option>
        ))}
      </select>
      <label className="sr-only" htmlFor="admin-year">
        Year
      </label>
      <select id="admin-year" className={selectClass} value={period.year} onChange={(e) => onChange({ ...period, year: Number(e.target.value) })}>
        {YEARS.map((y) => (
          <option key={y} value={y}>
            {y}
          </option>
        ))}
      </select>
    </div>
  );
}

const PAYOUT_STATUS: Record<string, string> = { pending: "Prepared", processing: "Sending", paid: "Paid", failed: "Failed" };
const METHOD_NAMES: Record<string, string> = { paypal: "PayPal", wise: "Wise", bank: "Bank (Stripe)", zelle: "Zelle", venmo: "Venmo", cashapp: "Cash App" };

export function CreatorPayouts({ period, onPeriodChange }: { period: Period; onPeriodChange: (p: Period) => void }) {
  const { data, isLoading, error } = useCreatorPayouts(period);
  const process = useProcessPayouts({
    onSuccess: (r) =>
      toast({
        title: "Payouts Processed",
        description: `${r.prepared} prepared, ${r.sent} sent by transfer${r.queued ? ` (${r.queued} more on their way)` : ""}, ${r.markedProcessed} marked paid${r.failed ? `, ${r.failed} failed` : ""}${r.retryLater ? `, ${r.retryLater} to retry` : ""}.`,
      }),
    onError: (e) => toast({ title: "Processing Failed", description: e.message, variant: "destructive" }),
  });
  const csv = useDownloadPayoutsCsv({
    onSuccess: (r) => toast({ title: "CSV Downloaded", description: `${r.fileName}: ${r.rows} payout${r.rows === 1 ? "" : "s"}.` }),
    onError: (e) => toast({ title: "Export Failed", description: e.message, variant: "destructive" }),
  });
  const ready = data?.filter((r) => r.status === READY_FOR_PAYOUT).length ?? 0;
  // The prepared payouts of the list on screen: the server marks paid only the manual ones among them
  // (never a payout prepared after this list was read).
  const markPaid = data?.flatMap((r) => (r.payout?.status === "pending" ? [r.payout.id] : [])) ?? [];

  return (
    <Card>
      <CardHeader className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <CardTitle>Creator Payouts</CardTitle>
          <CardDescription>
            {data ? `${data.length} creators, ${ready} ready for payout` : "Available balances and this month's payouts"}
          </CardDescription>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <PeriodPicker period={period} onChange={onPeriodChange} />
          <Button variant="outline" onClick={() => csv.mutate(period)} disabled={csv.isPending}>
            {csv.isPending ? <Spinner className="size-4" label="Exporting" /> : <Download className="size-4" />} Export CSV
          </Button>
          <Button onClick={() => process.mutate({ ...period, markPaid })} disabled={process.isPending || isLoading}>
            {process.isPending && <Spinner className="size-4 text-primary-foreground" label="Processing" />}
            Process All Payouts
          </Button>
        </div>
      </CardHeader>
      <CardContent className="space-y-4">
        <p className="text-xs text-muted-foreground">
          'Process All Payouts' prepares the month if the monthly run has not, sends bank payouts by transfer, and marks paid the PayPal,
          Wise, Zelle, Venmo and Cash App payouts listed below as Prepared: send those by hand first, by the {MANUAL_PAYOUT_DAY}st. A payout
          prepared by this press appears in the list afterwards and is marked paid by the next press.
        </p>
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <p className="text-destructive">Couldn't load creator payouts. {error.message}</p>
        ) : !data?.length ? (
          <EmptyState icon={Users} title="No creators yet" text="Creators appear here once they upload content or make a sale." />
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full text-sm">
              <thead className="text-left text-muted-foreground">
                <tr className="border-b">
                  <th className="py-2 pr-3 font-medium">Creator</th>
                  <th className="py-2 pr-3 font-medium">Payout method</th>
                  <th className="py-2 pr-3 text-right font-medium">Total earnings</th>
                  <th className="py-2 pr-3 text-right font-medium">Available</th>
                  <th className="py-2 pr-3 text-right font-medium">Content</th>
                  <th className="py-2 pr-3 font-medium">Status</th>
                  <th className="py-2 font-medium">This month's payout</th>
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
                    <td className="py-2 pr-3 text-right">{formatUsd(r.totalEarnings)}</td>
                    <td className="py-2 pr-3 text-right font-medium">{formatUsd(r.availableBalance)}</td>
                    <td className="py-2 pr-3 text-right">{r.contentCount}</td>
                    <td className="py-2 pr-3">
                      <Badge variant={r.status === BELOW_MINIMUM ? "secondary" : "success"}>{r.status}</Badge>
                    </td>
                    <td className="py-2">
                      {r.payout ? (
                        <>
                          <div>{`${formatUsd(r.payout.amount)} · ${PAYOUT_STATUS[r.payout.status] ?? r.payout.status}`}</div>
                          {r.payout.status === "failed" && r.payout.notes && <div className="text-xs text-destructive">{r.payout.notes}</div>}
                        </>
                      ) : (
                        <span className="text-muted-foreground">None</span>
                      )}
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
