// A transfer Stripe has not settled and that is tried again: the code of why (recorded by the transfer
// rail with each attempt), and when the next try truly is: the send Workflow's own retry while it
// owns the payout, else the daily sweep that re-drives it. The creator's "Delayed" words and the
// admin's reason are both made from payoutDelay. Behaviour: docs/money.md ("The monthly payout run": Delayed).
import type { PayoutDelay } from "../../../shared/payouts";
import type { PayoutRow } from "./deps";

/** The send step's retries after its first attempt (PayoutSendWorkflow: 1, 2, 4 ... 512 minutes apart). */
export const SEND_STEP_RETRY_LIMIT = 10;

/** A transfer payout with no retry due for this long has lost its owner; the daily sweep re-drives it. */
export const STUCK_AFTER_MS = 24 * 60 * 60 * 1000;

/** The daily sweep's time of day, UTC: the cron "30 3 * * *" (wrangler.toml, worker/cron). */
const SWEEP_UTC_MINUTES = 3 * 60 + 30;

/** A retry due this recently is being made now (the Workflow's attempt has not written its answer yet). */
const IN_FLIGHT_MS = 2 * 60 * 1000;

type StripeErrorLike = { type?: string; rawType?: string; code?: string; statusCode?: number };

/**
 * The code recorded for a retry: Stripe's error code (`balance_insufficient`, `lock_timeout`, ...),
 * else its error type (`api_error`, `rate_limit_error`), else `no_answer` (no response at all).
 */
export function retryCodeOf(err: unknown): string {
  const e = (err ?? {}) as StripeErrorLike;
  if (e.code) return e.code.slice(0, 64);
  if (e.rawType) return e.rawType.slice(0, 64);
  if (e.statusCode && e.type) return e.type.slice(0, 64);
  return "no_answer";
}

/**
 * next_retry_at after the send step's last attempt: no Workflow retry follows, so it is written as
 * already overdue, and both the sweep and payoutDelay count the next try from it.
 */
export const ownerGaveUpAt = (now: number) => now - IN_FLIGHT_MS - 1;

/** The first daily sweep that re-drives a payout whose retry was due at `due` (it takes those due over a day ago). */
function sweepPickUp(due: number): number {
  const after = due + STUCK_AFTER_MS;
  const d = new Date(after);
  const today = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) + SWEEP_UTC_MINUTES * 60_000;
  return today > after ? today : today + 24 * 60 * 60 * 1000;
}

/** What the creator reads: the platform's Stripe balance is short, Stripe did not settle it, or the admin held the creator. */
const reasonOf = (code: string): PayoutDelay["reason"] =>
  code === "balance_insufficient" ? "platform_balance" : code === "held" ? "held" : "stripe";

/**
 * Why a transfer payout is waiting and when it is tried next; null when it is not waiting (pending,
 * sent without an error, paid, failed, or paid by hand). `code`: the recorded code (for the admin).
 */
export function payoutDelay(
  p: Pick<PayoutRow, "status" | "stripeAccountId" | "nextRetryAt" | "retryCode">,
  now = Date.now(),
): (PayoutDelay & { code: string }) | null {
  if (p.status !== "processing" || !p.stripeAccountId || !p.nextRetryAt) return null;
  const code = p.retryCode ?? "no_answer";
  const due = p.nextRetryAt.getTime();
  // Overdue: the Workflow gave up after its retries (or stopped); the daily sweep starts a new send.
  const next = due >= now - IN_FLIGHT_MS ? due : sweepPickUp(due);
  return { reason: reasonOf(code), code, nextTryAt: new Date(next).toISOString() };
}
