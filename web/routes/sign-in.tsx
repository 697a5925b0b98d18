import { createFileRoute } from "@tanstack/react-router";
import { isSameOriginPath } from "@shared/return-path";
import { SignInPage } from "@/features/auth/sign-in-page";

// The server's own rule for return paths, checked without zod: this file is in the main bundle.

export const Route = createFileRoute("/sign-in")({
  validateSearch: (search: Record<string, unknown>): { returnTo?: string; error?: string } => ({
    returnTo: isSameOriginPath(search.returnTo) ? search.returnTo : undefined,
    error: typeof search.error === "string" && search.error.length <= 40 ? search.error : undefined,
  }),
  component: function SignInRoute() {
    const { returnTo, error } = Route.useSearch();
    return <SignInPage returnTo={returnTo} error={error} />;
  },
});
