import { PageSpinner } from "@/components/spinner";
import { DashboardPage } from "@/features/dashboard/dashboard-page";
import { LandingPage } from "@/features/landing/landing-page";
import { useAuth } from "@/lib/auth";

/** `/` and `/dashboard`: only a spinner while sign-in loads, then the dashboard or the landing. */
export function HomePage() {
  const { user, isLoading } = useAuth();
  if (isLoading) return <PageSpinner />;
  return user ? <DashboardPage user={user} /> : <LandingPage />;
}
