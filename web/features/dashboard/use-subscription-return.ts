// Back from /subscribe (return_url /dashboard?subscription=success): a success toast, the query
// string cleared, and the plan re-read while Stripe's webhook makes it Pro.
import { useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { toast } from "@/hooks/use-toast";
import { queryKeys } from "@/lib/query-keys";

export function useSubscriptionReturn() {
  const queryClient = useQueryClient();
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    if (params.get("subscription") !== "success") return;
    toast({ title: "Welcome to Pro!", description: "Your subscription is active: new sales carry no platform fee." });
    window.history.replaceState(null, "", window.location.pathname);
    const timers = [1500, 4000, 8000].map((ms) =>
      setTimeout(() => {
        void queryClient.invalidateQueries({ queryKey: queryKeys.authUser });
        void queryClient.invalidateQueries({ queryKey: queryKeys.subscription });
      }, ms),
    );
    return () => timers.forEach(clearTimeout);
  }, [queryClient]);
}
