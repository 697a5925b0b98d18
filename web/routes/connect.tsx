import { createFileRoute, Navigate } from "@tanstack/react-router";
import { PageSpinner } from "@/components/spinner";
import { ConnectPage } from "@/features/payouts/connect-page";
import { useAuth } from "@/lib/auth";

function ConnectRoute() {
  const { user, isLoading } = useAuth();
  const { refresh, connected, signInAgain } = Route.useSearch();
  if (isLoading) return <PageSpinner />;
  // Spec §2: /connect sends a signed-out visitor to /.
  if (!user) return <Navigate to="/" replace />;
  return <ConnectPage refresh={refresh} connected={connected} signInAgain={signInAgain} />;
}

export const Route = createFileRoute("/connect")({
  validateSearch: (search: Record<string, unknown>) => ({
    refresh: search.refresh === "true" || search.refresh === true,
    connected: search.connected === "true" || search.connected === true,
    signInAgain: search.signInAgain === "true" || search.signInAgain === true,
  }),
  component: ConnectRoute,
});
