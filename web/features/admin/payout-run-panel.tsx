// The period's payout run, live (GET /api/admin/payout-run → PayoutRunView): prepared, sent, paid,
// failed and retrying counts, the next retry, and the payouts that need a look with their reason:
// first those of any month that wait for the platform's Stripe balance, with that balance (GET
// /api/admin/payouts-waiting), then the period's retrying and failed ones. Polled while things move.
import { Activity } from "lucide-react";
import type { PayoutRunView, PayoutsWaitingView } from "@shared/admin";
import { SectionSpinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatDollars } from "@shared/money";
import { METHOD_NAMES } from "./process-confirm";
import { usePayoutRun, usePayoutsWaiting, type Period } from "./queries";
import { LoadFailed } from "@/components/load-failed";

const RUN_WORDS: Record<PayoutRunView["run"]["status"], string> = {
  none: "Not started",
  queued: "Queued",
  running: "Running",
  paused: "Paused",
  waiting: "Waiting",
  waitingForPause: "Pausing",
  errored: "Stopped with an error",
  terminated: "Stopped",
  complete: "Complete",
  unknown: "Unknown",
};

const when = (iso: string | null) =>
  iso ? new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short" }) : "—";

export function PayoutRunPanel({ period }: { period: Period }) {
  const { data, isLoading, error, isFetching } = usePayoutRun(period);
  const waiting = usePayoutsWaiting();
  const waitingIds = new Set(waiting.data?.payouts.map((w) => w.payoutId));
  const attention = data?.attention.filter((a) => !waitingIds.has(a.payoutId)) ?? [];
  const counts: [string, keyof PayoutRunView][] = [
    ["Prepared", "prepared"],
    ["Sent", "sent"],
    ["Paid", "paid"],
    ["Failed", "failed"],
    ["Retrying", "retrying"],
    ["By hand", "pendingManual"],
  ];
  return (
    <Card data-testid="payout-run">
      <CardHeader className="flex flex-row items-start justify-between gap-3">
        <div>
          <CardTitle className="flex items-center gap-2">
            <Activity className="size-5" /> Payout run
          </CardTitle>
          <CardDescription>
            The chosen month's run as it happens{isFetching && data ? " · updating" : ""}
          </CardDescription>
        </div>
        {data && (
          <Badge
            variant={
              data.run.status === "complete" ? "success" : data.run.status === "errored" ? "destructive" : "secondary"
            }
          >
            {RUN_WORDS[data.run.status] ?? data.run.status}
          </Badge>
        )}
      </CardHeader>
      <CardContent className="space-y-4 text-sm">
        {isLoading ? (
          <SectionSpinner />
        ) : error ? (
          <LoadFailed what="the payout run" detail={error.message} />
        ) : !data ? null : (
          <>
            {data.run.error && <p className="text-destructive">{data.run.error}</p>}
            <dl className="grid grid-cols-3 gap-3 sm:grid-cols-6">
              {counts.map(([label, key]) => (
                <div key={key} className="rounded-md border p-2">
                  <dt className="text-xs text-muted-foreground">{label}</dt>
                  <dd className="text-lg font-semibold">{String(data[key])}</dd>
                </div>
              ))}
            </dl>
            <p className="text-muted-foreground">Next retry: {when(data.nextRetryAt)}</p>
            <section className="space-y-2" data-testid="needs-a-look">
              <h3 className="font-semibold">Needs a look</h3>
              {waiting.data?.payouts.length ? <PlatformBalance view={waiting.data} /> : null}
              {!waiting.data?.payouts.length && attention.length === 0 ? (
                <p className="text-muted-foreground">No payout needs a look.</p>
              ) : (
                <ul className="divide-y rounded-md border">
                  {waiting.data?.payouts.map((w) => (
                    <li key={w.payoutId} className="space-y-1 p-2" data-testid="needs-a-look-row">
                      <div className="flex flex-wrap items-center justify-between gap-2">
                        <div className="min-w-0 font-medium break-words">{w.name || w.email}</div>
                        <Badge variant="warning">Waiting for the platform's balance</Badge>
                      </div>
                      <div className="text-xs text-muted-foreground">
                        {w.what} · {formatDollars(w.amount)}
                        {w.nextRetryAt ? ` · next try ${when(w.nextRetryAt)}` : ""}
                      </div>
                      <div className="text-xs text-amber-800 break-words">{w.reason}</div>
                    </li>
                  ))}
                  {attention.map((a) => (
                    <li
                      key={a.payoutId}
                      className="flex flex-col gap-1 p-2 sm:flex-row sm:items-center sm:justify-between"
                      data-testid="needs-a-look-row"
                    >
                      <div className="min-w-0">
                        <div className="font-medium break-words">{a.name || a.email}</div>
                        <div className="text-xs text-muted-foreground">
                          {formatDollars(a.amount)} · {METHOD_NAMES[a.method] ?? a.method}
                          {a.nextRetryAt ? ` · retry ${when(a.nextRetryAt)}` : ""}
                        </div>
                        <div className="text-xs text-destructive break-all">{a.reason}</div>
                      </div>
                      <Badge variant={a.status === "Failed" ? "destructive" : "warning"}>{a.status}</Badge>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </>
        )}
      </CardContent>
    </Card>
  );
}

/** The platform's Stripe balance beside the payouts that wait for it. */
function PlatformBalance({ view }: { view: PayoutsWaitingView }) {
  const b = view.platformBalance;
  return (
    <p className="rounded-md border border-amber-200 bg-amber-50 p-2 text-amber-900" data-testid="platform-balance">
      {b
        ? `Platform balance at Stripe: ${formatDollars(b.available)} available, ${formatDollars(b.pending)} pending.`
        : "The platform's balance could not be read from Stripe just now."}
    </p>
  );
}
