// The admin API's contract (spec §3, §5, §7): request schemas and response shapes.
import { z } from "zod";
import { FEEDBACK_PRIORITIES, FEEDBACK_TYPES } from "./feedback";
import { SALE_HOLD_DAYS } from "./payouts";

export const ADMIN_MONTH_MESSAGE = "month must be a whole number from 1 to 12";
export const ADMIN_YEAR_MESSAGE = "year must be a whole number from 2024 to 2030";

// A JSON number, never coerced: `true` is not January and `[3]` is not March (money moves on it).
const month = z
  .number({ error: ADMIN_MONTH_MESSAGE })
  .int(ADMIN_MONTH_MESSAGE)
  .min(1, ADMIN_MONTH_MESSAGE)
  .max(12, ADMIN_MONTH_MESSAGE);
const year = z
  .number({ error: ADMIN_YEAR_MESSAGE })
  .int(ADMIN_YEAR_MESSAGE)
  .min(2024, ADMIN_YEAR_MESSAGE)
  .max(2030, ADMIN_YEAR_MESSAGE);
/** A query value is text: whole decimal digits only ("03" is March; "1e0", " 3", "0x3" are refused). */
const fromDigits = (inner: typeof month, message: string) =>
  z
    .string({ error: message })
    .regex(/^\d{1,4}$/, message)
    .transform(Number)
    .pipe(inner);

/** A period in a JSON body. */
export const adminPeriodSchema = z.strictObject({ month, year });
export const MARK_PAID_MESSAGE = "markPaid must be the list of payout ids the admin paid by hand (at most 10000)";
/**
 * The body of process-payouts: the period, and `markPaid`, the ids of the manual payouts the admin
 * saw in the creator list (its `payout.id`) and paid by hand. Only those are marked paid, never a
 * payout prepared after the list was read; none given marks none.
 */
export const processPayoutsSchema = adminPeriodSchema.extend({
  markPaid: z
    .array(z.string({ error: MARK_PAID_MESSAGE }).min(1, MARK_PAID_MESSAGE).max(64, MARK_PAID_MESSAGE), {
      error: MARK_PAID_MESSAGE,
    })
    .max(10_000, MARK_PAID_MESSAGE)
    .default([]),
});
export type ProcessPayoutsInput = z.input<typeof processPayoutsSchema>;
/** `?month=&year=` of creator-payouts and export-payouts. */
export const adminPeriodQuerySchema = z.object({
  month: fromDigits(month, ADMIN_MONTH_MESSAGE),
  year: fromDigits(year, ADMIN_YEAR_MESSAGE),
});
export type AdminPeriod = z.infer<typeof adminPeriodSchema>;

export const adminFeedbackFilterSchema = z.object({
  type: z.enum(FEEDBACK_TYPES, { error: "type must be one of bug, feature, improvement, general" }).optional(),
  priority: z.enum(FEEDBACK_PRIORITIES, { error: "priority must be one of low, medium, high, urgent" }).optional(),
});

// Spec §4's words for a creator row. They are true only for a creator with no payout of the chosen
// month who is not held: set up with at least the minimum is 'Ready for Payout' (row status
// Pending: the run will pay it), above zero and under the minimum is 'Below Minimum ($25)'. With
// nothing available the row says so: 'Paid this month' when a payout or withdrawal was paid this
// calendar month, else 'Nothing to pay'. Every other row says its PAYOUT_ROW_STATUSES word.
export const READY_FOR_PAYOUT = "Ready for Payout";
export const BELOW_MINIMUM = "Below Minimum ($25)";
export const PAID_THIS_MONTH = "Paid this month";

/**
 * What a hold does to money already on its way, word for word in the hold dialog, docs/money.md and
 * the README: the transfer rail makes no transfer while held, a manual payout cannot be marked paid.
 */
export const HOLD_PROMISE =
  "A payout or withdrawal already prepared waits until you release the creator: no money leaves while they are held.";

const DAY_MS = 24 * 60 * 60 * 1000;
const shortDay = (ms: number) =>
  new Date(ms).toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" });
/**
 * A payout pays what was available when it was prepared: sales whose hold had ended, i.e. made up to
 * SALE_HOLD_DAYS before. "for sales up to Oct 25" (so a November sale in an October payout prepared
 * late in November is no surprise).
 */
export const salesUpToText = (preparedAtMs: number) =>
  `for sales up to ${shortDay(preparedAtMs - SALE_HOLD_DAYS * DAY_MS)}`;
/** The monthly run of `period` prepares at 02:00 UTC on the 1st of the next month. */
export const scheduledRunAt = (p: { year: number; month: number }) => Date.UTC(p.year, p.month, 1, 2);
export const runDayText = (p: { year: number; month: number }) => shortDay(scheduledRunAt(p));

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
  /** Where this creator's payout for the month stands: exactly one of the seven (adminRowStatus). */
  status: PayoutRowStatus;
  /** What the screen says: the spec's words where they are true (see READY_FOR_PAYOUT), else `status`. */
  statusLabel: PayoutRowStatus | typeof READY_FOR_PAYOUT | typeof BELOW_MINIMUM | typeof PAID_THIS_MONTH;
  payoutSetUp: boolean;
  /** The creator's payout or withdrawal marked paid this calendar month (UTC), if any (ISO). */
  paidThisMonthAt: string | null;
  /** The admin held this creator's payouts (the run skips them) until released. */
  held: { at: string; reason: string | null } | null;
  /** The creator's monthly payout for the chosen month, if one was prepared (the live one over failed attempts). */
  payout: {
    id: string;
    amount: number;
    status: "pending" | "processing" | "paid" | "failed";
    method: string;
    /** Where the money goes: the PayPal / Wise / ... address the payout was prepared for (null by transfer). */
    email: string | null;
    /** Sent by Stripe Transfer to a connected account; otherwise paid by hand by the admin. */
    byTransfer: boolean;
    /** Why it failed, in words (the admin's reason, or what Stripe said); null unless failed. */
    notes: string | null;
    /** When it was prepared (ISO): it pays the sales whose hold had ended by then (salesUpToText). */
    preparedAt: string;
    /** What the admin recorded when marking it paid by hand. */
    reference: string | null;
    /** A transfer that Stripe has not settled yet: when it is tried again (ISO), and why. */
    nextRetryAt: string | null;
    lastError: string | null;
  } | null;
};

/**
 * The one rule for a creator row's status, also behind the CSV's status column: the month's payout
 * first (paid, then the hold, then retrying / in flight / failed), then why nothing was prepared.
 * A held creator reads Held unless the month's payout is already paid; with nothing available it is
 * Nothing to pay (Paid this month when a payout was paid this month); a creator above zero and under
 * the minimum reads Below minimum whether or not a method is set (nothing would be paid either way).
 */
export function adminRowStatus(r: {
  payout: { status: "pending" | "processing" | "paid" | "failed"; nextRetryAt: unknown; lastError: unknown } | null;
  held: boolean;
  setUp: boolean;
  availableCents: number;
  minCents: number;
  paidThisMonth: boolean;
}): { status: PayoutRowStatus; statusLabel: AdminCreatorPayoutRow["statusLabel"] } {
  const p = r.payout;
  const only = (status: PayoutRowStatus) => ({ status, statusLabel: status });
  if (p?.status === "paid") return only("Paid");
  if (r.held) return only("Held");
  if (p) return only(payoutRowStatus(p));
  if (r.availableCents <= 0)
    return r.paidThisMonth ? { status: "Nothing to pay", statusLabel: PAID_THIS_MONTH } : only("Nothing to pay");
  if (r.availableCents < r.minCents) return { status: "Below minimum", statusLabel: BELOW_MINIMUM };
  if (!r.setUp) return only("Not set up");
  return { status: "Pending", statusLabel: READY_FOR_PAYOUT };
}

/** One payout's word: a processing payout with a retry due or an error is Retrying; in flight or waiting for the admin is Pending. */
export function payoutRowStatus(p: {
  status: "pending" | "processing" | "paid" | "failed";
  nextRetryAt: unknown;
  lastError: unknown;
}): PayoutRowStatus {
  if (p.status === "paid") return "Paid";
  if (p.status === "failed") return "Failed";
  if (p.status === "processing" && (p.nextRetryAt || p.lastError)) return "Retrying";
  return "Pending";
}

// ---- admin actions for one payout (worker/services/payouts/admin.ts) ----

export const REFERENCE_MESSAGE = "reference must be 1 to 200 characters (e.g. the PayPal transaction id)";
export const FAIL_REASON_MESSAGE = "reason must be 1 to 500 characters: the creator reads it";
export const HOLD_REASON_MESSAGE = "reason must be 1 to 200 characters";
const text = (max: number, message: string) => z.string({ error: message }).trim().min(1, message).max(max, message);
/** POST /api/admin/payouts/:id/mark-paid: the admin sent this manual payout by hand. */
export const markPayoutPaidSchema = z.strictObject({ reference: text(200, REFERENCE_MESSAGE) });
/** POST /api/admin/payouts/:id/mark-failed: what the creator reads in the email and their history. */
export const markPayoutFailedSchema = z.strictObject({ reason: text(500, FAIL_REASON_MESSAGE) });
/** POST /api/admin/creators/:id/hold: why (the admin's note; the creator's timeline says they are held). */
export const holdCreatorSchema = z.strictObject({ reason: text(200, HOLD_REASON_MESSAGE) });
export type MarkPayoutPaidInput = z.input<typeof markPayoutPaidSchema>;
export type MarkPayoutFailedInput = z.input<typeof markPayoutFailedSchema>;
export type HoldCreatorInput = z.input<typeof holdCreatorSchema>;

/** GET /api/admin/payout-summary: the platform's money at a glance. */
export type AdminPayoutSummary = {
  totalRevenue: number;
  platformCommission: number;
  totalPayouts: number;
  creatorCount: number;
  pendingPayouts: number;
};

/** The answer of every payout action: what it did (`changed` false for a repeat) and where things stand now. */
export type PayoutActionResult = {
  changed: boolean;
  /** The payout after the action (for re-send: the live payout of the period, if one exists). */
  payout: {
    id: string;
    userId: string;
    status: "pending" | "processing" | "paid" | "failed";
    rowStatus: PayoutRowStatus;
    amount: number;
    method: string;
    reference: string | null;
    notes: string | null;
  } | null;
};
export type CreatorHoldResult = {
  changed: boolean;
  userId: string;
  held: { at: string; reason: string | null } | null;
};

export type MonthlyReport = {
  month: number;
  year: number;
  totalRevenue: number;
  platformEarnings: number;
  creatorPayouts: number;
  transactionCount: number;
  /** What buyers paid (sales before refunds and disputes). */
  grossSales: number;
  /** Given back to buyers by refunds (both shares). */
  refunds: number;
  /** Taken back by chargebacks (net of those won). */
  disputes: number;
  /** Stripe's processing fees on the month's charges (the platform bears them). */
  stripeFees: number;
  /** Stripe's dispute fees, net of those returned when a dispute was won. */
  disputeFees: number;
  /** Platform earnings less Stripe's fees: what the platform kept. */
  platformNet: number;
  /** Sales whose Stripe fee was more than the platform's share of them (a Pro sale at 0%, a very small price). */
  salesBelowFee: number;
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
  after: z
    .string()
    .regex(/^\d{1,15}\.[A-Za-z0-9_-]{1,64}$/, "after must be the next value of the previous answer")
    .optional(),
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
export const PAYOUT_ROW_STATUSES = [
  "Paid",
  "Pending",
  "Retrying",
  "Failed",
  "Held",
  "Not set up",
  "Below minimum",
  "Nothing to pay",
] as const;
export type PayoutRowStatus = (typeof PAYOUT_ROW_STATUSES)[number];

/**
 * GET /api/admin/payouts-waiting: payouts and withdrawals (any month) that Stripe refused for the
 * platform's balance (`balance_insufficient`) and that are not paid: they are retried, but only money
 * in the platform's Stripe balance lets them go out. `platformBalance` is Stripe's GET /v1/balance
 * (usd), null when Stripe could not be asked.
 */
export type PayoutsWaitingView = {
  platformBalance: { available: number; pending: number } | null;
  payouts: {
    payoutId: string;
    userId: string;
    name: string;
    email: string;
    amount: number;
    kind: "monthly" | "withdrawal";
    /** "October 2026 payout" or "Withdrawal". */
    what: string;
    /** Why, in words. */
    reason: string;
    nextRetryAt: string | null;
    preparedAt: string;
  }[];
};

/**
 * GET /api/admin/payout-run?month=&year=: the run for a period, live. Counts come from the payout
 * rows of the period (D1), the run's state from its Workflow instance `payouts-YYYY-MM`.
 */
export type PayoutRunView = {
  period: { year: number; month: number };
  /** The Workflow instance's status; "none" when no run was started for the period. */
  run: {
    id: string;
    status:
      | "none"
      | "queued"
      | "running"
      | "paused"
      | "waiting"
      | "waitingForPause"
      | "errored"
      | "terminated"
      | "complete"
      | "unknown";
    error: string | null;
  };
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
  attention: {
    payoutId: string;
    userId: string;
    name: string;
    email: string;
    amount: number;
    method: string;
    status: PayoutRowStatus;
    reason: string;
    nextRetryAt: string | null;
  }[];
};
