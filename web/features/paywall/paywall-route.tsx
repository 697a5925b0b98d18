// What /p/{id} and /paywall/{id} share: they are the same screen under two addresses (spec §2).
import { PaywallPage } from "./paywall-page";

export type PaywallSearch = { preview?: 1; success?: "true"; payment_intent?: string; access?: string };

export const validatePaywallSearch = (search: Record<string, unknown>): PaywallSearch => ({
  preview: search.preview === 1 || search.preview === "1" ? 1 : undefined,
  success: search.success === true || search.success === "true" ? "true" : undefined,
  payment_intent: typeof search.payment_intent === "string" && search.payment_intent.length < 200 ? search.payment_intent : undefined,
  access: typeof search.access === "string" && search.access.length < 200 ? search.access : undefined,
});

export function PaywallRouteView({ id, search }: { id: string; search: PaywallSearch }) {
  return <PaywallPage id={id} preview={search.preview === 1} success={search.success === "true"} paymentIntent={search.payment_intent} access={search.access} />;
}
