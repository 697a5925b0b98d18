// The admin API's contract (spec §3, §5, §7): request schemas and response shapes.
import { z } from "zod";
import { FEEDBACK_PRIORITIES, FEEDBACK_TYPES } from "./constants";

export const ADMIN_MONTH_MESSAGE = "month must be a whole number from 1 to 12";
export const ADMIN_YEAR_MESSAGE = "year must be a whole number from 2024 to 2030";

const month = z.coerce.number({ error: ADMIN_MONTH_MESSAGE }).int(ADMIN_MONTH_MESSAGE).min(1, ADMIN_MONTH_MESSAGE).max(12, ADMIN_MONTH_MESSAGE);
const year = z.coerce.number({ error: ADMIN_YEAR_MESSAGE }).int(ADMIN_YEAR_MESSAGE).min(2024, ADMIN_YEAR_MESSAGE).max(2030, ADMIN_YEAR_MESSAGE);

/** `?month=&year=` of creator-payouts and export-payouts, and the body of process-payouts. */
export const adminPeriodSchema = z.object({ month, year });
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

export type ProcessPayoutsResult = {
  period: { year: number; month: number };
  prepared: number;
  sent: number;
  failed: number;
  retryLater: number;
  markedProcessed: number;
  /** Transfers handed to the payout queue, sent in the next moments. */
  queued: number;
  d1Statements: number;
  d1RoundTrips: number;
};

export type FixPurchaseEmailsResult = { fixed: number; total: number };

export type AdminFeedbackItem = {
  id: string;
  type: string;
  priority: string;
  subject: string;
  message: string;
  email: string | null;
  createdAt: string;
};
