// "You're on Pro": what /pricing and /subscribe show a creator whose plan is already Pro (the plan
// and its renewal date as Stripe's webhooks last said, from GET /api/subscription).
import { useQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { Crown } from "lucide-react";
import { ON_PRO, renewalText } from "@shared/pricing-page";
import { Button } from "@/components/ui/button";
import { useAuth } from "@/lib/auth";
import type { SubscriptionState } from "./plan-card";
import { apiQuery } from "@/lib/api";

/** The signed-in creator's plan; nothing is asked when signed out. */
export function useSubscription() {
  const { isAuthenticated, isLoading: authLoading } = useAuth();
  const query = useQuery({ ...apiQuery("GET /api/subscription"), enabled: isAuthenticated });
  return {
    ...query,
    isLoading: authLoading || (isAuthenticated && query.isLoading),
    isPro: query.data?.plan === "pro",
  };
}

/** /subscribe for a Pro creator: no card form, the plan as it stands and the way back. */
export function OnProPanel({ state }: { state: SubscriptionState }) {
  const renewal = renewalText(state);
  return (
    <div className="space-y-3 rounded-lg border border-emerald-300 bg-emerald-50 p-4 text-center" data-testid="on-pro">
      <h2 className="flex items-center justify-center gap-2 text-lg font-semibold">
        <Crown className="size-5 text-amber-500" /> {ON_PRO}
      </h2>
      <p className="text-sm text-muted-foreground">You keep 100% of every sale: no platform fee.</p>
      {state.status === "past_due" && (
        <p className="text-sm text-amber-700">
          Your last renewal payment failed. Stripe will retry your card; update it to keep Pro.
        </p>
      )}
      {renewal && <p className="text-sm">{renewal}</p>}
      <div className="flex flex-wrap justify-center gap-2">
        <Button asChild>
          <Link to="/dashboard">Back to dashboard</Link>
        </Button>
        <Button variant="outline" asChild>
          <Link to="/settings">Manage subscription</Link>
        </Button>
      </div>
    </div>
  );
}
