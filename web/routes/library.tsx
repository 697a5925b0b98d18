import { createFileRoute } from "@tanstack/react-router";
import { LibraryPage } from "@/features/library/library-page";

const str = (v: unknown) => (typeof v === "string" && v.length <= 200 ? v : undefined);

export const Route = createFileRoute("/library")({
  validateSearch: (search: Record<string, unknown>) => ({ token: str(search.token) }),
  component: function LibraryRoute() {
    const { token } = Route.useSearch();
    return <LibraryPage token={token} />;
  },
});
