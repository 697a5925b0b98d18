// The buying contract: requests and responses of the payment and purchase calls (spec §7).
import { z } from "zod";
import { receiptDeliverySchema } from "./mail";
import { dollars, isoTime, publicId } from "./answers";
import { ACCESS_TYPES } from "./content";
import { invoiceLinkSchema } from "./invoices";
import { publicCreatorSchema } from "./profile";
import { emailSchema } from "./auth";
import { taxLineSchema, vatIdInputSchema } from "./tax";

export const createPaymentIntentSchema = z.object({
  contentId: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "contentId is invalid"),
  // Dollars, as the paywall's amount field gives it; only pay-what-you-want items read it.
  customAmount: z.union([z.number(), z.string(), z.null()]).optional(),
  buyerEmail: z.union([z.literal(""), emailSchema, z.null()]).optional(),
  /** A discount code (any case): the server computes its price and holds one use (shared/discounts.ts). */
  discountCode: z
    .union([
      z.literal(""),
      z
        .string()
        .trim()
        .regex(/^[A-Za-z0-9_-]{2,40}$/, "This code isn't valid"),
      z.null(),
    ])
    .optional(),
  /** A checkout reminder's link: restarts that checkout at its amount (worker/services/purchases/recovery.ts). */
  recoverToken: z.string().max(300).optional(),
  /** The order bump's checkbox: also buy the item's add-on at its bump price (shared/bumps.ts). */
  bump: z.boolean({ error: "bump must be true or false" }).optional(),
  /** "Don't send me a reminder" ticked: this checkout gets no reminder email. */
  noReminder: z.boolean({ error: "noReminder must be true or false" }).optional(),
  /** A business buyer's EU or UK VAT number (blank: none): Stripe Tax decides the reverse charge (docs/tax.md). */
  vatId: vatIdInputSchema.optional(),
});

/** POST /api/checkout/email: the address typed at checkout, kept on the pending checkout (and its one reminder). */
export const checkoutEmailSchema = z
  .object({
    paymentIntent: z.string().regex(/^pi_[A-Za-z0-9]{1,64}$/, "paymentIntent is invalid"),
    email: emailSchema.optional(),
    /** The "Don't send me a reminder" box, as the buyer left it. */
    noReminder: z.boolean({ error: "noReminder must be true or false" }).optional(),
  })
  .refine((v) => v.email !== undefined || v.noReminder !== undefined, {
    message: "Send email or noReminder",
    path: ["email"],
  });
/**
 * POST /api/checkout/terms: the terms an open checkout is to have now (its code, or none; the order
 * bump ticked or not). The server prices them and sets the same PaymentIntent's amount: the card
 * typed stays (worker/services/purchases/checkout-terms.ts).
 */
export const checkoutTermsSchema = z.object({
  paymentIntent: z.string().regex(/^pi_[A-Za-z0-9]{1,64}$/, "paymentIntent is invalid"),
  discountCode: createPaymentIntentSchema.shape.discountCode,
  bump: z.boolean({ error: "bump must be true or false" }),
  /** A business buyer's VAT number: absent keeps the checkout's, blank removes it. */
  vatId: vatIdInputSchema.optional(),
});
export type CheckoutTermsInput = z.input<typeof checkoutTermsSchema>;

export type CreatePaymentIntentInput = z.input<typeof createPaymentIntentSchema>;

export const verifyPurchaseQuery = z.object({
  payment_intent: z
    .string()
    .regex(/^pi_[A-Za-z0-9]{1,64}$/, "payment_intent is invalid")
    .optional(),
  content_id: z
    .string()
    .regex(/^[A-Za-z0-9]{1,32}$/, "content_id is invalid")
    .optional(),
  access: z.string().max(200).optional(),
});

export const sendAccessEmailSchema = z.object({
  /** Absent for an order bump's purchase, which is paid by its main purchase's PaymentIntent. */
  paymentIntentId: z
    .string()
    .regex(/^pi_[A-Za-z0-9]{1,64}$/, "paymentIntentId is invalid")
    .optional(),
  contentId: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "contentId is invalid"),
  access: z.string().max(200).optional(),
});

export const paymentsConfigSchema = z.object({ publishableKey: z.string(), stripeJsUrl: z.string().nullable() });
export type PaymentsConfig = z.infer<typeof paymentsConfigSchema>;

/** POST /api/create-payment-intent: the PaymentIntent to confirm with Stripe.js. */
export const checkoutStartedSchema = z.object({
  clientSecret: z.string().meta({ description: "The PaymentIntent's client secret, for Stripe.js's Payment Element" }),
  amount: dollars.meta({ description: "What the buyer pays, tax included (the PaymentIntent's amount)" }),
  tax: taxLineSchema,
  discount: z
    .object({ code: z.string(), amountOff: dollars })
    .optional()
    .meta({ description: "The discount code applied, and what it took off" }),
  bump: z.object({ title: z.string(), amount: dollars }).optional().meta({
    description: "The order bump ticked: its item's title and price before tax (in `amount`; its tax is in `tax`)",
  }),
  buyerEmail: z
    .string()
    .optional()
    .meta({ description: "A reminder's checkout (recoverToken): the address it belongs to, which it keeps" }),
  notice: z
    .string()
    .optional()
    .meta({ description: "A reminder's checkout whose code no longer applies: why it is at the full price" }),
});
/** POST /api/checkout/terms: what the checkout charges now (the same PaymentIntent, its amount set to `amount`). */
export const checkoutTermsAnswerSchema = checkoutStartedSchema.pick({
  amount: true,
  discount: true,
  bump: true,
  tax: true,
});
export type CheckoutTermsAnswer = z.infer<typeof checkoutTermsAnswerSchema>;
/**
 * POST /api/checkout/confirm's 409: where the card's billing address changed the tax, the new total
 * to show (`amount`, `tax`; nothing was charged). Other 409s carry only `message`.
 */
export const checkoutRetotalledSchema = z.object({
  message: z.string(),
  amount: dollars.optional().meta({ description: "The new total to pay, tax included" }),
  tax: taxLineSchema.optional(),
});
/** POST /api/checkout/email: the address is kept with the open checkout. */
export const checkoutEmailSavedSchema = z.object({ saved: z.literal(true) });

/** POST /api/create-payment-intent when this browser already owns the item: no new charge. */
export const alreadyOwnedSchema = z.object({ alreadyOwned: z.literal(true), accessUrl: z.string() });
export type AlreadyOwned = z.infer<typeof alreadyOwnedSchema>;
/** POST /api/create-payment-intent: a checkout to pay, or the access link of an item this browser owns. */
export const checkoutAnswerSchema = z.union([checkoutStartedSchema, alreadyOwnedSchema]);

export const purchaseProgressSchema = z.object({ status: z.string().meta({ example: "paid" }), unlocked: z.boolean() });

export const purchaseVerificationSchema = z.object({
  content: z.object({
    id: publicId,
    title: z.string(),
    description: z.string(),
    price: dollars,
    previewImage: z.string().nullable(),
    accessType: z.enum(ACCESS_TYPES),
    fileUrl: z.string().nullable(),
    fileName: z.string().nullable(),
    fileType: z.string().nullable(),
    linkUrl: z.string().nullable(),
    textContent: z.string().nullable(),
    /** Who the buyer paid ("by {name}", avatar, contact). */
    creator: publicCreatorSchema,
  }),
  /** `licenseKey`: this purchase's license key, when its item issues them (only ever shown to its owner). */
  purchase: z.object({
    id: publicId,
    amount: dollars,
    emailedTo: z.string().nullable().meta({
      description: "Where the receipt went, masked (an access link may be forwarded): its first letter and domain",
      example: "b…@example.com",
    }),
    licenseKey: z.string().nullable(),
    canChangeEmail: z.boolean().meta({
      description:
        "Whether this caller is the browser that paid, within 7 days of paying, and so may change the order's email",
    }),
    receiptHeld: z.boolean().meta({
      description:
        "Whether no receipt was emailed for this order: an order under $1.00 whose receipt the daily cap held (docs/payments.md)",
    }),
  }),
  accessUrl: z.string(),
  addOns: z
    .array(z.object({ title: z.string(), amount: dollars, accessUrl: z.string() }))
    .meta({ description: "The order bump bought in the same payment, each with its own access link" }),
  /** The latest receipt sent for this purchase (its address masked) and where it stands; null: none recorded yet. */
  receipt: receiptDeliverySchema.nullable(),
  invoice: invoiceLinkSchema,
});
export type PurchaseVerification = z.infer<typeof purchaseVerificationSchema>;

/**
 * GET /api/purchase/revoked: why a purchase the caller holds no longer opens, and since when. An
 * access link only reads, so this says no more than that: no email, no amount.
 */
export const revokedPurchaseSchema = z.object({
  state: z.enum(["refunded", "disputed"]),
  since: isoTime,
  orderId: publicId,
  content: z.object({ id: publicId, title: z.string() }),
});
export type RevokedPurchase = z.infer<typeof revokedPurchaseSchema>;

/** GET /api/content/{id}/access: whether this browser (or the access link it holds) owns the item. */
export const contentAccessSchema = z.union([
  z.object({ owned: z.literal(true), verification: purchaseVerificationSchema }),
  z.object({
    owned: z.literal(false),
    status: z.enum(["none", "pending", "processing", "refunded", "disputed", "failed"]),
  }),
]);
export type ContentAccess = z.infer<typeof contentAccessSchema>;

export const recoverAccessSchema = z.object({ email: emailSchema });
/** POST /api/purchase/recover answers RECOVER_ACCESS_MESSAGE whatever the email. */
export const recoverAccessAnswerSchema = z.object({ message: z.string() });
/** The one answer to "Lost your access?", whether or not the email bought anything (no enumeration). */
export { RECOVER_ACCESS_MESSAGE } from "./paywall";

/** POST /api/content/{id}/download: a short-lived URL signed for the purchase; navigate to it to save the file. */
export const downloadLinkSchema = z.object({ url: z.string(), expiresAt: isoTime });
export type DownloadLink = z.infer<typeof downloadLinkSchema>;
