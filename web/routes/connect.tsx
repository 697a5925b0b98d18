import { createFileRoute, Navigate } from "@tanstack/react-router";
import { PageSpinner } from "@/components/spinner";
import { UpcomingPage } from "@/features/placeholder/upcoming-page";
import { useAuth } from "@/lib/auth";

function ConnectRoute() {
  const { user, isLoading } = useAuth();
  if (isLoading) return <PageSpinner />;
  // Spec §2: /connect sends a signed-out visitor to /.
  if (!user) return <Navigate to="/" replace />;
  return <UpcomingPage title="Connect a bank account" description="Bank payouts through Stripe Connect arrive with the payouts release." />;
}

export const Route = createFileRoute("/connect")({ component: ConnectRoute });
