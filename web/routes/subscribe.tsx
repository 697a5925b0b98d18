import { createFileRoute } from "@tanstack/react-router";
import { useEffect } from "react";
import { PageSpinner } from "@/components/spinner";
import { SubscribePage } from "@/features/subscription/subscribe-page";
import { goToLogin, useAuth } from "@/lib/auth";

function SubscribeRoute() {
  const { user, isLoading } = useAuth();
  // Spec §2: /subscribe requires login, else goes to /api/login.
  useEffect(() => {
    if (!isLoading && !user) goToLogin();
  }, [isLoading, user]);
  if (!user) return <PageSpinner />;
  return <SubscribePage />;
}

export const Route = createFileRoute("/subscribe")({ component: SubscribeRoute });
