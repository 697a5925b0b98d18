import { createFileRoute } from "@tanstack/react-router";
import { PaywallPage } from "@/features/paywall/paywall-page";

export const Route = createFileRoute("/p/$id")({
  validateSearch: (search: Record<string, unknown>): { preview?: 1; success?: "true"; payment_intent?: string } => ({
    preview: search.preview === 1 || search.preview === "1" ? 1 : undefined,
    success: search.success === true || search.success === "true" ? "true" : undefined,
    payment_intent: typeof search.payment_intent === "string" && search.payment_intent.length < 200 ? search.payment_intent : undefined,
  }),
  component: function PaywallRoute() {
    const { id } = Route.useParams();
    const { preview, success, payment_intent } = Route.useSearch();
    return <PaywallPage id={id} preview={preview === 1} success={success === "true"} paymentIntent={payment_intent} />;
  },
});
