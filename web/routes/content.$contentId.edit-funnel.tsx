import { createFileRoute } from "@tanstack/react-router";
import { Lock } from "lucide-react";
import { Button } from "@/components/ui/button";
import { EditFunnelPage } from "@/features/funnels/edit-funnel-page";
import { MessageScreen, RequireAuth } from "@/features/shell/guard-screens";
import { goToLogin } from "@/lib/auth";

export const Route = createFileRoute("/content/$contentId/edit-funnel")({
  component: function EditFunnelRoute() {
    const { contentId } = Route.useParams();
    return (
      <RequireAuth
        signedOut={
          <MessageScreen
            icon={<Lock className="size-7" />}
            title="Access Denied"
            message="Please log in to edit funnels"
            action={<Button onClick={goToLogin}>Log In</Button>}
          />
        }
      >
        {(user) => <EditFunnelPage user={user} contentId={contentId} />}
      </RequireAuth>
    );
  },
});
