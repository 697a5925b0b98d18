// The buyer's library: sign in by an emailed one-time link, then read every purchase made with that
// address (requests, answers and the texts both sides show). Behaviour: docs/library.md.
import { z } from "zod";
import { dollars, isoTime, publicId } from "./answers";
import { emailSchema } from "./auth";
import { ACCESS_TYPES } from "./content";
import { purchaseVerificationSchema } from "./payments";
import { publicCreatorSchema } from "./profile";

export { LIBRARY_LINK_MINUTES, LIBRARY_TEXT } from "./library-text";
import { LIBRARY_TEXT } from "./library-text";

/** POST /api/library/link. */
export const libraryLinkRequestSchema = z.object({ email: emailSchema });
export const libraryLinkSentSchema = z.object({ message: z.string().meta({ example: LIBRARY_TEXT.linkSent }) });

/** POST /api/library/session: the emailed link's token, used up by this call. */
export const librarySignInSchema = z.object({
  token: z.string().min(1, "token is required").max(100, "token is not valid"),
});
/** Who the library is signed in as. */
export const librarySessionSchema = z.object({ email: z.string().meta({ example: "buyer@example.com" }) });
export const librarySignedOutSchema = z.object({ signedOut: z.literal(true) });

export const LIBRARY_STATES = ["paid", "refunded", "disputed"] as const;

const libraryPurchaseSchema = z.object({
  id: publicId,
  contentId: publicId,
  title: z.string(),
  accessType: z.enum(ACCESS_TYPES),
  creator: publicCreatorSchema,
  purchasedAt: isoTime,
  amount: dollars,
  state: z.enum(LIBRARY_STATES).meta({ description: "paid opens; refunded and disputed no longer do" }),
  revokedAt: isoTime.nullable().meta({ description: "When a refund or chargeback ended access" }),
  invoice: z.string().nullable().meta({
    description: "The order's invoice number once issued (its PDF: GET /api/purchases/{id}/invoice.pdf)",
    example: "AW-000123",
  }),
});
export type LibraryPurchase = z.infer<typeof libraryPurchaseSchema>;

/** How many purchases one page of the library lists. */
export const LIBRARY_PAGE_SIZE = 50;

/** GET /api/library/purchases?cursor=…: the cursor is the previous page's `nextCursor` (`${ms}.${id}`). */
export const libraryListQuerySchema = z.object({
  cursor: z
    .string()
    .regex(/^\d{1,15}\.[A-Za-z0-9]{1,32}$/, "cursor is malformed")
    .optional()
    .meta({ description: "The previous page's nextCursor; none for the first page" }),
});

/** GET /library (the page): the list's cursor, and `ended=1` when the island returns after the session ended. */
export const libraryPageQuerySchema = libraryListQuerySchema.extend({
  ended: z.enum(["1"]).optional().meta({ description: "Say the session ended over the sign-in form" }),
});

/** GET /api/library/purchases: one page of the paid (or since refunded or disputed) purchases, newest first. */
export const libraryListSchema = z.object({
  email: z.string(),
  purchases: z.array(libraryPurchaseSchema),
  nextCursor: z.string().nullable().meta({ description: "Where the next page starts; null on the last page" }),
});
export type LibraryList = z.infer<typeof libraryListSchema>;

/** GET /api/library/purchases/{id}: what the access link opens, and its token (for downloads). */
export const libraryAccessSchema = z.object({
  verification: purchaseVerificationSchema,
  access: z.string().meta({ description: "The purchase's access token, as its access link carries it" }),
});
export type LibraryAccess = z.infer<typeof libraryAccessSchema>;

/** GET /api/library/purchases/{id}/receipt: what the receipt email says, and the purchase's state. */
export const libraryReceiptSchema = z.object({
  orderId: publicId,
  title: z.string(),
  amount: dollars,
  purchasedAt: isoTime,
  state: z.enum(LIBRARY_STATES),
  creator: z.object({ name: z.string().nullable(), supportEmail: z.string().nullable() }),
  emailedTo: z.string(),
  licenseKey: z.string().nullable().meta({ description: "Only while the purchase opens" }),
  accessUrl: z.string().nullable().meta({ description: "The permanent access link; only while the purchase opens" }),
});
export type LibraryReceipt = z.infer<typeof libraryReceiptSchema>;

export const libraryIdParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid purchase id") });
