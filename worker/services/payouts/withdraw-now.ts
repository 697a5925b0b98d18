// Withdraw now: a creator with a connected bank, not held, with at least MIN_PAYOUT_CENTS available
// takes it out any day. It is a payout of kind 'withdrawal' made by the run's own machinery: the run's
// prepare statements (./prepare.ts, guarded by the unique index payouts_open_withdrawal) and the
// transfer rail's send (a PayoutSendWorkflow instance). A refusal says why in the creator's terms
// (WITHDRAW_MESSAGES), as a 4xx. Behaviour: docs/money.md ("Withdraw now").
import { and, desc, eq, sql } from "drizzle-orm";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { MIN_PAYOUT_CENTS, WITHDRAW_MESSAGES } from "../../../shared/payouts";
import type { PayoutHistoryItem, WithdrawBlock, WithdrawStatus } from "../../../shared/payouts";
import { payoutSettings, payouts } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { creatorBalance } from "../balances";
import { historyItem } from "../earnings";
import { dispatch } from "../mail/email-outbox";
import type { PayoutDeps } from "./deps";
import { payoutMailInsert } from "./notices";
import type { Period } from "./period";
import { prepareStatements } from "./prepare";

const REFUSAL_STATUS: Record<WithdrawBlock, ContentfulStatusCode> = {
  no_bank: 400,
  bank_restricted: 400,
  held: 403,
  below_minimum: 400,
  open: 409,
};

/** The UTC month `now` is in: a withdrawal's period. */
const withdrawalPeriod = (now: number): Period => {
  const d = new Date(now);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
};

/** What "Withdraw now" would take at `now`, why it cannot (null: it can), and the creator's latest withdrawal. */
export async function withdrawStatus(
  deps: Pick<PayoutDeps, "db">,
  userId: string,
  now = Date.now(),
): Promise<WithdrawStatus & { stripeAccountId: string | null }> {
  const [settings, latest, balance] = await Promise.all([
    deps.db.select().from(payoutSettings).where(eq(payoutSettings.userId, userId)).get(),
    deps.db
      .select()
      .from(payouts)
      .where(and(eq(payouts.userId, userId), eq(payouts.kind, "withdrawal")))
      // The open one first (at most one, payouts_open_withdrawal), else the newest.
      .orderBy(sql`${payouts.status} in ('pending', 'processing') desc`, desc(payouts.createdAt))
      .limit(1)
      .get(),
    creatorBalance(deps.db, userId, now),
  ]);
  const bankReady = !!settings?.stripeAccountId && settings.connectPayoutsEnabled;
  let blockedBy: WithdrawBlock | null = null;
  if (!bankReady)
    blockedBy = settings?.stripeAccountId && settings.connectDetailsSubmitted ? "bank_restricted" : "no_bank";
  else if (settings?.heldAt) blockedBy = "held";
  else if (latest && (latest.status === "pending" || latest.status === "processing")) blockedBy = "open";
  else if (balance.availableCents < MIN_PAYOUT_CENTS) blockedBy = "below_minimum";
  return {
    available: balance.availableCents / 100,
    blockedBy,
    latest: latest ? historyItem(latest, now) : null,
    stripeAccountId: bankReady ? settings!.stripeAccountId : null,
  };
}

const refuse = (block: WithdrawBlock) => new ApiError(REFUSAL_STATUS[block], WITHDRAW_MESSAGES[block]);

/**
 * The creator presses "Withdraw now": prepares the withdrawal (one batch) and sends it. Throws a
 * 4xx ApiError with the reason when it is not allowed. Returns the withdrawal as it stands once its
 * send Workflow is started: usually pending (the Workflow pays it moments later), paid if it was quick.
 */
export async function withdraw(deps: PayoutDeps, userId: string, now = Date.now()): Promise<PayoutHistoryItem> {
  const before = await withdrawStatus(deps, userId, now);
  if (before.blockedBy) throw refuse(before.blockedBy);
  const id = newId();
  const dest = { method: "bank", email: null, stripeAccountId: before.stripeAccountId };
  const [inserted] = await deps.d1.batch([
    ...prepareStatements(deps.d1, id, userId, dest, withdrawalPeriod(now), now, "withdrawal"),
    payoutMailInsert(deps, "payout-prepared", { where: "p.id = ?5", binds: [id] }, now),
  ]);
  if (!inserted.results?.length) {
    // Something changed between the check and the batch: another press, the monthly run, a hold.
    const after = await withdrawStatus(deps, userId, now);
    throw after.blockedBy
      ? refuse(after.blockedBy)
      : new ApiError(409, "Your balance changed while we prepared your withdrawal. Please try again.");
  }
  await dispatch(deps.d1, deps.emails, [`payout-prepared:${id}`], now);
  await sendWithdrawal(deps, id);
  const row = await deps.db.select().from(payouts).where(eq(payouts.id, id)).get();
  return historyItem(row!, now);
}

/**
 * Hands a prepared withdrawal to the transfer's owner, the same PayoutSendWorkflow the monthly run
 * starts for each transfer (deps.startSend): one retried step with the payout id as Stripe's
 * Idempotency-Key; the daily sweep re-drives it if that instance gives up.
 */
async function sendWithdrawal(deps: PayoutDeps, payoutId: string): Promise<void> {
  await deps.startSend(payoutId);
}
