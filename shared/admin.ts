// The admin API's contract (spec §3, §5, §7): request schemas and response shapes.
import { z } from "zod";
import { FEEDBACK_PRIORITIES, FEEDBACK_TYPES } from "./constants";

export const ADMIN_MONTH_MESSAGE = "month must be a whole number from 1 to 12";
export const ADMIN_YEAR_MESSAGE = "year must be a whole number from 2024 to 2030";

// A JSON number, never coerced: `true` is not January and `[3]` is not March (money moves on it).
const month = z.number({ error: ADMIN_MONTH_MESSAGE }).int(ADMIN_MONTH_MESSAGE).min(1, ADMIN_MONTH_MESSAGE).max(12, ADMIN_MONTH_MESSAGE);
const year = z.number({ error: ADMIN_YEAR_MESSAGE }).int(ADMIN_YEAR_MESSAGE).min(2024, ADMIN_YEAR_MESSAGE).max(2030, ADMIN_YEAR_MESSAGE);
/** A query value is text: whole decimal digits only ("03" is March; "1e0", " 3", "0x3" are refused). */
const fromDigits = (inner: typeof month, message: string) =>
  z.string({ error: message }).regex(/^\d{1,4}$/, message).transform(Number).pipe(inner);

/** A period in a JSON body. */
export const adminPeriodSchema = z.strictObject({ month, year });
export const MARK_PAID_MESSAGE = "markPaid must be the list of payout ids the admin paid by hand (at most 10000)";
/**
 * The body of process-payouts: the period, and `markPaid`, the ids of the manual payouts the admin
 * saw in the creator list (its `payout.id`) and paid by hand. Only those are marked paid, never a
 * payout prepared after the list was read; none given marks none.
 */
export const processPayoutsSchema = adminPeriodSchema.extend({
  markPaid: z.array(z.string({ error: MARK_PAID_MESSAGE }).min(1, MARK_PAID_MESSAGE).max(64, MARK_PAID_MESSAGE), { error: MARK_PAID_MESSAGE }).max(10_000, MARK_PAID_MESSAGE).default([]),
});
export type ProcessPayoutsInput = z.input<typeof processPayoutsSchema>;
/** `?month=&year=` of creator-payouts and export-payouts. */
export const adminPeriodQuerySchema = z.object({ month: fromDigits(month, ADMIN_MONTH_MESSAGE), year: fromDigits(year, ADMIN_YEAR_MESSAGE) });
export type AdminPeriod = z.infer<typeof adminPeriodSchema>;

export const adminFeedbackFilterSchema = z.object({
  type: z.enum(FEEDBACK_TYPES, { error: "type must be one of bug, feature, improvement, general" }).optional(),
  priority: z.enum(FEEDBACK_PRIORITIES, { error: "priority must be one of low, medium, high, urgent" }).optional(),
});

export const READY_FOR_PAYOUT = "Ready for Payout";
export const BELOW_MINIMUM = "Below Minimum ($25)";

export type AdminCreatorPayoutRow = {
  userId: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  totalEarnings: number;
  availableBalance: number;
  payoutMethod: string | null;
  payoutEmail: string | null;
  contentCount: number;
  status: typeof READY_FOR_PAYOUT | typeof BELOW_MINIMUM;
  payoutSetUp: boolean;
  /** The creator's payout for the chosen month, if one was prepared. */
  payout: { id: string; amount: number; status: "pending" | "processing" | "paid" | "failed"; method: string; notes: string | null } | null;
};

export type MonthlyReport = {
  month: number;
  year: number;
  totalRevenue: number;
  platformEarnings: number;
  creatorPayouts: number;
  transactionCount: number;
};

/**
 * The answer of 'Process All Payouts'. The press starts the period's run (a Workflow instance, which
 * prepares and sends in the background), joins it while it runs, or runs it again once it finished
 * (preparing whoever became payable since and re-sending what is due), so the counts are the
 * period's payouts as they stand when the press is answered (they grow while the run goes on:
 * GET /api/admin/payout-run follows it); `markedProcessed` is what this press did.
 */
export type ProcessPayoutsResult = {
  period: { year: number; month: number };
  /** Payouts of the period so far (any status). */
  prepared: number;
  /** Transfers of the period paid so far. */
  sent: number;
  failed: number;
  /** Transfers Stripe did not settle yet, retried with backoff. */
  retryLater: number;
  /** Manual payouts marked paid by this call: those of `markPaid` still pending, of the period, by hand. */
  markedProcessed: number;
  /** Transfers handed to their send and not settled yet (pending or processing, no retry due). */
  queued: number;
  d1Statements: number;
  d1RoundTrips: number;
  /** The period's run: its Workflow instance id, and whether this press (re)started it (false: it joined the running one). */
  run: { id: string; started: boolean };
};

/** Purchases Fix Missing Emails looks at per call: each may ask Stripe twice, within a Worker's subrequest limit. */
export const FIX_EMAILS_PAGE = 100;
/** The body of fix-purchase-emails: where the previous call stopped (its `next`); none starts at the oldest. */
export const fixPurchaseEmailsSchema = z.strictObject({
  after: z.string().regex(/^\d{1,15}\.[A-Za-z0-9_-]{1,64}$/, "after must be the next value of the previous answer").optional(),
});
/**
 * One page: `fixed` of the `total` looked at got an email; `remaining` are still to look at after this
 * page, from `next` (null when none remain).
 */
export type FixPurchaseEmailsResult = { fixed: number; total: number; remaining: number; next: string | null };

export type AdminFeedbackItem = {
  id: string;
  type: string;
  priority: string;
  subject: string;
  message: string;
  email: string | null;
  createdAt: string;
};

/**
 * The payout CSV's response header with the number of data rows the file holds. The admin page
 * counts the rows it received and saves the file only when they match: a download cut short (a
 * database error after the first page, a dropped connection) is reported, never saved as complete.
 */
export const CSV_ROW_COUNT_HEADER = "x-row-count";

/** Data rows (records after the header) in RFC 4180 CSV text: line breaks inside quotes do not count. */
export function csvDataRowCount(text: string): number {
  let records = 0;
  let quoted = false;
  let content = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    if (!quoted && ch === "\n") {
      if (content) records++;
      content = false;
    } else if (ch !== "\r") content = true;
  }
  if (content) records++;
  return Math.max(0, records - 1);
}

/** Where one creator's payout stands, as the admin list and the live run view say it (one word each). */
export const PAYOUT_ROW_STATUSES = ["Paid", "Pending", "Retrying", "Failed", "Held", "Not set up", "Below minimum"] as const;
export type PayoutRowStatus = (typeof PAYOUT_ROW_STATUSES)[number];

/**
 * GET /api/admin/payout-run?month=&year=: the run for a period, live. Counts come from the payout
 * rows of the period (D1), the run's state from its Workflow instance `payouts-YYYY-MM`.
 */
export type PayoutRunView = {
  period: { year: number; month: number };
  /** The Workflow instance's status; "none" when no run was started for the period. */
  run: { id: string; status: "none" | "queued" | "running" | "paused" | "waiting" | "waitingForPause" | "errored" | "terminated" | "complete" | "unknown"; error: string | null };
  prepared: number;
  /** Transfers handed to Stripe and not yet settled (processing with no retry due). */
  sent: number;
  paid: number;
  failed: number;
  retrying: number;
  /** Manual payouts waiting for the admin to pay them by hand. */
  pendingManual: number;
  /** ISO time of the earliest retry due, or null. */
  nextRetryAt: string | null;
  /** The payouts that need a look: retrying or failed, with the reason (the admin's technical one). */
  attention: { payoutId: string; userId: string; name: string; email: string; amount: number; method: string; status: PayoutRowStatus; reason: string; nextRetryAt: string | null }[];
};
