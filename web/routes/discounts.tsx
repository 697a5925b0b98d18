import { createFileRoute } from "@tanstack/react-router";
import { Lock } from "lucide-react";
import { DiscountsPage } from "@/features/discounts/discounts-page";
import { MessageScreen, RequireAuth } from "@/features/shell/guard-screens";

export const Route = createFileRoute("/discounts")({
  component: () => (
    <RequireAuth
      signedOut={
        <MessageScreen
          icon={<Lock className="size-7" />}
          title="Authentication Required"
          message="Please sign in to manage discount codes."
        />
      }
    >
      {(user) => <DiscountsPage user={user} />}
    </RequireAuth>
  ),
});
