import { createFileRoute, useRouterState } from "@tanstack/react-router";
import { LibraryPage } from "@/features/library/library-page";

const str = (v: unknown) => (typeof v === "string" && v.length <= 200 ? v : undefined);

export const Route = createFileRoute("/library")({
  validateSearch: (search: Record<string, unknown>) => ({ token: str(search.token) }),
  component: function LibraryRoute() {
    const { token } = Route.useSearch();
    // The emailed link carries its token in the fragment (#token=…), which no server sees.
    const hash = useRouterState({ select: (s) => s.location.hash });
    const fromHash = str(new URLSearchParams(hash.replace(/^#/, "")).get("token") ?? undefined);
    return <LibraryPage token={fromHash ?? token} />;
  },
});
