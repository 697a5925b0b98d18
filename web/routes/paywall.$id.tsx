import { createFileRoute } from "@tanstack/react-router";
import { PaywallRouteView, validatePaywallSearch } from "@/features/paywall/paywall-route";

export const Route = createFileRoute("/paywall/$id")({
  validateSearch: validatePaywallSearch,
  component: function PaywallRoute() {
    return <PaywallRouteView id={Route.useParams().id} search={Route.useSearch()} />;
  },
});
