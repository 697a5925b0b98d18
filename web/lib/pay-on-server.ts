// Paying an open checkout the way Stripe documents "finalize payments on the server": Stripe.js turns
// the form (card or wallet) into a ConfirmationToken, our server checks the card-testing limits and
// confirms the PaymentIntent, and a bank's 3-D Secure screen is finished by handleNextAction.
// Used by the paywall's one-page checkout and /checkout/{id}. Behaviour: docs/payments.md.
import type { CheckoutConfirmed } from "@shared/card-testing";
import type { TaxLine } from "@shared/tax";

type StripeJsError = { message?: string };
type Intent = { id: string; status: string };
/** The little of Stripe.js (and of an Elements instance) this needs, so the npm types and the paywall's own both fit. */
type Confirming = {
  createConfirmationToken(options: { elements: never }): Promise<{
    error?: StripeJsError;
    confirmationToken?: { id: string };
  }>;
  handleNextAction(options: { clientSecret: string }): Promise<{ error?: StripeJsError; paymentIntent?: Intent }>;
};
type Submitting = { submit(): Promise<{ error?: StripeJsError }> };

/**
 * Not charged: the message to show; `taxChanged` when the card's billing address changed the tax
 * (409 with the new tax line and total, docs/tax.md): the page shows them and the buyer pays again.
 */
export type PayFailure = { error: string; taxChanged?: { tax: TaxLine; amount: number } };
export type PayResult = { paymentIntent: Intent } | PayFailure;
/** What both checkouts say beside the new total after such a 409. */
export const TAX_UPDATED = "Tax updated for your billing address. Review the total and press Pay again.";

const FAILED = "Your payment could not be completed.";

/** Pays `clientSecret`'s checkout with what `elements` holds; `email`: the receipt address typed. */
export async function payOnServer(
  stripe: Confirming,
  elements: Submitting,
  clientSecret: string,
  email?: string,
): Promise<PayResult> {
  const submitted = await elements.submit();
  if (submitted.error) return { error: submitted.error.message ?? FAILED };
  const made = await stripe.createConfirmationToken({ elements: elements as never });
  if (!made.confirmationToken) return { error: made.error?.message ?? FAILED };
  const res = await fetch("/api/checkout/confirm", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    credentials: "include",
    body: JSON.stringify({
      paymentIntent: clientSecret.split("_secret_")[0],
      confirmationToken: made.confirmationToken.id,
      ...(email ? { email } : {}),
    }),
  }).catch(() => null);
  if (!res) return { error: "We could not reach the server. Check your connection and try again." };
  const body = (await res.json().catch(() => null)) as
    | (CheckoutConfirmed & { message?: string; error?: string; tax?: TaxLine; amount?: number })
    | null;
  const message = body?.message ?? body?.error ?? FAILED;
  if (res.status === 409 && body?.tax && typeof body.amount === "number")
    return { error: message, taxChanged: { tax: body.tax, amount: body.amount } };
  if (!res.ok || !body) return { error: message };
  if (body.status !== "requires_action") return { paymentIntent: { id: body.paymentIntent, status: body.status } };
  const next = await stripe.handleNextAction({ clientSecret });
  return next.paymentIntent ? { paymentIntent: next.paymentIntent } : { error: next.error?.message ?? FAILED };
}
