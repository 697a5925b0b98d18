// Receipts you can see delivered: where an email's delivery stands (the mail provider's word), how
// the creator's sales table and the buyer's success page say it, the provider's webhook body, and
// the creator's "Resend receipt". Behaviour: docs/payments.md ("Receipts and emails").
import { z } from "zod";
import { isoTime } from "./answers";

/** Where one email stands, from least to most said: `sent` (handed to the provider) … `complained` (marked as spam). */
export const MAIL_DELIVERY_STATES = ["sent", "delayed", "delivered", "bounced", "complained"] as const;
export type MailDeliveryState = (typeof MAIL_DELIVERY_STATES)[number];

/** The provider's events that move a state (Resend's names); any other event is acknowledged and ignored. */
export const MAIL_EVENT_TYPES = [
  "email.sent",
  "email.delivery_delayed",
  "email.delivered",
  "email.bounced",
  "email.complained",
  "email.failed",
  "email.suppressed",
] as const;
export type MailEventType = (typeof MAIL_EVENT_TYPES)[number];

/** A sale's receipt as the sales table names it, word for word. */
export const RECEIPT_WORDS: Record<MailDeliveryState, string> = {
  sent: "Receipt sent",
  delayed: "Receipt delayed",
  delivered: "Receipt delivered",
  bounced: "Bounced",
  complained: "Marked as spam",
};

/** The latest receipt (or access email) sent for a purchase: where it went and where it stands. */
export const receiptDeliverySchema = z.object({
  state: z.enum(MAIL_DELIVERY_STATES),
  to: z.string().meta({ description: "The address it went to (masked on the buyer's success page)" }),
  at: isoTime.meta({ description: "When it was sent" }),
  current: z
    .boolean()
    .meta({ description: "It went to the purchase's current address (false: the address changed since)" }),
});
export type ReceiptDelivery = z.infer<typeof receiptDeliverySchema>;

/**
 * POST /api/webhooks/mail: Resend's event, `{type, created_at, data: {email_id, to, …}}`. Loose on
 * purpose: an event of another type (opened, clicked, domain.*) is acknowledged and ignored.
 */
export const mailEventBodySchema = z.object({
  type: z.string().min(1).max(100),
  created_at: z.string().max(64).optional(),
  data: z.looseObject({
    email_id: z.string().min(1).max(200).optional(),
    to: z.array(z.string().max(320)).max(100).optional(),
    bounce: z.looseObject({ message: z.string().max(2000).optional() }).optional(),
    // email.suppressed: why Resend did not send (e.g. the address is on the account's suppression list).
    suppressed: z.looseObject({ message: z.string().max(2000).optional() }).optional(),
    // email.failed: why the send failed (an invalid recipient, a quota).
    failed: z.looseObject({ reason: z.string().max(2000).optional() }).optional(),
  }),
});
export const mailEventAnswerSchema = z.object({
  received: z.literal(true),
  outcome: z.enum(["recorded", "duplicate", "unknown", "ignored"]),
});

export const RESEND_RECEIPT_MESSAGES = {
  requestKey: "requestKey must be 8 to 64 letters, digits, - or _",
  notPaid: "This sale no longer gives access (refunded or disputed): there is no receipt to resend.",
  noEmail: "No email address is on this sale.",
  tooMany: "This receipt was resent 3 times in the last hour. Please wait before sending it again.",
  tooManyCreator: "You resent 30 receipts in the last hour. Please wait before sending more.",
} as const;

/** POST /api/sales/{purchaseId}/resend-receipt: `requestKey` (one per press) makes a repeated press one email. */
export const resendReceiptSchema = z.strictObject({
  requestKey: z
    .string({ error: RESEND_RECEIPT_MESSAGES.requestKey })
    .regex(/^[A-Za-z0-9_-]{8,64}$/, RESEND_RECEIPT_MESSAGES.requestKey),
});
export const resendReceiptAnswerSchema = z.object({
  sent: z.literal(true),
  to: z.string().meta({ description: "The buyer's current address, where it goes" }),
});
