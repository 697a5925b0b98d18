// The creator's plan on /settings: Pro with its renewal (or end) date and cancel at period end,
// or the free plan with a way to Pro.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Crown } from "lucide-react";
import { PLATFORM_FEE_PERCENT } from "@shared/pricing";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { formatDate } from "@/features/payouts/format";
import { toast } from "@/hooks/use-toast";
import { api, apiQuery, withoutStatus } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { LoadFailed } from "@/components/load-failed";

export type SubscriptionState = {
  plan: "free" | "pro";
  status: string | null;
  currentPeriodEnd: string | null;
  cancelAtPeriodEnd: boolean;
};

export function PlanCard() {
  const queryClient = useQueryClient();
  const { data, isLoading, error } = useQuery(apiQuery("GET /api/subscription"));
  const cancel = useMutation({
    mutationFn: () => api("POST /api/subscription/cancel"),
    onSuccess: (next) => {
      queryClient.setQueryData(queryKeys.subscription, next);
      toast({
        title: "Pro canceled",
        description: next.currentPeriodEnd
          ? `Pro stays active until ${formatDate(next.currentPeriodEnd)}.`
          : "Pro ends at the end of this period.",
      });
    },
    onError: (err) =>
      toast({
        title: "Error",
        description: err instanceof Error ? withoutStatus(err.message) : "An unexpected error occurred",
        variant: "destructive",
      }),
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Crown className="size-5 text-amber-500" /> Your plan
        </CardTitle>
      </CardHeader>
      <CardContent className="space-y-3 text-sm" data-testid="plan-card">
        {isLoading ? (
          <Spinner className="size-6" />
        ) : error || !data ? (
          <LoadFailed what="your plan" />
        ) : data.plan === "pro" ? (
          <>
            <p className="text-lg font-semibold">Pro · 0% platform fee</p>
            {data.status === "past_due" && (
              <p className="text-amber-700">
                Your last renewal payment failed. Stripe will retry your card; update it to keep Pro.
              </p>
            )}
            {data.currentPeriodEnd && (
              <p className="text-muted-foreground">
                {data.cancelAtPeriodEnd
                  ? `Pro ends on ${formatDate(data.currentPeriodEnd)}.`
                  : `Renews on ${formatDate(data.currentPeriodEnd)}.`}
              </p>
            )}
            {!data.cancelAtPeriodEnd && (
              <Button variant="outline" size="sm" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
                {cancel.isPending && <Spinner className="size-4 text-current" />} Cancel at period end
              </Button>
            )}
          </>
        ) : (
          <>
            <p className="text-lg font-semibold">Creator · free, {PLATFORM_FEE_PERCENT}% platform fee</p>
            <Button size="sm" variant="brand" asChild>
              <Link to="/subscribe">Upgrade to Pro</Link>
            </Button>
          </>
        )}
      </CardContent>
    </Card>
  );
}
