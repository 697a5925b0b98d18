import { createFileRoute } from "@tanstack/react-router";
import { SignInPage } from "@/features/auth/sign-in-page";

// Search params are checked by hand: this file is in the main bundle, which stays free of zod.
const isSameSitePath = (p: unknown): p is string =>
  typeof p === "string" && p.startsWith("/") && !p.startsWith("//") && !p.startsWith("/\\") && p.length <= 2000;

export const Route = createFileRoute("/sign-in")({
  validateSearch: (search: Record<string, unknown>): { returnTo?: string; error?: string } => ({
    returnTo: isSameSitePath(search.returnTo) ? search.returnTo : undefined,
    error: typeof search.error === "string" && search.error.length <= 40 ? search.error : undefined,
  }),
  component: function SignInRoute() {
    const { returnTo, error } = Route.useSearch();
    return <SignInPage returnTo={returnTo} error={error} />;
  },
});
