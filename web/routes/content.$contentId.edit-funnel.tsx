import { createFileRoute } from "@tanstack/react-router";
import { Lock } from "lucide-react";
import { Button } from "@/components/ui/button";
import { UpcomingPage } from "@/features/placeholder/upcoming-page";
import { MessageScreen, RequireAuth } from "@/features/shell/guard-screens";
import { goToLogin } from "@/lib/auth";

export const Route = createFileRoute("/content/$contentId/edit-funnel")({
  component: () => (
    <RequireAuth
      signedOut={
        <MessageScreen icon={<Lock className="size-7" />} title="Access Denied" message="Please log in to edit funnels" action={<Button onClick={goToLogin}>Log In</Button>} />
      }
    >
      {() => <UpcomingPage title="Edit Sales Funnel" description="The funnel editor arrives with the funnels release." />}
    </RequireAuth>
  ),
});
