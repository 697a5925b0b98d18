import { createFileRoute } from "@tanstack/react-router";
import { CheckoutPage } from "@/features/checkout/checkout-page";

export const Route = createFileRoute("/checkout/$id")({
  validateSearch: (
    search: Record<string, unknown>,
  ): { payment_intent?: string; amount?: number; code?: string; recover?: string; bump?: boolean } => ({
    payment_intent: typeof search.payment_intent === "string" ? search.payment_intent : undefined,
    amount: Number.isFinite(Number(search.amount)) ? Number(search.amount) : undefined,
    code: typeof search.code === "string" && /^[A-Za-z0-9_-]{2,40}$/.test(search.code) ? search.code : undefined,
    recover: typeof search.recover === "string" && search.recover.length <= 300 ? search.recover : undefined,
    bump: search.bump === true || search.bump === "1" || search.bump === 1 ? true : undefined,
  }),
  component: function CheckoutRoute() {
    const { id } = Route.useParams();
    const { payment_intent, amount, code, recover, bump } = Route.useSearch();
    return (
      <CheckoutPage id={id} clientSecret={payment_intent} amount={amount} code={code} recover={recover} bump={bump} />
    );
  },
});
