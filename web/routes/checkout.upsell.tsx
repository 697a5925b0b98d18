import { createFileRoute } from "@tanstack/react-router";
import { UpcomingPage } from "@/features/placeholder/upcoming-page";
import { RequireAuth } from "@/features/shell/guard-screens";

export const Route = createFileRoute("/checkout/upsell")({
  component: () => (
    <RequireAuth>{() => <UpcomingPage title="Upsell checkout" description="One-click upsells arrive with the funnels release." />}</RequireAuth>
  ),
});
