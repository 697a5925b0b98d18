import { createFileRoute } from "@tanstack/react-router";
import { LivePage } from "@/features/content/live-page";
import { RequireAuth } from "@/features/shell/guard-screens";

export const Route = createFileRoute("/content/$contentId/live")({
  component: function LiveRoute() {
    const { contentId } = Route.useParams();
    return <RequireAuth>{(user) => <LivePage user={user} contentId={contentId} />}</RequireAuth>;
  },
});
