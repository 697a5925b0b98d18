// The buying contract: requests and responses of the payment and purchase calls (spec §7).
import { z } from "zod";
import type { PublicCreator } from "./profile";
import { emailSchema } from "./schemas";

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

export type PaymentsConfig = { publishableKey: string; stripeJsUrl: string | null };

export type PurchaseVerification = {
  content: {
    id: string;
    title: string;
    description: string;
    price: number;
    previewImage: string | null;
    accessType: "download" | "view" | "stream" | "link";
    fileUrl: string | null;
    fileName: string | null;
    fileType: string | null;
    linkUrl: string | null;
    textContent: string | null;
    /** Who the buyer paid ("by {name}", avatar, contact). */
    creator: PublicCreator;
  };
  /** `licenseKey`: this purchase's license key, when its item issues them (only ever shown to its owner). */
  purchase: { id: string; amount: number; buyerEmail: string | null; licenseKey: string | null };
  accessUrl: string;
  /** The order bump bought with this purchase (one payment), each with its own access link; empty for most. */
  addOns: { title: string; amount: number; accessUrl: string }[];
};

/** GET /api/content/{id}/access: whether this browser (or the access link it holds) owns the item. */
export type ContentAccess =
  | { owned: true; verification: PurchaseVerification }
  | { owned: false; status: "none" | "pending" | "processing" | "refunded" | "disputed" | "failed" };

/** POST /api/create-payment-intent when this browser already owns the item: no new charge. */
export type AlreadyOwned = { alreadyOwned: true; accessUrl: string };

export const recoverAccessSchema = z.object({ email: emailSchema });
/** The one answer to "Lost your access?", whether or not the email bought anything (no enumeration). */
export { RECOVER_ACCESS_MESSAGE } from "./paywall";

/** POST /api/content/{id}/download: a short-lived URL signed for the purchase; navigate to it to save the file. */
export type DownloadLink = { url: string; expiresAt: string };
