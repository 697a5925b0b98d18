import { createFileRoute } from "@tanstack/react-router";
import { z } from "zod";
import { returnToSchema } from "@shared/schemas";
import { SignInPage } from "@/features/auth/sign-in-page";

const search = z.object({
  returnTo: returnToSchema.optional().catch(undefined),
  error: z.string().max(40).optional().catch(undefined),
});

export const Route = createFileRoute("/sign-in")({
  validateSearch: search,
  component: function SignInRoute() {
    const { returnTo, error } = Route.useSearch();
    return <SignInPage returnTo={returnTo} error={error} />;
  },
});
