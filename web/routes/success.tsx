import { createFileRoute } from "@tanstack/react-router";
import { SuccessPage } from "@/features/success/success-page";

const str = (v: unknown) => (typeof v === "string" && v.length <= 200 ? v : undefined);

export const Route = createFileRoute("/success")({
  validateSearch: (search: Record<string, unknown>) => ({
    payment_intent: str(search.payment_intent),
    content_id: str(search.content_id),
    access: str(search.access),
  }),
  component: function SuccessRoute() {
    const { payment_intent, content_id, access } = Route.useSearch();
    return <SuccessPage paymentIntent={payment_intent} contentId={content_id} access={access} />;
  },
});
