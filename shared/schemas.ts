// The API contract: request schemas validated by the Worker and reused by the SPA's forms.
import { z } from "zod";
import { FEEDBACK_PRIORITIES, FEEDBACK_TYPES, MIN_PAYOUT_CENTS, PAYOUT_DEFAULTS, PAYOUT_METHODS } from "./constants";
import { isSameOriginPath } from "./return-path";

type PayoutMethod = (typeof PAYOUT_METHODS)[number];

const trimmed = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, "email is too long")
  .email("enter a valid email address");

/** A same-origin path to come back to after sign-in (shared/return-path.ts says which). */
export const returnToSchema = z.string().refine(isSameOriginPath, {
  message: "returnTo must be a path on this site",
});

export const emailLoginSchema = z.object({
  email: emailSchema,
  returnTo: returnToSchema.optional(),
});
export type EmailLoginInput = z.infer<typeof emailLoginSchema>;

export const feedbackSchema = z.object({
  type: z.enum(FEEDBACK_TYPES, { error: "type must be one of bug, feature, improvement, general" }),
  subject: trimmed(200).min(1, "subject is required"),
  message: trimmed(5000).min(1, "message is required"),
  email: z.union([z.literal(""), emailSchema]).optional(),
  priority: z
    .enum(FEEDBACK_PRIORITIES, { error: "priority must be one of low, medium, high, urgent" })
    .default("medium"),
});
export type FeedbackInput = z.infer<typeof feedbackSchema>;

/** The signed-in user as GET /api/auth/user returns it. */
export type CurrentUser = {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  plan: "free" | "pro";
  isAdmin: boolean;
  /** The next payout run would pay this creator somewhere (a bank Stripe can transfer to, or a manual method). */
  payoutEnabled: boolean;
  /** The creator's manual method and its email (never 'bank': bank payouts go through Connect). */
  payoutMethod: string | null;
  payoutEmail: string | null;
  /** Where the next payout goes: the connected bank, the manual method, or nowhere (not set up). */
  payoutDestination: "bank" | "manual" | null;
  /** The creator's choice when both are set up. */
  payoutDefault: (typeof PAYOUT_DEFAULTS)[number];
  /** A connected bank that Stripe says can receive transfers. */
  bankReady: boolean;
};

/** How one can sign in here; `devOutbox` is true only on a local run, where emails land in /dev/mail. */
export type AuthProviders = { email: true; google: boolean; github: boolean; devOutbox: boolean };

// ---- creator money ----

export const PAYOUT_SETUP_MESSAGES = {
  required: "Please select a payout method and enter your email",
  method: "Payout method must be one of paypal, wise, zelle, venmo, cashapp (bank payouts: connect your bank account)",
  email: "Please enter a valid email address",
} as const;

/** POST /api/payout/setup. The messages are the ones spec §5 and the settings form show. */
export const payoutSetupSchema = z
  .object({
    payoutMethod: z.string().trim().optional(),
    payoutEmail: z.string().trim().toLowerCase().max(254).optional(),
  })
  .superRefine((v, ctx) => {
    if (!v.payoutMethod || !v.payoutEmail)
      ctx.addIssue({ code: "custom", message: PAYOUT_SETUP_MESSAGES.required, path: [] });
    else if (!(PAYOUT_METHODS as readonly string[]).includes(v.payoutMethod))
      ctx.addIssue({ code: "custom", message: PAYOUT_SETUP_MESSAGES.method, path: [] });
    else if (!z.email().safeParse(v.payoutEmail).success)
      ctx.addIssue({ code: "custom", message: PAYOUT_SETUP_MESSAGES.email, path: [] });
  })
  .transform((v) => ({ payoutMethod: v.payoutMethod as PayoutMethod, payoutEmail: v.payoutEmail as string }));
export type PayoutSetupInput = z.input<typeof payoutSetupSchema>;

export const PAYOUT_DEFAULT_MESSAGE = "payoutDefault must be bank or manual";
/** POST /api/payout/default: where payouts go when both the connected bank and a manual method are set up. */
export const payoutDefaultSchema = z.strictObject({
  payoutDefault: z.enum(PAYOUT_DEFAULTS, { error: PAYOUT_DEFAULT_MESSAGE }),
});

/** POST /api/payout/withdraw: everything available goes; the amount comes from the ledger, never the body. */
export const withdrawSchema = z.strictObject({});

/** Why "Withdraw now" cannot be pressed, in the creator's terms (the 4xx message and the disabled button's reason). */
export const WITHDRAW_MESSAGES = {
  no_bank: "Connect your bank account to withdraw: withdrawals are sent to your bank through Stripe.",
  bank_restricted:
    "Stripe cannot send money to your bank account yet. Finish your bank setup with Stripe, then withdraw.",
  held: "Your payouts are on hold, so you cannot withdraw right now. Contact support to find out why and what to do.",
  below_minimum: `You can withdraw once your available balance is at least $${MIN_PAYOUT_CENTS / 100}.`,
  open: "You already have a withdrawal on its way. You can withdraw again once it has been sent.",
} as const;

/** Newest-first pages: the cursor is `${paid-at ms}.${id}` of the last row of the previous page. */
export const pageQuerySchema = z.object({
  cursor: z
    .string()
    .regex(/^\d{1,15}\.[A-Za-z0-9_-]{1,40}$/, "cursor is malformed")
    .optional(),
  limit: z.coerce.number().int().min(1, "limit must be 1 to 100").max(100, "limit must be 1 to 100").default(50),
});
export const pageCursor = (createdAt: string | null, id: string) => `${createdAt ? Date.parse(createdAt) : 0}.${id}`;

export const ANALYTICS_RANGES = [7, 30, 90] as const;
export const analyticsQuerySchema = z.object({
  days: z.coerce
    .number()
    .refine((d) => (ANALYTICS_RANGES as readonly number[]).includes(d), "days must be 7, 30 or 90")
    .default(30),
  contentId: z
    .string()
    .regex(/^[A-Za-z0-9]{1,32}$/, "contentId is malformed")
    .optional(),
});

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
