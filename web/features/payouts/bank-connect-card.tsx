// Bank payouts through Stripe Connect: connect button, 'Setup In Progress', or the payout dashboard
// link (spec §4 Bank connect, §8 'Failed to access payout dashboard. Please try again.').
import { useMutation, useQuery } from "@tanstack/react-query";
import { Landmark } from "lucide-react";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/hooks/use-toast";
import { api, apiQuery } from "@/lib/api";
import { LoadFailed } from "@/components/load-failed";

export type ConnectStatus = { connected: boolean; details_submitted: boolean; payouts_enabled: boolean };

export const startBankOnboarding = () => window.location.assign("/api/stripe/connect/onboard");

export function useConnectStatus() {
  return useQuery(apiQuery("GET /api/connect/account-status"));
}

function DashboardLinkButton() {
  const open = useMutation({
    mutationFn: async () => api("POST /api/stripe/connect/dashboard-link"),
    onSuccess: ({ url }) => window.location.assign(url),
    onError: () =>
      toast({
        title: "Error",
        description: "Failed to access payout dashboard. Please try again.",
        variant: "destructive",
      }),
  });
  return (
    <Button variant="outline" onClick={() => open.mutate()} disabled={open.isPending}>
      {open.isPending && <Spinner className="size-4 text-current" />} Open payout dashboard
    </Button>
  );
}

export function BankConnectBody({ status }: { status: ConnectStatus }) {
  if (status.payouts_enabled) {
    return (
      <div className="space-y-3" data-testid="bank-status">
        <p className="font-semibold text-emerald-700">Bank Account Connected</p>
        <p className="text-sm text-muted-foreground">
          Your payouts go to your bank account by transfer on the 1st of each month.
        </p>
        <DashboardLinkButton />
      </div>
    );
  }
  if (status.details_submitted) {
    return (
      <div className="space-y-3" data-testid="bank-status">
        <p className="font-semibold text-amber-700">Setup In Progress</p>
        <p className="text-sm text-muted-foreground">
          Stripe is checking your details. Bank payouts start once your account is verified.
        </p>
        <Button variant="outline" onClick={startBankOnboarding}>
          Review details
        </Button>
      </div>
    );
  }
  return (
    <div className="space-y-3" data-testid="bank-status">
      <p className="text-sm text-muted-foreground">
        Get paid straight to your bank account. Setup takes a few minutes on Stripe's secure form.
      </p>
      <Button onClick={startBankOnboarding}>
        <Landmark /> {status.connected ? "Continue bank setup" : "Connect bank account"}
      </Button>
    </div>
  );
}

export function BankConnectCard() {
  const { data, isLoading, error } = useConnectStatus();
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Landmark className="size-5" /> Bank account
        </CardTitle>
        <CardDescription>Bank payouts through Stripe.</CardDescription>
      </CardHeader>
      <CardContent>
        {isLoading ? (
          <Spinner className="size-6" />
        ) : error ? (
          <LoadFailed what="your bank account status" className="text-sm" />
        ) : (
          data && <BankConnectBody status={data} />
        )}
      </CardContent>
    </Card>
  );
}
