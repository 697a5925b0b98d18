// "Withdraw now" on /settings (GET/POST /api/payout/withdraw): everything available goes to the
// connected bank account any day, one withdrawal at a time. When it cannot, the button is disabled
// and the server's reason is shown in the same words the refusal would use. The press answers with
// the withdrawal on its way (its send Workflow pays it moments later, or retries while Stripe is
// down): while it is open the card polls its status, and when it settles every figure is refreshed.
// A withdrawal Stripe did not take yet (e.g. the platform's balance was short) reads "Delayed" with
// when the next try is; its money stays in it meanwhile.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowDownToLine } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import { WITHDRAW_MESSAGES } from "@shared/payouts";
import type { PayoutHistoryItem } from "@shared/payouts";
import { Spinner } from "@/components/spinner";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { useUnauthorizedRedirect } from "@/features/dashboard/use-unauthorized-redirect";
import { toast } from "@/hooks/use-toast";
import { api, apiQuery } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { formatDollars } from "@shared/money";
import { delayText, formatDate, payoutStatusText, payoutStatusVariant, withoutStatus } from "./format";
import { LoadFailed } from "@/components/load-failed";

const isOpen = (w: PayoutHistoryItem | null | undefined) => w?.status === "pending" || w?.status === "processing";
/** How often an open withdrawal's status is asked again (less often while it waits for its next try). */
const FOLLOW_MS = 2500;
const FOLLOW_DELAYED_MS = 30_000;
/** The page's figures a withdrawal moves (the card's own status is polled). */
const MOVED_BY_WITHDRAWAL = [
  queryKeys.earningsStats,
  queryKeys.nextPayout,
  queryKeys.payoutHistory,
  queryKeys.moneyTimeline,
];

export function WithdrawCard() {
  const queryClient = useQueryClient();
  const status = useQuery({
    ...apiQuery("GET /api/payout/withdraw"),
    refetchInterval: (query) => {
      const latest = query.state.data?.latest;
      return isOpen(latest) ? (latest?.delay ? FOLLOW_DELAYED_MS : FOLLOW_MS) : false;
    },
  });
  useUnauthorizedRedirect(status.error);
  const [confirming, setConfirming] = useState(false);
  // The open withdrawal this page saw; when it settles, the rest of the page is brought up to date.
  const following = useRef<string | null>(null);
  // When the open withdrawal turns Delayed (or its next try moves), the history and timeline say so too.
  const delaySeen = useRef<string | null>(null);
  const latest = status.data?.latest;
  useEffect(() => {
    if (!latest) return;
    if (isOpen(latest)) {
      following.current = latest.id;
      const delay = latest.delay?.nextTryAt ?? null;
      if (delay !== delaySeen.current) {
        delaySeen.current = delay;
        for (const queryKey of MOVED_BY_WITHDRAWAL) void queryClient.invalidateQueries({ queryKey });
      }
      return;
    }
    if (following.current !== latest.id) return;
    following.current = null;
    for (const queryKey of MOVED_BY_WITHDRAWAL) void queryClient.invalidateQueries({ queryKey });
    if (latest.status === "failed")
      toast({
        title: "Withdrawal Failed",
        description: `${latest.notes ?? "Your withdrawal could not be sent."} The money is back in your available balance.`,
        variant: "destructive",
      });
  }, [latest, queryClient]);
  const withdraw = useMutation({
    mutationFn: () => api("POST /api/payout/withdraw", { body: {} }),
    onSuccess: (w) => {
      if (w.status === "failed")
        toast({
          title: "Withdrawal Failed",
          description: `${w.notes ?? "Your withdrawal could not be sent."} The money is back in your available balance.`,
          variant: "destructive",
        });
      else if (w.delay) toast({ title: "Withdrawal delayed", description: delayText(w.delay) });
      else if (w.status === "paid")
        toast({
          title: "Withdrawal sent",
          description: `${formatDollars(w.amount)} is on its way to your bank account. It usually arrives in 2-3 business days.`,
        });
      else
        toast({
          title: "Withdrawal on its way",
          description: `We're sending ${formatDollars(w.amount)} to your bank account now. It usually arrives in 2-3 business days.`,
        });
    },
    onError: (err) =>
      toast({ title: "Withdrawal Failed", description: withoutStatus(err.message), variant: "destructive" }),
    onSettled: async () => {
      setConfirming(false);
      // Every figure on the page moved: refresh them all.
      await Promise.all(
        [queryKeys.withdrawStatus, ...MOVED_BY_WITHDRAWAL].map((queryKey) =>
          queryClient.invalidateQueries({ queryKey }),
        ),
      );
    },
  });
  const s = status.data;
  const amount = s ? formatDollars(s.available) : "";
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <ArrowDownToLine className="size-5" /> Withdraw now
        </CardTitle>
        <CardDescription>
          Don't wait for the 1st: send your available balance to your bank account today.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-3" data-testid="withdraw-card">
        {status.isLoading ? (
          <Spinner className="size-6" />
        ) : status.error ? (
          <LoadFailed
            what="your balance for withdrawal"
            detail={withoutStatus(status.error.message)}
            className="text-sm"
          />
        ) : (
          s && (
            <>
              <div className="flex flex-wrap items-center justify-between gap-3">
                <div>
                  <p className="text-xs text-muted-foreground">Available to withdraw</p>
                  <p className="text-2xl font-bold" data-testid="withdraw-available">
                    {amount}
                  </p>
                </div>
                <Button onClick={() => setConfirming(true)} disabled={!!s.blockedBy || withdraw.isPending}>
                  {withdraw.isPending && <Spinner className="size-4 text-current" />} Withdraw now
                </Button>
              </div>
              {s.blockedBy && (
                <p className="text-sm text-muted-foreground" data-testid="withdraw-blocked">
                  {WITHDRAW_MESSAGES[s.blockedBy]}
                </p>
              )}
              {s.latest && (
                <div
                  className="flex flex-wrap items-center justify-between gap-2 rounded-lg border px-3 py-2 text-sm"
                  data-testid="withdraw-latest"
                >
                  <span>
                    Your withdrawal of {formatDollars(s.latest.amount)} on {formatDate(s.latest.createdAt)}
                    {s.latest.status === "failed" && s.latest.notes ? `: ${s.latest.notes}` : ""}
                  </span>
                  <Badge variant={payoutStatusVariant(s.latest.status)}>{payoutStatusText(s.latest)}</Badge>
                  {isOpen(s.latest) && s.latest.delay && (
                    <p className="w-full text-muted-foreground" data-testid="withdraw-delay">
                      {delayText(s.latest.delay)}
                    </p>
                  )}
                </div>
              )}
            </>
          )
        )}
      </CardContent>
      <Dialog open={confirming} onOpenChange={(open) => !withdraw.isPending && setConfirming(open)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Withdraw {amount}?</DialogTitle>
            <DialogDescription>
              Withdraw {amount} to your connected bank account. It is sent by Stripe now and usually arrives in 2-3
              business days. Sales still on hold stay for the next payout.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setConfirming(false)} disabled={withdraw.isPending}>
              Cancel
            </Button>
            <Button onClick={() => withdraw.mutate()} disabled={withdraw.isPending}>
              {withdraw.isPending && <Spinner className="size-4 text-current" />}
              Withdraw {amount}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  );
}
