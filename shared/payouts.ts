// Payouts as the creator sees them (docs/money.md): the one schedule, the manual methods and the
// bank, the setup and "Withdraw now" rules with their messages, and what the payout routes answer.
import { z } from "zod";
import { dollars, isoTime, publicId } from "./answers";

export const MIN_PAYOUT_CENTS = 2500;
/** The manual payout methods (the admin pays by hand). Bank payouts go through Stripe Connect only. */
export const PAYOUT_METHODS = ["paypal", "wise", "zelle", "venmo", "cashapp"] as const;
type PayoutMethod = (typeof PAYOUT_METHODS)[number];
/** Where a creator's payouts go when both are set up: the connected bank, or their manual method. */
export const PAYOUT_DEFAULTS = ["bank", "manual"] as const;

/**
 * The one payout schedule this product runs (spec §9 states two that contradict each other; this is
 * the decision). Every screen that explains payouts shows these words, and the cron matches them.
 */
/** A sale's creator share is held this long before it can be paid out, so refunds and disputes can still reverse it. */
export const SALE_HOLD_DAYS = 7;
/** Manual-method payouts (PayPal, Wise, Zelle, Venmo, Cash App) are sent by the admin by this day of the month. */
export const MANUAL_PAYOUT_DAY = 21;
export const PAYOUT_SCHEDULE_TEXT = [
  `Each sale's earnings are held for ${SALE_HOLD_DAYS} days, so refunds and disputes can still be settled; after that they are available.`,
  "On the 1st of each month we prepare one payout per creator with everything available at that moment.",
  "Connected bank accounts (Stripe) are paid by transfer that same day and usually arrive in 2-3 business days.",
  `PayPal, Wise, Zelle, Venmo and Cash App payouts are sent by hand by the ${MANUAL_PAYOUT_DAY}st of the month.`,
  `Payouts need at least $${MIN_PAYOUT_CENTS / 100}; a smaller balance carries over to the next month.`,
] as const;

// ---- requests ----

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

// ---- answers ----

export const payoutStatusSchema = z.enum(["pending", "processing", "paid", "failed"]);
export type PayoutStatus = z.infer<typeof payoutStatusSchema>;
export const payoutSkipReasonSchema = z.enum(["below_minimum", "not_set_up", "held"]);
export type PayoutSkipReason = z.infer<typeof payoutSkipReasonSchema>;

/** The next payout: its date and amount, or why there is none. */
export const nextPayoutSchema = z.object({
  date: isoTime,
  amount: dollars,
  /** `nothing_available`: nothing is available (e.g. after a withdrawal); `below_minimum` only when 0 < available < $25. */
  reason: z.enum(["not_set_up", "bank_restricted", "nothing_available", "below_minimum", "on_hold"]).nullable(),
});
export type NextPayout = z.infer<typeof nextPayoutSchema>;

/**
 * A transfer Stripe has not settled that is being tried again (status stays `processing`, its money
 * stays reserved): the platform's Stripe balance was short (`platform_balance`), Stripe did not
 * settle it (`stripe`), or the creator's payouts are held (`held`); and when the next try is.
 */
export const payoutDelaySchema = z.object({
  reason: z.enum(["platform_balance", "stripe", "held"]),
  nextTryAt: isoTime,
});
export type PayoutDelay = z.infer<typeof payoutDelaySchema>;

export const payoutHistoryItemSchema = z.object({
  id: publicId,
  /** 'withdrawal': the creator's "Withdraw now"; 'monthly': the run on the 1st. */
  kind: z.enum(["monthly", "withdrawal"]),
  amount: dollars,
  payoutMethod: z.string(),
  payoutEmail: z.string().nullable(),
  notes: z.string().nullable(),
  createdAt: isoTime,
  status: payoutStatusSchema,
  paidAt: isoTime.nullable(),
  /** Set while a sending transfer waits for its next try (shown as "Delayed"). */
  delay: payoutDelaySchema.nullable(),
});
export type PayoutHistoryItem = z.infer<typeof payoutHistoryItemSchema>;
export const payoutHistorySchema = z.array(payoutHistoryItemSchema);

/** Why "Withdraw now" cannot be pressed: no bank connected, Stripe cannot transfer to it yet, payouts held, below the minimum, a withdrawal already open. */
const withdrawBlockSchema = z.enum(["no_bank", "bank_restricted", "held", "below_minimum", "open"]);
export type WithdrawBlock = z.infer<typeof withdrawBlockSchema>;
/** GET /api/payout/withdraw: what "Withdraw now" would take, why it cannot (null: it can), and the latest withdrawal. */
export const withdrawStatusSchema = z.object({
  available: dollars,
  blockedBy: withdrawBlockSchema.nullable(),
  latest: payoutHistoryItemSchema.nullable(),
});
export type WithdrawStatus = z.infer<typeof withdrawStatusSchema>;

/** GET /api/connect/account-status: the creator's Stripe Connect account, in Stripe's words. */
export const connectStatusSchema = z.object({
  connected: z.boolean(),
  details_submitted: z.boolean(),
  payouts_enabled: z.boolean(),
});
