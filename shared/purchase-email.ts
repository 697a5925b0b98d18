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

/** Changes of one order's email in a day (each mails a receipt to the address typed). */
export const EMAIL_CHANGES_PER_DAY = 5;

export const PURCHASE_EMAIL_MESSAGES = {
  notFound: "Purchase Not Found",
  /** What the success page says to a 404: it is not the browser that paid. */
  notThisBrowser:
    "Only the browser that paid for this order can change its email here. Sign in to your library with the order's email to change it there.",
  refunded: "This order was refunded, so its email can no longer be changed.",
  disputed: "This order is disputed, so its email can no longer be changed.",
  processing: "The payment is still processing: change the email once it has gone through.",
  changedMeanwhile: "This order's email was just changed elsewhere. Reload the page to see it, then try again.",
  tooMany: `This order's email was changed ${EMAIL_CHANGES_PER_DAY} times today. Try again tomorrow, or contact support with your order number.`,
} as const;
