// A creator's sales and where their money stands (docs/money.md, docs/refunds-and-disputes.md): the
// balance, the sales table and its refunds, and the money timeline on /settings. Money leaves the
// API in dollars, as the screens use it; requests carry cents.
import { z } from "zod";
import { dollars, isoTime, publicId } from "./answers";
import { creatorLicenseSchema } from "./licenses";
import { receiptDeliverySchema } from "./mail";
import { payoutDelaySchema, payoutSkipReasonSchema, payoutStatusSchema } from "./payouts";
import { saleTaxSchema } from "./tax-settings";

/**
 * How far below zero a creator's own refunds may take their balance. A refund after the money was
 * paid out leaves a negative balance that the next payouts net (the platform advances the refund to
 * the buyer's card); without a limit, a creator could withdraw a sale's money, refund it to their
 * own card and leave the platform short. Beyond this, the creator refunds less or waits for sales
 * (or the buyer's bank decides a dispute).
 */
export const CREATOR_REFUND_OVERDRAFT_CENTS = 10_000;

// ---- requests ----

/** Newest-first pages: the cursor is `${paid-at ms}.${id}` of the last row of the previous page. */
export const pageQuerySchema = z.object({
  cursor: z
    .string()
    .regex(/^\d{1,15}\.[A-Za-z0-9_-]{1,40}$/, "cursor is malformed")
    .optional(),
  limit: z.coerce.number().int().min(1, "limit must be 1 to 100").max(100, "limit must be 1 to 100").default(50),
});
export const pageCursor = (createdAt: string | null, id: string) => `${createdAt ? Date.parse(createdAt) : 0}.${id}`;

/** Stripe's own refund reasons; any other text is the creator's note (kept with the request). */
export const REFUND_REASONS = ["requested_by_customer", "duplicate", "fraudulent"] as const;
export const REFUND_MESSAGES = {
  amount: "amountCents must be a whole number of cents, at least 1",
  reason: "reason is required: requested_by_customer, duplicate, fraudulent, or a note of at most 500 characters",
  requestKey: "requestKey must be 8 to 64 letters, digits, - or _",
} as const;
/**
 * POST /api/sales/{purchaseId}/refund. `amountCents` defaults to what is left refundable;
 * `requestKey` (one per dialog) makes a press repeated later the same request.
 */
export const refundSaleSchema = z.strictObject({
  amountCents: z
    .number({ error: REFUND_MESSAGES.amount })
    .int(REFUND_MESSAGES.amount)
    .min(1, REFUND_MESSAGES.amount)
    .max(100_000_000, REFUND_MESSAGES.amount)
    .optional(),
  reason: z
    .string({ error: REFUND_MESSAGES.reason })
    .trim()
    .min(1, REFUND_MESSAGES.reason)
    .max(500, REFUND_MESSAGES.reason),
  requestKey: z
    .string({ error: REFUND_MESSAGES.requestKey })
    .regex(/^[A-Za-z0-9_-]{8,64}$/, REFUND_MESSAGES.requestKey)
    .optional(),
});
export type RefundSaleInput = z.input<typeof refundSaleSchema>;
export const purchaseIdParamSchema = z.object({
  purchaseId: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "purchaseId is malformed"),
});

// ---- answers ----

export const earningsStatsSchema = z.object({
  availableBalance: dollars,
  totalEarnings: dollars,
  pendingPayouts: dollars,
  contentCount: z.number().int(),
  totalUnlocks: z.number().int(),
  /** Sales still inside the hold (shared/payouts.ts SALE_HOLD_DAYS). */
  onHold: dollars,
  /** Held back from available for money on its way out: refunds at Stripe, open inquiries. */
  reserved: dollars,
  paidOut: dollars,
  /** Reversals beyond what was available, to be paid off by future sales. */
  carriedNegative: dollars,
  /** When the oldest sale on hold becomes available. */
  nextReleaseAt: isoTime.nullable(),
});
export type EarningsStats = z.infer<typeof earningsStatsSchema>;

const saleSchema = z.object({
  id: publicId,
  buyerEmail: z.string().nullable(),
  productName: z.string(),
  amount: dollars,
  createdAt: isoTime.nullable(),
  status: z.string().meta({ example: "paid" }),
  /** Refunded so far (Stripe's succeeded refunds, as booked in the ledger). */
  refundedAmount: dollars,
  /** A refund the creator asked for that Stripe says is still pending. */
  refundPending: z.boolean(),
  /** The creator's latest refund that Stripe answered as failed or canceled: money unchanged. */
  refundFailed: z.boolean(),
  /** What a new refund may take now (0: nothing, e.g. refunded in full or disputed). */
  refundable: dollars,
  /** The discount code the buyer used, if any. */
  discountCode: z.string().nullable(),
  orderBump: z.boolean().meta({ description: "Bought as another item's order bump, in the same payment" }),
  /** The tax in `amount` (gross), with the net; null on a sale that carried no tax. */
  tax: saleTaxSchema.nullable(),
  /** The sale's license key, when its item issues them (GET /api/creator/sales). */
  license: creatorLicenseSchema.nullable().optional(),
  /** The latest receipt sent for the sale and where it stands, by the mail provider's word (GET /api/creator/sales); null: none recorded. */
  receipt: receiptDeliverySchema.nullable().optional(),
});
export type Sale = z.infer<typeof saleSchema>;
export const saleListSchema = z.array(saleSchema);

/** POST /api/sales/{purchaseId}/refund: the request and Stripe's word about it so far. */
export const refundRequestSchema = z.object({
  id: z.string(),
  amount: dollars,
  status: z.enum(["requested", "pending", "requires_action", "succeeded", "failed", "canceled"]),
  sale: saleSchema,
});
export type RefundRequestResult = z.infer<typeof refundRequestSchema>;

/** A sale's creator share and where that money stands (the money timeline on /settings). */
const moneyStateSchema = z.union([
  z.object({ kind: z.literal("on_hold"), until: isoTime }),
  z.object({ kind: z.literal("available") }),
  /** `month`: the period the payout is for, e.g. "October 2026", not the month it runs in. */
  z.object({ kind: z.literal("in_payout"), payoutId: z.string(), month: z.string() }),
  /** Taken by the creator's "Withdraw now", being sent. */
  z.object({ kind: z.literal("in_withdrawal"), payoutId: z.string() }),
  z.object({ kind: z.literal("paid"), payoutId: z.string(), paidAt: isoTime }),
  z.object({ kind: z.literal("reversed"), reason: z.enum(["refund", "dispute"]) }),
]);
export type MoneyState = z.infer<typeof moneyStateSchema>;

const timelineItemSchema = z.object({
  purchaseId: z.string(),
  productName: z.string(),
  amount: dollars,
  creatorShare: dollars,
  /** The tax in `amount` (gross), with the net the fee was computed on; null on a sale that carried no tax. */
  tax: saleTaxSchema.nullable(),
  createdAt: isoTime.nullable(),
  state: moneyStateSchema,
  /** The platform fee re-booked on this sale after the fact (a Pro invoice refunded or charged back): negative, with why. */
  feeAdjustment: z.object({ amount: dollars, reason: z.string() }).nullable(),
  /**
   * What refunds took back from the creator's share (negative) and when the last one was booked;
   * `afterPayout` when the share had already gone out in a payout, so it came off the balance (which
   * may then be negative until later sales cover it).
   */
  refund: z.object({ amount: dollars, at: isoTime, afterPayout: z.boolean() }).nullable(),
});
export type TimelineItem = z.infer<typeof timelineItemSchema>;

/**
 * What happened to the creator's money besides sales, on the same timeline: each payout or
 * withdrawal (with its status; `notes` says why one failed) and each month the run did not pay them,
 * with why and what carries over. `at`: when it happened (prepared, or skipped).
 */
const timelineEventSchema = z.union([
  z.object({
    kind: z.literal("payout"),
    id: z.string(),
    payoutKind: z.enum(["monthly", "withdrawal"]),
    month: z.string(),
    amount: dollars,
    status: payoutStatusSchema,
    at: isoTime,
    paidAt: isoTime.nullable(),
    notes: z.string().nullable(),
    /** Set while a sending transfer waits for its next try (shown as "Delayed"). */
    delay: payoutDelaySchema.nullable(),
  }),
  z.object({
    kind: z.literal("skip"),
    id: z.string(),
    month: z.string(),
    reason: payoutSkipReasonSchema,
    amount: dollars,
    at: isoTime,
  }),
]);
export type TimelineEvent = z.infer<typeof timelineEventSchema>;

/** `events`: those between this page's first and last sale (all that remain on the last page). */
export const timelinePageSchema = z.object({
  items: z.array(timelineItemSchema),
  events: z.array(timelineEventSchema),
  nextCursor: z.string().nullable(),
});
export type TimelinePage = z.infer<typeof timelinePageSchema>;
