// Confirming a checkout on the server (Stripe's ConfirmationTokens) and the card-testing limits it
// checks first. Behaviour: docs/security.md ("Card testing"), docs/payments.md.
import { z } from "zod";
import { emailSchema } from "./auth";

/** POST /api/checkout/confirm: the checkout's PaymentIntent, the token Stripe.js made from the form, the receipt address. */
export const checkoutConfirmSchema = z.object({
  paymentIntent: z.string().regex(/^pi_[A-Za-z0-9]{1,64}$/, "paymentIntent is invalid"),
  confirmationToken: z.string().regex(/^ctoken_[A-Za-z0-9]{1,64}$/, "confirmationToken is invalid"),
  email: emailSchema.optional(),
});

/**
 * Stripe's answer: `succeeded` or `processing` (paid or on its way), or `requires_action` (the
 * browser runs Stripe.js's handleNextAction: the bank's 3-D Secure screen).
 */
export const checkoutConfirmedSchema = z.object({
  paymentIntent: z.string(),
  status: z.enum(["succeeded", "processing", "requires_action", "requires_capture"]),
});
export type CheckoutConfirmed = z.infer<typeof checkoutConfirmedSchema>;

/** Declines in the last hour after which a checkout is refused before Stripe is asked (docs/security.md). */
export const DECLINE_LIMITS = { card: 5, email: 10, client: 20 } as const;

/** What the checkout form shows when a limit is reached. */
export const DECLINE_LIMIT_MESSAGES: Record<keyof typeof DECLINE_LIMITS, string> = {
  card: "This card was declined too many times. Try another card or wait an hour.",
  email: "Too many payments for this email address were declined. Please wait an hour and try again.",
  client: "Too many payments from your network were declined. Please wait an hour and try again.",
};

/** "Send it again" refused for a cheap order whose receipt is capped (docs/payments.md "Receipts and emails"). */
export const CHEAP_RESEND_REFUSED =
  "To stop spam, receipts for orders under $1.00 are limited each day, and this order's can't be emailed now. Copy your access link to keep it.";
