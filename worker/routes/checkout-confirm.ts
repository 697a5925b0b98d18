// Paying a checkout: the browser sends the ConfirmationToken Stripe.js made from the form, and the
// server confirms the PaymentIntent after checking the card-testing limits. Behaviour:
// docs/payments.md ("Confirming on the server"), docs/security.md ("Card testing").
import { Hono } from "hono";
import { checkoutConfirmedSchema, checkoutConfirmSchema, type CheckoutConfirmed } from "../../shared/card-testing";
import type { AppEnv } from "../middleware/context";
import { clientKey, rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { doc } from "../openapi/describe";
import { clientHashOf } from "../services/purchases/card-testing";
import { confirmCheckout } from "../services/purchases/server-confirm";
import { buyerKey, edgeOf, purchaseDeps } from "./purchase-context";
import { checkoutRetotalledSchema } from "../../shared/payments";
import { TOTAL_CHANGED } from "../services/tax/confirm-tax";

export const checkoutConfirmRoutes = new Hono<AppEnv>().post(
  "/checkout/confirm",
  doc({
    tag: "Checkout and access",
    summary: "Pay an open checkout with the card typed",
    description:
      "Only the browser that started the checkout. `confirmationToken` is what Stripe.js's createConfirmationToken made from the payment form; the server reads its card and confirms the PaymentIntent. `requires_action`: the browser finishes with Stripe.js's handleNextAction. The card's billing address decides the sales tax or VAT (docs/tax.md): where it changes the total, nothing is charged and the answer is 409 with the new `amount` and `tax`; the buyer pays again.",
    access: "buyer",
    ok: checkoutConfirmedSchema,
    errors: {
      400: "The body is not valid, Stripe refused the payment details (already used, expired), or Stripe Tax cannot place the billing address",
      402: "The card was declined (Stripe's message)",
      404: "No open checkout of this browser",
      409: {
        description:
          "The tax at the card's billing address changed the total (`amount`, `tax`: nothing was charged; press Pay again), the checkout is already paid or changed meanwhile, or the same payment details are being sent with other details",
        schema: checkoutRetotalledSchema,
      },
      429: "Too many declined (or still unanswered) payments for this card, email or address in the last hour, or too many requests",
      502: "Stripe could not be reached, or Stripe Tax could not calculate the tax (nothing was charged)",
    },
  }),
  rateLimit("CHECKOUT_LIMITER", "checkout"),
  validate("json", checkoutConfirmSchema),
  async (c) => {
    const body = c.req.valid("json");
    const deps = purchaseDeps(c);
    const answer = await confirmCheckout(deps, {
      paymentIntentId: body.paymentIntent,
      confirmationToken: body.confirmationToken,
      email: body.email ?? null,
      buyerKey: buyerKey(c, false),
      clientHash: await clientHashOf(deps.accessSecret, clientKey(c)),
      edge: edgeOf(c),
    });
    if ("changed" in answer)
      return c.json({ message: TOTAL_CHANGED, amount: answer.changed.amountCents / 100, tax: answer.changed.tax }, 409);
    return c.json(answer as CheckoutConfirmed);
  },
);
