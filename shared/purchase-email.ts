// Changing the email on a paid purchase (POST /api/purchases/{id}/email): the request, the answer and
// what the buyer reads when it cannot be done. Behaviour: docs/payments.md ("Changing a purchase's email").
import { z } from "zod";
import { emailSchema } from "./auth";

/** The new address, trimmed and lower-cased as every buyer email is stored. */
export const purchaseEmailChangeSchema = z.object({ email: emailSchema });

export const purchaseEmailChangedSchema = z.object({
  changed: z.boolean().meta({ description: "False when the purchase already had this address (nothing was sent)" }),
  emailedTo: z.string().meta({ description: "Where the receipt now goes, masked: b…@example.com" }),
});
export type PurchaseEmailChanged = z.infer<typeof purchaseEmailChangedSchema>;

/** Changes of one order's email, ever: each mails a receipt to the address typed, so an order is no mailer. */
export const EMAIL_CHANGES_PER_ORDER = 3;
/** Changes of the email on one creator's orders in a day: a creator buying their own item cannot mail many either. */
export const EMAIL_CHANGES_PER_CREATOR_DAY = 50;
/** How long after paying the browser that paid may change the email; later, the library (signed in as it) may. */
export const BROWSER_EMAIL_CHANGE_DAYS = 7;

export const PURCHASE_EMAIL_MESSAGES = {
  notFound: "Purchase Not Found",
  /** What the success page says to a 404: it is not the browser that paid. */
  notThisBrowser: `Only the browser that paid for this order can change its email here, for ${BROWSER_EMAIL_CHANGE_DAYS} days after paying. Sign in to your library with the order's email to change it there.`,
  refunded: "This order was refunded, so its email can no longer be changed.",
  disputed: "This order is disputed, so its email can no longer be changed.",
  processing: "The payment is still processing: change the email once it has gone through.",
  notPaid: "This order was not paid, so there is no receipt to send elsewhere.",
  changedMeanwhile: "This order's email was just changed elsewhere. Reload the page to see it, then try again.",
  tooMany: `This order's email was already changed ${EMAIL_CHANGES_PER_ORDER} times, so it can't be changed again. Contact support with your order number.`,
  busy: "Too many emails were changed on this seller's orders today. Try again tomorrow, or contact support with your order number.",
} as const;
