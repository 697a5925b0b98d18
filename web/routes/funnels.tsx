import { createFileRoute } from "@tanstack/react-router";
import { Lock } from "lucide-react";
import { FunnelsPage } from "@/features/funnels/funnels-page";
import { MessageScreen, RequireAuth } from "@/features/shell/guard-screens";

export const Route = createFileRoute("/funnels")({
  component: () => (
    <RequireAuth
      signedOut={
        <MessageScreen
          icon={<Lock className="size-7" />}
          title="Authentication Required"
          message="Please sign in to access funnels."
        />
      }
    >
      {(user) => <FunnelsPage user={user} />}
    </RequireAuth>
  ),
});
