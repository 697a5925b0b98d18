// The payout calendar: a period is a calendar month (UTC), prepared by the run on the 1st of the next
// month; its transfer_group and its name in emails. Behaviour: docs/money.md ("The monthly payout run").
import { ApiError } from "../../lib/errors";
import type { PayoutRow } from "./deps";

export type Period = { year: number; month: number };

/** The hour (UTC) of the monthly run on the 1st: the cron "0 2 1 * *" (worker/cron). */
export const PAYOUT_RUN_HOUR_UTC = 2;

/** The month that closed most recently before `now` (the one the run on the 1st prepares). */
export function closingPeriod(now: number): Period {
  const d = new Date(now);
  const prev = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1));
  return { year: prev.getUTCFullYear(), month: prev.getUTCMonth() + 1 };
}

/** The first moment after the period (its month's end). */
const periodEnd = (p: Period) => Date.UTC(p.year, p.month, 1);
export const transferGroup = (p: Period) => `payouts-${p.year}-${String(p.month).padStart(2, "0")}`;
/**
 * A payout's transfer_group: its period's for the monthly run; its own for a withdrawal, so the
 * look-up for a transfer already made (existingTransfer) never mistakes one for the other.
 */
export const payoutTransferGroup = (p: Pick<PayoutRow, "id" | "kind" | "periodYear" | "periodMonth">) =>
  p.kind === "withdrawal" ? `withdrawal-${p.id}` : transferGroup({ year: p.periodYear, month: p.periodMonth });
export const periodLabel = (p: Period) =>
  new Date(Date.UTC(p.year, p.month - 1, 1)).toLocaleString("en-US", {
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
const samePeriod = (a: Period, b: Period) => a.year === b.year && a.month === b.month;

/** Refuses a period that has not ended at `now` (400): its payouts are prepared on the 1st of the next month. */
export function assertPeriodEnded(period: Period, now: number) {
  if (periodEnd(period) > now)
    throw new ApiError(
      400,
      `${periodLabel(period)} has not ended yet: its payouts are prepared on the 1st of the next month`,
    );
}
/** Only the closing month is prepared: older periods were prepared by their own run, and their money is in the next one. */
export const preparesPeriod = (period: Period, now: number) => samePeriod(period, closingPeriod(now));
