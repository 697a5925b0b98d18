import { createFileRoute } from "@tanstack/react-router";
import { RequireAuth } from "@/features/shell/guard-screens";
import { UpsellPage } from "@/features/upsell/upsell-page";

const str = (v: unknown) => (typeof v === "string" && v.length <= 200 ? v : undefined);

// Buyers arrive here without an account, right after paying: the access link (or the paying
// browser's cookie) proves the purchase. ?preview={funnelId} is the creator's test-mode walk.
// Without either, the route keeps the spec's signed-in guard.
export const Route = createFileRoute("/checkout/upsell")({
  validateSearch: (search: Record<string, unknown>): { access?: string; purchase?: string; preview?: string } => ({
    access: str(search.access),
    purchase: str(search.purchase),
    preview: str(search.preview),
  }),
  component: function UpsellRoute() {
    const { access, purchase, preview } = Route.useSearch();
    if (!access && !purchase && !preview) return <RequireAuth>{() => <UpsellPage />}</RequireAuth>;
    return <UpsellPage access={access} purchaseId={purchase} preview={preview} />;
  },
});
