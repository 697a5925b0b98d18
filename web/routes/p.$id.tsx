import { createFileRoute } from "@tanstack/react-router";
import { PaywallPage } from "@/features/paywall/paywall-page";

export const Route = createFileRoute("/p/$id")({
  validateSearch: (search: Record<string, unknown>) => ({ preview: search.preview === 1 || search.preview === "1" ? 1 : undefined }),
  component: function PaywallRoute() {
    const { id } = Route.useParams();
    const { preview } = Route.useSearch();
    return <PaywallPage id={id} preview={preview === 1} />;
  },
});
