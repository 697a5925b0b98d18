import { createFileRoute } from "@tanstack/react-router";
import { Lock } from "lucide-react";
import { UpcomingPage } from "@/features/placeholder/upcoming-page";
import { MessageScreen, RequireAuth } from "@/features/shell/guard-screens";

export const Route = createFileRoute("/funnels")({
  component: () => (
    <RequireAuth signedOut={<MessageScreen icon={<Lock className="size-7" />} title="Authentication Required" message="Please sign in to access funnels." />}>
      {() => <UpcomingPage title="Sales funnels" description="Upsell and downsell funnels arrive with the funnels release." />}
    </RequireAuth>
  ),
});
