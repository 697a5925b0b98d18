import { createFileRoute } from "@tanstack/react-router";
import { UpcomingPage } from "@/features/placeholder/upcoming-page";
import { RequireAuth } from "@/features/shell/guard-screens";

export const Route = createFileRoute("/settings")({
  component: () => (
    <RequireAuth>
      {() => <UpcomingPage title="Payout settings" description="Payout setup, your earnings overview and payout history arrive with the payouts release." />}
    </RequireAuth>
  ),
});
