// The admin's actions on one payout and one creator's hold, each safe to press twice or at once:
// mark paid (a manual payout sent by hand, with its reference), mark failed (a manual payout that
// could not be sent: failPayout books the money back), re-send (a failed monthly payout prepared
// again for its period and, by transfer, sent at once; a transfer waiting for a retry sent now), and
// the payouts waiting for the platform's Stripe balance (payoutsWaiting). Holding a creator is
// ./hold.ts. What each action may do from each status is the one table PAYOUT_ACTIONS. Each is a conditional update: of two presses one changes and the other answers
// 200 with the state as it is (`changed: false`); a press the state refuses is a 409 with why. Each
// press is audited after its change, so there is never an audit row without its change.
// Behaviour: docs/money.md ("The admin dashboard").
import { and, eq, sql } from "drizzle-orm";
import { payoutRowStatus, type PayoutActionResult, type PayoutsWaitingView } from "../../../shared/admin";
import { adminAudit, payoutSettings, payouts } from "../../db/schema";
import { formatDollars } from "../../../shared/money";
import { ApiError, notFound } from "../../lib/errors";
import { dispatch } from "../mail/email-outbox";
import type { Actor, PayoutDeps } from "./deps";
import { failPayout } from "./failure";
import { payoutMailInsert, payoutWebhook } from "./notices";
import { preparePayout } from "./prepare";
import { payoutDelay } from "./delay";
import { periodLabel } from "./period";
import { sendPayout } from "./transfer-rail";
import { dispatchWebhooks } from "../webhooks/delivery";

type PayoutRow = typeof payouts.$inferSelect;
type Status = PayoutRow["status"];
type By = "manual" | "transfer";
type PayoutAction = "mark-paid" | "mark-failed" | "resend";
/** apply: make the change; noop: already done, answer the state as it is; else refuse (409) with the message. */
type Verdict = "apply" | "noop" | { refuse: string };

const STRIPE_DECIDES =
  "This payout goes by Stripe Transfer: Stripe decides whether it is paid or failed. Use Re-send to try it now.";
const FAILED_RESEND =
  "This payout failed and its money is back in the creator's balance: use Re-send to prepare it again.";
const PAID = "This payout is paid: nothing more can be done with it.";
const BY_HAND = "This payout is paid by hand: send it, then mark it paid with the reference.";

/** The one transition table: action × how the payout is paid × its status. */
const PAYOUT_ACTIONS: Record<PayoutAction, Record<By, Record<Status, Verdict>>> = {
  "mark-paid": {
    manual: {
      pending: "apply",
      processing: { refuse: "Only a pending payout can be marked paid." },
      paid: "noop",
      failed: { refuse: FAILED_RESEND },
    },
    transfer: {
      pending: { refuse: STRIPE_DECIDES },
      processing: { refuse: STRIPE_DECIDES },
      paid: "noop",
      failed: { refuse: STRIPE_DECIDES },
    },
  },
  "mark-failed": {
    manual: { pending: "apply", processing: "apply", paid: { refuse: PAID }, failed: "noop" },
    transfer: {
      pending: { refuse: STRIPE_DECIDES },
      processing: { refuse: STRIPE_DECIDES },
      paid: { refuse: PAID },
      failed: "noop",
    },
  },
  resend: {
    manual: { pending: { refuse: BY_HAND }, processing: { refuse: BY_HAND }, paid: "noop", failed: "apply" },
    transfer: { pending: "apply", processing: "apply", paid: "noop", failed: "apply" },
  },
};

/** What `action` may do to payout `p` now; throws 409 when the table refuses. */
function verdictFor(action: PayoutAction, p: Pick<PayoutRow, "status" | "stripeAccountId">): "apply" | "noop" {
  const v = PAYOUT_ACTIONS[action][p.stripeAccountId ? "transfer" : "manual"][p.status];
  if (typeof v === "object") throw new ApiError(409, v.refuse);
  return v;
}

const view = (p: PayoutRow): NonNullable<PayoutActionResult["payout"]> => ({
  id: p.id,
  userId: p.userId,
  status: p.status,
  rowStatus: payoutRowStatus(p),
  amount: p.amountCents / 100,
  method: p.method,
  reference: p.reference,
  notes: p.notes,
});

async function load(deps: PayoutDeps, id: string): Promise<PayoutRow> {
  const p = id.length <= 64 ? await deps.db.select().from(payouts).where(eq(payouts.id, id)).get() : undefined;
  if (!p) throw notFound("Payout not found");
  return p;
}

/** The creator's payouts are held: nothing of theirs may be marked paid (sent) until released. */
async function refuseWhileHeld(deps: PayoutDeps, userId: string, what: string) {
  const s = await deps.db
    .select({ heldAt: payoutSettings.heldAt })
    .from(payoutSettings)
    .where(eq(payoutSettings.userId, userId))
    .get();
  if (s?.heldAt) throw new ApiError(409, `This creator is held: release them before you ${what}.`);
}

export async function audit(
  deps: PayoutDeps,
  actor: Actor,
  action: string,
  p: Pick<PayoutRow, "periodYear" | "periodMonth"> | null,
  detail: Record<string, unknown>,
  now: number,
) {
  await deps.db.insert(adminAudit).values({
    actorUserId: actor.userId,
    actorEmail: actor.email,
    action,
    periodYear: p?.periodYear ?? null,
    periodMonth: p?.periodMonth ?? null,
    detail: JSON.stringify(detail),
    createdAt: new Date(now),
  });
}

/**
 * After a conditional update that changed nothing (another press or the run got there first): the
 * state as it is now, answered as a repeat when the table says the action is already done, else 409.
 */
async function settled(deps: PayoutDeps, action: PayoutAction, id: string): Promise<PayoutRow> {
  const now = await load(deps, id);
  verdictFor(action, now);
  return now;
}

/** The admin sent manual payout `id` by hand: pending -> paid with `reference`, the paid email in the same batch. */
export async function markPayoutPaid(
  deps: PayoutDeps,
  actor: Actor,
  id: string,
  reference: string,
  now = Date.now(),
): Promise<PayoutActionResult> {
  const before = await load(deps, id);
  let changed = false;
  if (verdictFor("mark-paid", before) === "apply") {
    // A hold means no money leaves: a prepared payout waits (HOLD_PROMISE), so it is not sent or marked paid.
    await refuseWhileHeld(deps, before.userId, "send this payout or mark it paid");
    const [updated] = await deps.d1.batch([
      deps.d1
        .prepare(
          "update payouts set status = 'paid', processed_at = ?, reference = ?, next_retry_at = null where id = ? and status = 'pending' and stripe_account_id is null returning id",
        )
        .bind(now, reference, id),
      payoutMailInsert(
        deps,
        "payout-paid",
        { where: "p.id = ?5 and p.status = 'paid' and p.stripe_account_id is null", binds: [id] },
        now,
      ),
      ...payoutWebhook(
        deps,
        before,
        "payout.paid",
        {
          sql: "exists (select 1 from payouts where id = ? and status = 'paid' and processed_at = ?)",
          binds: [id, now],
        },
        now,
      ),
    ]);
    changed = !!updated.results?.length;
    if (changed) await dispatch(deps.d1, deps.emails, [`payout-paid:${id}`], now);
    if (changed) await dispatchWebhooks(deps.d1, deps.webhooks, before.userId, [`payout.paid:${id}`], now);
  }
  const after = changed ? await load(deps, id) : await settled(deps, "mark-paid", id);
  await audit(
    deps,
    actor,
    "payout-mark-paid",
    after,
    { payoutId: id, userId: after.userId, reference, changed, status: after.status },
    now,
  );
  return { changed, payout: view(after) };
}

/** A manual payout could not be sent: failed, its money booked back, the creator emailed `reason` (failPayout). */
export async function markPayoutFailed(
  deps: PayoutDeps,
  actor: Actor,
  id: string,
  reason: string,
  now = Date.now(),
): Promise<PayoutActionResult> {
  const before = await load(deps, id);
  let changed = false;
  if (verdictFor("mark-failed", before) === "apply") {
    changed = await failPayout(
      deps,
      id,
      {
        reason,
        code: "marked_failed_by_admin",
        detail: `Marked failed by ${actor.email ?? "the admin"}: ${reason}`,
        ledgerKey: `payout-reversal:${id}`,
        cents: before.amountCents,
        from: ["pending", "processing"],
      },
      now,
    );
  }
  const after = changed ? await load(deps, id) : await settled(deps, "mark-failed", id);
  await audit(
    deps,
    actor,
    "payout-mark-failed",
    after,
    { payoutId: id, userId: after.userId, reason, changed, status: after.status },
    now,
  );
  return { changed, payout: view(after) };
}

/** The live monthly payout of a creator and period (at most one: payouts_user_period). */
const livePayout = (deps: PayoutDeps, p: Pick<PayoutRow, "userId" | "periodYear" | "periodMonth">) =>
  deps.db
    .select()
    .from(payouts)
    .where(
      and(
        eq(payouts.userId, p.userId),
        eq(payouts.kind, "monthly"),
        eq(payouts.periodYear, p.periodYear),
        eq(payouts.periodMonth, p.periodMonth),
        sql`${payouts.status} <> 'failed'`,
      ),
    )
    .get();

/**
 * Re-send payout `id`: a failed monthly payout is prepared again for its creator and period and, by
 * transfer, sent; a transfer pending or waiting for a retry is sent now. Answers the live payout.
 */
export async function resendPayout(
  deps: PayoutDeps,
  actor: Actor,
  id: string,
  now = Date.now(),
): Promise<PayoutActionResult> {
  const before = await load(deps, id);
  let changed = false;
  let result: PayoutRow | undefined = before;
  if (verdictFor("resend", before) === "apply") {
    if (before.status === "failed") {
      if (before.kind !== "monthly")
        throw new ApiError(
          409,
          "A failed withdrawal is not sent again by the admin: the creator can withdraw again from their settings.",
        );
      let live = await livePayout(deps, before);
      if (!live) {
        await refuseWhileHeld(deps, before.userId, "send this payout again");
        const newId = await preparePayout(
          deps,
          before.userId,
          { year: before.periodYear, month: before.periodMonth },
          now,
        );
        changed = newId !== null;
        live = await livePayout(deps, before);
        if (!live)
          throw new ApiError(
            409,
            "Nothing to send: the creator has no payout method that can be paid, or less than the minimum available.",
          );
      }
      // The re-prepared transfer goes to its own send Workflow (which retries it until Stripe settles it).
      // Starting it is idempotent (one instance per payout), so a repeat press joins the same send: the
      // change is the re-prepare, counted once, not the start.
      if (live.stripeAccountId && (live.status === "pending" || live.status === "processing"))
        await deps.startSend(live.id);
      result = await deps.db.select().from(payouts).where(eq(payouts.id, live.id)).get();
    } else {
      // A transfer pending or waiting for a retry: sendPayout resumes it from what Stripe says.
      await sendPayout(deps, id, now);
      result = await load(deps, id);
      changed =
        result.status !== before.status ||
        result.sendAttempt !== before.sendAttempt ||
        result.lastError !== before.lastError;
    }
  }
  const p = result ?? before;
  await audit(
    deps,
    actor,
    "payout-resend",
    p,
    { payoutId: id, livePayoutId: p.id, userId: p.userId, changed, status: p.status },
    now,
  );
  return { changed, payout: view(p) };
}

/** How many waiting payouts the admin sees at most (the most money first). */
const WAITING_ROWS = 200;

/**
 * Payouts and withdrawals of any month that Stripe refused for the platform's balance
 * (`balance_insufficient`, as the transfer rail records the answer: `retry_code`, `last_error` or `failure_code`)
 * and that are not paid, with the platform's balance as Stripe says it (GET /v1/balance). They are
 * retried, but only money in the platform's Stripe balance lets them go out: the admin's to look at.
 */
export async function payoutsWaiting(deps: Pick<PayoutDeps, "d1" | "stripe">): Promise<PayoutsWaitingView> {
  const [{ results }, platformBalance] = await Promise.all([
    deps.d1
      .prepare(
        `select p.id, p.user_id, p.kind, p.amount_cents, p.period_year, p.period_month, p.next_retry_at, p.created_at,
           p.status, p.stripe_account_id, p.retry_code,
           u.first_name, u.last_name, u.email
         from payouts p join users u on u.id = p.user_id
         where p.status in ('pending', 'processing')
           and (p.retry_code = 'balance_insufficient' or p.last_error like '%balance_insufficient%' or p.failure_code = 'balance_insufficient')
         order by p.amount_cents desc, p.id limit ?`,
      )
      .bind(WAITING_ROWS)
      .all<{
        id: string;
        user_id: string;
        kind: "monthly" | "withdrawal";
        amount_cents: number;
        period_year: number;
        period_month: number;
        next_retry_at: number | null;
        created_at: number;
        status: "pending" | "processing";
        stripe_account_id: string | null;
        retry_code: string | null;
        first_name: string | null;
        last_name: string | null;
        email: string;
      }>(),
    platformBalanceOf(deps.stripe),
  ]);
  return {
    platformBalance,
    payouts: results.map((r) => ({
      payoutId: r.id,
      userId: r.user_id,
      name: [r.first_name, r.last_name].filter(Boolean).join(" "),
      email: r.email,
      amount: r.amount_cents / 100,
      kind: r.kind,
      what:
        r.kind === "withdrawal"
          ? "Withdrawal"
          : `${periodLabel({ year: r.period_year, month: r.period_month })} payout`,
      reason: `Stripe refused the transfer: when it was tried, the platform's Stripe balance did not have the ${formatDollars(r.amount_cents / 100)} available. It is tried again by itself; add funds to the platform's Stripe balance, or wait for pending funds to become available.`,
      // When it is truly tried next: the send Workflow's retry, or after its last the daily sweep (delay.ts).
      nextRetryAt:
        payoutDelay({
          status: r.status,
          stripeAccountId: r.stripe_account_id,
          nextRetryAt: r.next_retry_at == null ? null : new Date(r.next_retry_at),
          retryCode: r.retry_code,
        })?.nextTryAt ?? null,
      preparedAt: new Date(r.created_at).toISOString(),
    })),
  };
}

/** The platform's usd balance in dollars (Stripe's GET /v1/balance); null when Stripe could not be asked. */
async function platformBalanceOf(stripe: PayoutDeps["stripe"]): Promise<PayoutsWaitingView["platformBalance"]> {
  try {
    const b = await stripe.balance.retrieve();
    const usd = (l: { amount: number; currency: string }[]) =>
      l.filter((x) => x.currency === "usd").reduce((sum, x) => sum + x.amount, 0) / 100;
    return { available: usd(b.available), pending: usd(b.pending) };
  } catch (err) {
    console.warn("platform balance not read", err);
    return null;
  }
}
