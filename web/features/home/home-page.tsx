import { useEffect } from "react";
import { PageSpinner } from "@/components/spinner";
import { DashboardPage } from "@/features/dashboard/dashboard-page";
import { goToLogout, useAuth } from "@/lib/auth";

/**
 * Whether this document was loaded at this path: then the Worker saw a valid session here (it sends
 * a signed-out visitor the landing, docs/pages.md), and a signed-out answer means that session is
 * stale (its account gone): going to "/" again would only come back here.
 */
const loadedHere = () => {
  const entry = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined;
  return !!entry && new URL(entry.name).pathname === window.location.pathname;
};

/**
 * `/` and `/dashboard`: only a spinner while sign-in loads, then the dashboard. Signed out (the
 * session ended while the app was open), the landing is the Worker's page: a full page load to "/"
 * (through sign-out when the cookie the Worker trusted is stale).
 */
export function HomePage() {
  const { user, isLoading, error } = useAuth();
  const signedOut = !isLoading && !error && !user;
  useEffect(() => {
    if (!signedOut) return;
    if (loadedHere()) goToLogout();
    else window.location.replace("/");
  }, [signedOut]);
  if (!user) return <PageSpinner />;
  return <DashboardPage user={user} />;
}
