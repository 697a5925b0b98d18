import { createFileRoute } from "@tanstack/react-router";
import { EditItemPage } from "@/features/content/edit-item-page";
import { RequireAuth } from "@/features/shell/guard-screens";

export const Route = createFileRoute("/content/$contentId/edit")({
  component: function EditItemRoute() {
    const { contentId } = Route.useParams();
    return <RequireAuth>{(user) => <EditItemPage user={user} contentId={contentId} />}</RequireAuth>;
  },
});
