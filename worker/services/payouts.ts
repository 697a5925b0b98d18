// Money leaving the platform, once. A payout run for a period (a calendar month, UTC) is two kinds
// of step, each one call that is safe to repeat or to run concurrently (the Workflows in
// worker/workflows/ make each one a durable step: preparePage, sendPayoutStep):
//
// - prepare(period, creator): one D1 batch that inserts the payout row and its negative 'payout'
//   ledger row. The amount is computed inside the INSERT from the ledger as it stands when SQLite
//   runs it (balances.ts availableRemainderSql), and the partial unique index payouts_user_period
//   (one live payout per creator and period) makes a second insert a no-op; the ledger row is keyed
//   `payout:{id}` and copied from the payout row that exists, so only the winning insert takes money.
// - send(payout): a connected-account payout goes pending -> processing (conditional update), then
//   one Stripe Transfer with idempotency key = the payout id and transfer_group per period, then
//   paid. A run stopped in between leaves it processing; the next run resumes it: it first looks for
//   a transfer already made for it (transfer_group + metadata), then retries with the same key.
//
// Stripe's answer decides (destinationFailure): only a definitive answer about the destination
// (it cannot take transfers, is closed or gone), or the transfer.reversed webhook, marks the payout
// failed and books the money back with a positive 'payout_reversal' row in the same batch; the
// creator reads what happened in their terms (`notes`), the admin Stripe's code and message
// (failure_code, failure_detail). Anything else (no answer, 429, 5xx, balance_insufficient,
// idempotency_key_in_use, a failed look-up on resume) leaves it processing with last_error and
// next_retry_at, and its send step throws so the Workflow retries it with a doubling delay until
// Stripe settles it (the daily sweep starts a send again for one whose retries ran out).
// An error Stripe keeps under the Idempotency-Key (a 400 or 500 answer) would be replayed for that
// key, so the next attempt looks for a transfer first and then uses a new key (`{id}:{attempt}`).
// A partial reversal is booked back at once, also while the payout is still processing. A failed
// payout leaves the unique index, so a later run of the same period, or the next period, pays it again.
// Manual methods (PayPal, Wise, ...) stay pending until the admin marks them paid: the admin pays by
// hand from the creator list and 'Process All Payouts' sends back the ids of that list's payouts;
// only those still pending, of the period and by hand, become paid (one conditional update), so a
// payout prepared after the list was read is never recorded as paid, and a second press is a no-op.
// A creator the run does not pay (held, below the minimum with a positive balance, or not set up
// with at least the minimum) gets one payout_skips row per period, which says why and how much
// carries over, and its 'payout-skipped' email, in the same batch (preparePage).
// Each change that emails the creator (prepared, paid, failed, skipped) writes the email to the outbox
// in its own batch (payoutMailInsert, skipMailInsert), so a queue that refuses loses nothing and fails no run.
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import type { ProcessPayoutsResult } from "../../shared/admin";
import { MIN_PAYOUT_CENTS } from "../../shared/payouts";
import { createDb, type Db } from "../db/client";
import { adminAudit, payoutSettings, payouts, type payoutSkips } from "../db/schema";
import type { Bindings } from "../lib/env";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { availableRemainderSql, SALE_HOLD_MS } from "./balances";
import { dispatch } from "./mail/email-outbox";
import { stripeClient } from "./stripe";
import { dispatchWebhooks, webhookStatements } from "./webhooks";

/**
 * `startSend`: hands one payout's transfer to its owner, the PayoutSendWorkflow instance (a second
 * start for the same payout joins the first). Everything that sends outside the run (a withdrawal,
 * an admin's re-send of a re-prepared payout) starts it here, so every transfer has one retrying owner.
 */
export type PayoutDeps = {
  db: Db;
  d1: D1Database;
  stripe: Stripe;
  emails: Queue;
  webhooks?: Queue;
  appUrl: string;
  startSend: (payoutId: string) => Promise<void>;
};

/** Everything a payout step needs but the way to start a send, which the caller gives (worker/deps.ts `payoutDeps`). */
export const payoutBaseDeps = (env: Bindings): Omit<PayoutDeps, "startSend"> => ({
  db: createDb(env.DB),
  d1: env.DB,
  stripe: stripeClient(env),
  emails: env.EMAILS,
  webhooks: env.WEBHOOKS,
  appUrl: env.APP_URL,
});
export type Period = { year: number; month: number };
export type Actor = { userId: string | null; email: string | null };
type PayoutRow = typeof payouts.$inferSelect;

/** The hour (UTC) of the monthly run on the 1st: the cron "0 2 1 * *" (worker/cron). */
export const PAYOUT_RUN_HOUR_UTC = 2;

/** The month that closed most recently before `now` (the one the run on the 1st prepares). */
export function closingPeriod(now: number): Period {
  const d = new Date(now);
  const prev = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1));
  return { year: prev.getUTCFullYear(), month: prev.getUTCMonth() + 1 };
}

/** The first moment after the period (its month's end). */
export const periodEnd = (p: Period) => Date.UTC(p.year, p.month, 1);
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

/** Where a creator's payout goes, from their settings: a connected account by transfer, else by hand. */
export type Destination = { method: string; email: string | null; stripeAccountId: string | null };

/**
 * The one rule for where a payout goes (the run, the creator's "next payout", /settings and /admin
 * all use it): a connected bank that Stripe says can receive transfers (kept current by
 * account.updated), or the creator's manual method with its email, whichever they chose as default;
 * the other when the chosen one cannot be paid (a restricted account falls back to the manual
 * method); null when neither. A manual 'bank' (rows from before bank payouts went through Connect
 * only) is no manual method: bank money is never recorded as paid by hand.
 */
export function destinationOf(
  s:
    | Pick<
        typeof payoutSettings.$inferSelect,
        "method" | "email" | "stripeAccountId" | "connectPayoutsEnabled" | "payoutDefault"
      >
    | undefined,
): Destination | null {
  if (!s) return null;
  const bank =
    s.stripeAccountId && s.connectPayoutsEnabled
      ? { method: "bank", email: null, stripeAccountId: s.stripeAccountId }
      : null;
  const manual =
    s.method && s.method !== "bank" && s.email ? { method: s.method, email: s.email, stripeAccountId: null } : null;
  return s.payoutDefault === "manual" ? (manual ?? bank) : (bank ?? manual);
}

// ---- prepare ----

/**
 * The two statements that prepare one creator's payout for `period`, as of `now`. Nothing is
 * written when the creator's available balance at that moment is below the minimum, when a live
 * payout for the period exists (unique index), or when a payout ledger row dated after `now`
 * exists (a concurrent run for another period whose clock is ahead: what it took is not inside our
 * "as of now" sum). The amount is the smaller of the available balance as of `now` and as of the
 * moment the statement runs: a refund, dispute or fee booked after `now` (a late page of a long run,
 * or a step retried hours later) is never paid out as if
 * it had not happened, while money released after `now` waits for the next run. `kind`
 * 'withdrawal' (withdrawals.ts) takes the same money by the same rule, so the run and a withdrawal
 * never both take a cent; its unique index is payouts_open_withdrawal instead of payouts_user_period.
 */
export function prepareStatements(
  d1: D1Database,
  payoutId: string,
  userId: string,
  dest: Destination,
  period: Period,
  now: number,
  kind: PayoutRow["kind"] = "monthly",
): D1PreparedStatement[] {
  const wall = Math.max(now, Date.now());
  return [
    d1
      .prepare(
        `insert into payouts (id, user_id, amount_cents, currency, method, email, stripe_account_id, status, period_year, period_month, created_at, kind)
         select ?1, ?2, a.cents, 'usd', ?3, ?4, ?5, 'pending', ?6, ?7, ?8, ?11
         from (select min(${availableRemainderSql("?2", "?8", "?9")}, ${availableRemainderSql("?2", "?12", "?13")}) as cents) a
         where a.cents >= ?10
           and not exists (select 1 from ledger_entries where user_id = ?2 and account = 'creator' and kind = 'payout' and created_at > ?8)
           and not exists (select 1 from payout_settings where user_id = ?2 and held_at is not null)
         on conflict do nothing
         returning id`,
      )
      .bind(
        payoutId,
        userId,
        dest.method,
        dest.email,
        dest.stripeAccountId,
        period.year,
        period.month,
        now,
        now - SALE_HOLD_MS,
        MIN_PAYOUT_CENTS,
        kind,
        wall,
        wall - SALE_HOLD_MS,
      ),
    d1
      .prepare(
        `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, payout_id, created_at)
         select 'payout:' || id, 'creator', user_id, 'payout', -amount_cents, currency, id, created_at from payouts where id = ?1
         on conflict (idempotency_key) do nothing`,
      )
      .bind(payoutId),
  ];
}

/** Prepares one creator's payout for `period` (one D1 batch). Returns the new payout's id, or null when none was created. */
export async function preparePayout(
  deps: PayoutDeps,
  userId: string,
  period: Period,
  now = Date.now(),
): Promise<string | null> {
  const settings = await deps.db.select().from(payoutSettings).where(eq(payoutSettings.userId, userId)).get();
  const dest = destinationOf(settings);
  if (!dest || settings?.heldAt) return null;
  const id = newId();
  const ids = JSON.stringify([id]);
  const [inserted] = await deps.d1.batch([
    ...prepareStatements(deps.d1, id, userId, dest, period, now),
    payoutMailInsert(
      deps,
      "payout-prepared",
      { where: "p.id in (select value from json_each(?5))", binds: [ids] },
      now,
    ),
  ]);
  if (!inserted.results?.length) return null;
  await dispatch(deps.d1, deps.emails, [`payout-prepared:${id}`], now);
  return id;
}

/** Creators per D1 batch in a prepare page: each paid one keeps its own two guarded statements, each skipped one one. */
const PREPARE_CHUNK = 50;

// ---- send (transfers) ----

// What a Stripe error from transfers.create means for the payout. Only a definitive answer about
// the destination fails it (the money is booked back and the creator told what to do); anything
// else (no answer, rate limits, Stripe's own errors, the platform's balance, a concurrent request
// with the same key) leaves it processing, tried again with backoff until Stripe settles it.
type StripeErrorLike = { type?: string; code?: string; param?: string; statusCode?: number; message?: string };

/** Codes by which Stripe says the destination cannot take this transfer, with what the creator reads and can do. */
const DESTINATION_FAILURES: Record<string, string> = {
  insufficient_capabilities_for_transfer:
    "Stripe cannot send money to your connected bank account yet: it still needs some details from you. Open your payout settings and finish setting up your bank account with Stripe.",
  transfers_not_allowed:
    "Stripe cannot send money to your connected bank account yet: it still needs some details from you. Open your payout settings and finish setting up your bank account with Stripe.",
  account_invalid:
    "Your connected bank account is closed or no longer linked to ApeWall. Open your payout settings and connect a bank account again, or choose another payout method.",
  account_closed:
    "Your connected bank account is closed or no longer linked to ApeWall. Open your payout settings and connect a bank account again, or choose another payout method.",
};

/** The creator's reason when Stripe said the destination cannot be paid; null when the error is not about the destination (retried). */
export function destinationFailure(err: unknown): { code: string; creatorReason: string; detail: string } | null {
  const e = (err ?? {}) as StripeErrorLike;
  if (e.type !== "StripeInvalidRequestError" || !e.code) return null;
  const missing = e.code === "resource_missing" && e.param === "destination";
  const creatorReason = missing ? DESTINATION_FAILURES.account_invalid : DESTINATION_FAILURES[e.code];
  return creatorReason ? { code: e.code, creatorReason, detail: String(e.message ?? "").slice(0, 500) } : null;
}

/**
 * Whether Stripe kept this answer under the request's Idempotency-Key: it does for any result of an
 * endpoint that began executing (400s, 500s), not for a request refused first (429 rate limit or
 * lock_timeout, 409 idempotency_key_in_use) nor one that got no answer. A kept error is replayed for
 * that key for 24 hours, so the next attempt needs a new key (see sendAttempt in the schema).
 */
function keptUnderKey(err: unknown): boolean {
  const status = (err as StripeErrorLike)?.statusCode;
  return typeof status === "number" && status !== 409 && status !== 429;
}

const errorText = (err: unknown) => {
  const e = (err ?? {}) as StripeErrorLike;
  return `${e.type ?? "Error"}${e.code ? ` ${e.code}` : ""}${e.statusCode ? ` (${e.statusCode})` : ""}: ${e.message ?? String(err)}`.slice(
    0,
    500,
  );
};

/**
 * Backoff before retry `n` (1, 2, ...): 1 minute, doubling, at most 512 minutes: the delays of the
 * send step's retries (SEND_STEP_RETRIES, exponential from 1 minute), so next_retry_at says when.
 */
export const retryDelaySeconds = (n: number) => Math.min(60 * 2 ** Math.max(0, n - 1), 512 * 60);

/** The Idempotency-Key of a payout's transfer attempt: the payout id, then `{id}:{attempt}`. */
const transferKey = (p: PayoutRow) => (p.sendAttempt ? `${p.id}:${p.sendAttempt}` : p.id);

/** A transfer already made for this payout (a run that stopped after Stripe answered, before we wrote it down). */
async function existingTransfer(deps: PayoutDeps, p: PayoutRow): Promise<Stripe.Transfer | null> {
  for await (const t of deps.stripe.transfers.list({
    destination: p.stripeAccountId!,
    transfer_group: payoutTransferGroup(p),
    limit: 100,
  })) {
    if (t.metadata?.payout_id === p.id) return t;
  }
  return null;
}

export type SendOutcome = "paid" | "failed" | "retry_later" | "manual" | "done" | "missing";

/**
 * Sends (or resumes) one payout by Stripe Transfer. Safe to call any number of times, also
 * concurrently: Stripe's idempotency key is the payout id (and attempt) and every state change is
 * conditional. A resumed payout first looks for the transfer it may already have made; if that
 * look-up fails, nothing is decided (retry_later): the transfer may exist.
 */
export async function sendPayout(
  deps: PayoutDeps,
  payoutId: string,
  now = Date.now(),
  opts: { retry?: number } = {},
): Promise<SendOutcome> {
  const p = await deps.db.select().from(payouts).where(eq(payouts.id, payoutId)).get();
  if (!p) return "missing";
  if (p.status === "paid" || p.status === "failed") return "done";
  if (!p.stripeAccountId) return "manual";
  const resumed = p.status === "processing";
  if (!resumed)
    await deps.d1
      .prepare("update payouts set status = 'processing' where id = ? and status = 'pending'")
      .bind(p.id)
      .run();
  const retryLater = async (err: unknown) => {
    console.warn("transfer not sent, will retry", p.id, err);
    const delay = retryDelaySeconds((opts.retry ?? 0) + 1);
    // The key moves on only from the attempt that was answered (a concurrent sender's repeat is a no-op).
    const bump = keptUnderKey(err) ? 1 : 0;
    await deps.d1
      .prepare(
        "update payouts set send_attempt = send_attempt + (case when send_attempt = ?1 then ?2 else 0 end), last_error = ?3, next_retry_at = ?4 where id = ?5 and status = 'processing'",
      )
      .bind(p.sendAttempt, bump, errorText(err), now + delay * 1000, p.id)
      .run();
    return "retry_later" as const;
  };

  let transfer: Stripe.Transfer | null = null;
  // A payout that was processing, or whose earlier attempt Stripe answered with an error, may
  // already have its transfer (made under an earlier key, or by a run that stopped).
  if (resumed || p.sendAttempt > 0) {
    try {
      transfer = await existingTransfer(deps, p);
    } catch (err) {
      return retryLater(err);
    }
  }
  // The admin held the creator after this payout was prepared: no transfer is made while the hold
  // lasts. The payout stays processing with the reason (Retrying, owned by its send and the daily
  // sweep) and goes out once released; the admin can press re-send then.
  if (!transfer) {
    const held = await deps.d1
      .prepare("select held_at from payout_settings where user_id = ? and held_at is not null")
      .bind(p.userId)
      .first();
    if (held)
      return retryLater(new Error("the creator's payouts are held by the admin; the transfer waits for their release"));
  }
  try {
    transfer ??= await deps.stripe.transfers.create(
      {
        amount: p.amountCents,
        currency: p.currency,
        destination: p.stripeAccountId,
        transfer_group: payoutTransferGroup(p),
        description:
          p.kind === "withdrawal"
            ? "ApeWall withdrawal"
            : `ApeWall payout ${periodLabel({ year: p.periodYear, month: p.periodMonth })}`,
        metadata: { payout_id: p.id, user_id: p.userId },
      },
      { idempotencyKey: transferKey(p) },
    );
  } catch (err) {
    const definitive = destinationFailure(err);
    if (!definitive) return retryLater(err);
    return (await failPayout(
      deps,
      p.id,
      {
        reason: definitive.creatorReason,
        code: definitive.code,
        detail: definitive.detail,
        ledgerKey: `payout-reversal:${p.id}`,
        cents: p.amountCents,
        from: ["pending", "processing"],
      },
      now,
    ))
      ? "failed"
      : "done";
  }
  const [marked] = await deps.d1.batch([
    deps.d1
      .prepare(
        "update payouts set status = 'paid', stripe_transfer_id = ?, processed_at = ?, next_retry_at = null where id = ? and status = 'processing' returning id",
      )
      .bind(transfer.id, now, p.id),
    payoutMailInsert(
      deps,
      "payout-paid",
      { where: "p.id = ?5 and p.status = 'paid' and p.stripe_transfer_id = ?6", binds: [p.id, transfer.id] },
      now,
    ),
    ...payoutWebhook(
      deps,
      { ...p, stripeTransferId: transfer.id },
      "payout.paid",
      {
        sql: "exists (select 1 from payouts where id = ? and status = 'paid' and stripe_transfer_id = ?)",
        binds: [p.id, transfer.id],
      },
      now,
    ),
  ]);
  // Nothing marked: another run got there first, or a transfer.reversed that overtook us failed it.
  if (!marked.results?.length) return "done";
  await dispatch(deps.d1, deps.emails, [`payout-paid:${p.id}`], now);
  await dispatchWebhooks(deps.d1, deps.webhooks, p.userId, [`payout.paid:${p.id}`], now);
  return "paid";
}

/**
 * The statement that books a payout's money back to its creator: `reversedCents` in all, less what
 * earlier bookings for this payout already returned (computed inside the statement, so concurrent or
 * reordered events book each cent once), only while the payout has `whileStatus`, once per `key`.
 */
function bookBack(
  d1: D1Database,
  b: { key: string; reversedCents: number; payoutId: string; whileStatus: PayoutRow["status"][] },
  now: number,
): D1PreparedStatement {
  const statuses = b.whileStatus.map((s) => `'${s}'`).join(", ");
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, payout_id, created_at)
       select ?1, 'creator', user_id, 'payout_reversal', ?2 - back.cents, currency, id, ?3
       from payouts, (select coalesce(sum(amount_cents), 0) as cents from ledger_entries where payout_id = ?4 and kind = 'payout_reversal') back
       where id = ?4 and status in (${statuses}) and ?2 - back.cents > 0
       on conflict (idempotency_key) do nothing`,
    )
    .bind(b.key, b.reversedCents, now, b.payoutId);
}

/**
 * Marks a payout failed and books `cents` back to the creator, in one batch, less what partial
 * reversals already booked; the booking only happens if the payout is failed when it runs, once per
 * `ledgerKey`. Returns whether this call
 * made the change (then the creator is emailed).
 */
export async function failPayout(
  deps: PayoutDeps,
  payoutId: string,
  f: { reason: string; code: string; detail: string; ledgerKey: string; cents: number; from: PayoutRow["status"][] },
  now: number,
): Promise<boolean> {
  const from = f.from.map((s) => `'${s}'`).join(", ");
  const payout = await deps.db.select().from(payouts).where(eq(payouts.id, payoutId)).get();
  const [updated] = await deps.d1.batch([
    // `notes` is what the creator reads (payout history, email); code and detail are for the admin.
    deps.d1
      .prepare(
        `update payouts set status = 'failed', notes = ?, failure_code = ?, failure_detail = ?, processed_at = ?, next_retry_at = null where id = ? and status in (${from}) returning id`,
      )
      .bind(f.reason.slice(0, 500), f.code, f.detail.slice(0, 500), now, payoutId),
    bookBack(deps.d1, { key: f.ledgerKey, reversedCents: f.cents, payoutId, whileStatus: ["failed"] }, now),
    payoutMailInsert(
      deps,
      "payout-failed",
      { where: "p.id = ?5 and p.status = 'failed'", binds: [payoutId] },
      now,
      f.reason,
    ),
    ...(payout
      ? payoutWebhook(
          deps,
          payout,
          "payout.failed",
          {
            sql: "exists (select 1 from payouts where id = ? and status = 'failed' and processed_at = ?)",
            binds: [payoutId, now],
          },
          now,
          f.reason,
        )
      : []),
  ]);
  if (!updated.results?.length) return false;
  await dispatch(deps.d1, deps.emails, [`payout-failed:${payoutId}`], now);
  if (payout) await dispatchWebhooks(deps.d1, deps.webhooks, payout.userId, [`payout.failed:${payoutId}`], now);
  return true;
}

/**
 * The daily sweep's part: a transfer payout left pending or processing with no retry due for over a
 * day has lost its owner (its send instance gave up after its retries, or was never started). Its
 * send starts again (a new PayoutSendWorkflow instance, tagged with the day); sendPayout picks it up
 * from what Stripe says, so a payout that was in fact sent is only marked paid. Returns the ids.
 */
export async function stuckPayoutIds(deps: Pick<PayoutDeps, "d1">, now = Date.now()): Promise<string[]> {
  const { results } = await deps.d1
    .prepare(
      `select id from payouts where stripe_account_id is not null and status in ('pending', 'processing')
         and coalesce(next_retry_at, created_at) < ? order by created_at limit 1000`,
    )
    .bind(now - STUCK_AFTER_MS)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}
const STUCK_AFTER_MS = 24 * 60 * 60 * 1000;

/** transfer.reversed: the money came back from the creator's account; it returns to their balance. */

export async function handleTransferReversed(deps: PayoutDeps, transferId: string, now = Date.now()): Promise<void> {
  const transfer = await deps.stripe.transfers.retrieve(transferId);
  const byMeta = transfer.metadata?.payout_id;
  const p = await deps.db
    .select()
    .from(payouts)
    .where(byMeta ? eq(payouts.id, byMeta) : eq(payouts.stripeTransferId, transfer.id))
    .get();
  if (!p) return;
  if (transfer.reversed) {
    // Fully reversed: the payout failed and its whole amount comes back (once, whatever the order of events).
    await failPayout(
      deps,
      p.id,
      {
        reason: "The transfer to your bank account was reversed. Check your bank account in your payout settings.",
        code: "transfer_reversed",
        detail: `Transfer ${transfer.id} reversed (${transfer.amount_reversed} of ${transfer.amount} cents)`,
        ledgerKey: `payout-reversal:${p.id}`,
        cents: transfer.amount_reversed,
        from: ["processing", "paid"],
      },
      now,
    );
  } else if (transfer.amount_reversed > 0) {
    // Partly reversed: the payout stays paid (or still processing: the transfer exists, so it will be
    // marked paid), and what came back from the creator's account returns to their balance at once.
    // Keyed by the reversed total, computed against what earlier events booked inside the
    // statement, so repeated or reordered events book each cent once; a later full reversal books
    // only the rest (failPayout).
    await bookBack(
      deps.d1,
      {
        key: `payout-reversal:${p.id}:partial:${transfer.amount_reversed}`,
        reversedCents: transfer.amount_reversed,
        payoutId: p.id,
        whileStatus: ["processing", "paid"],
      },
      now,
    ).run();
  }
}

// ---- the run (steps of PayoutRunWorkflow, worker/workflows/payout-run.ts) ----

/** Creators one prepare step looks at (one Workflow step: about 25 D1 round trips, see preparePage). */
export const PREPARE_PAGE = 500;
/** Transfer payouts one step hands to their send instances (createBatch takes at most 100). */
export const SEND_START_PAGE = 100;

type PageRow = {
  user_id: string;
  remainder: number;
  method: string | null;
  email: string | null;
  stripe_account_id: string | null;
  connect_payouts_enabled: number | null;
  payout_default: "bank" | "manual" | null;
  held_at: number | null;
  has_payout: number;
};

/** What one prepare step did: `next` is the last creator looked at (null when the period is done). */
export type PreparePageResult = {
  next: string | null;
  creators: number;
  prepared: number;
  skipped: number;
  d1RoundTrips: number;
};
export type SkipReason = (typeof payoutSkips.$inferSelect)["reason"];

/** Why a creator with this balance and these settings is not paid this period; null when they are paid (or have nothing). */
export function skipReason(remainder: number, dest: Destination | null, held: boolean): SkipReason | null {
  if (remainder <= 0) return null;
  if (held) return "held";
  if (remainder < MIN_PAYOUT_CENTS) return "below_minimum";
  if (!dest) return "not_set_up";
  return null;
}

/**
 * One page of the period's creators (keyset by user id, after `after`): one query reads each
 * creator's available balance as of `now`, their settings and whether the period already has a
 * live payout; then, in batches of PREPARE_CHUNK creators, each due creator gets prepareStatements
 * and each skipped one (skipReason) a payout_skips row, with one outbox statement per batch for the
 * prepared and one for the skipped (keyed by the row that exists, so a step run twice emails once).
 * A creator whose period already has a live payout is left alone. Safe to repeat: every write is
 * guarded by the unique indexes (payouts_user_period, payout_skips_user_period, ledger and outbox keys).
 */
export async function preparePage(
  deps: PayoutDeps,
  period: Period,
  now: number,
  after: string,
  size = PREPARE_PAGE,
): Promise<PreparePageResult> {
  let trips = 1;
  const { results: page } = await deps.d1
    .prepare(
      `with page as (select distinct user_id from ledger_entries where user_id > ?1 and account = 'creator' order by user_id limit ?2),
       net as (select user_id, sum(amount_cents) as cents from ledger_entries
         where account = 'creator' and user_id in (select user_id from page) and created_at <= ?3 group by user_id),
       held as (select user_id, sum(amount_cents) as cents from ledger_entries
         where account = 'creator' and user_id in (select user_id from page) and created_at <= ?3 and purchase_id in (
           select purchase_id from ledger_entries s where s.account = 'creator' and s.kind = 'sale'
             and s.user_id in (select user_id from page) and s.created_at > ?4 and s.created_at <= ?3)
         group by user_id)
       select page.user_id, coalesce(net.cents, 0) - max(0, coalesce(held.cents, 0)) as remainder,
         ps.method, ps.email, ps.stripe_account_id, ps.connect_payouts_enabled, ps.payout_default, ps.held_at,
         exists (select 1 from payouts p where p.user_id = page.user_id and p.kind = 'monthly' and p.period_year = ?5 and p.period_month = ?6 and p.status <> 'failed') as has_payout
       from page left join net on net.user_id = page.user_id left join held on held.user_id = page.user_id
         left join payout_settings ps on ps.user_id = page.user_id
       order by page.user_id`,
    )
    .bind(after, size, now, now - SALE_HOLD_MS, period.year, period.month)
    .all<PageRow>();
  const pay: { id: string; userId: string; dest: Destination }[] = [];
  const skip: { id: string; userId: string; reason: SkipReason; cents: number }[] = [];
  for (const r of page) {
    if (r.has_payout) continue;
    const dest = destinationOf({
      method: r.method as never,
      email: r.email,
      stripeAccountId: r.stripe_account_id,
      connectPayoutsEnabled: !!r.connect_payouts_enabled,
      payoutDefault: r.payout_default,
    });
    const reason = skipReason(r.remainder, dest, r.held_at != null);
    if (reason) skip.push({ id: newId(), userId: r.user_id, reason, cents: r.remainder });
    else if (dest && r.remainder >= MIN_PAYOUT_CENTS) pay.push({ id: newId(), userId: r.user_id, dest });
  }
  const prepared: string[] = [];
  const skipped: string[] = [];
  for (let i = 0; i < Math.max(pay.length, skip.length); i += PREPARE_CHUNK) {
    const payChunk = pay.slice(i, i + PREPARE_CHUNK);
    const skipChunk = skip.slice(i, i + PREPARE_CHUNK);
    const stmts = payChunk.flatMap((t) => prepareStatements(deps.d1, t.id, t.userId, t.dest, period, now));
    if (payChunk.length)
      stmts.push(
        payoutMailInsert(
          deps,
          "payout-prepared",
          { where: "p.id in (select value from json_each(?5))", binds: [JSON.stringify(payChunk.map((t) => t.id))] },
          now,
        ),
      );
    const firstSkip = stmts.length;
    for (const s of skipChunk) {
      stmts.push(
        deps.d1
          .prepare(
            "insert into payout_skips (id, user_id, period_year, period_month, reason, amount_cents, created_at) values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning id",
          )
          .bind(s.id, s.userId, period.year, period.month, s.reason, s.cents, now),
      );
    }
    if (skipChunk.length)
      stmts.push(
        skipMailInsert(
          deps,
          skipChunk.map((s) => s.id),
          now,
        ),
      );
    trips++;
    const results = await deps.d1.batch(stmts);
    payChunk.forEach((t, j) => {
      if (results[j * 2].results?.length) prepared.push(t.id);
    });
    skipChunk.forEach((s, j) => {
      if (results[firstSkip + j].results?.length) skipped.push(s.id);
    });
  }
  const mails = [...prepared.map((id) => `payout-prepared:${id}`), ...skipped.map((id) => `payout-skipped:${id}`)];
  await dispatch(deps.d1, deps.emails, mails, now);
  trips += Math.ceil(mails.length / 50) * 2;
  return {
    next: page.length === size ? page[page.length - 1].user_id : null,
    creators: page.length,
    prepared: prepared.length,
    skipped: skipped.length,
    d1RoundTrips: trips,
  };
}

/** The outbox statement for the skip emails of the skip rows `ids` (fresh ids: a row that already existed is not re-mailed). */
function skipMailInsert(deps: PayoutDeps, ids: string[], now: number): D1PreparedStatement {
  const months = Array.from(
    { length: 12 },
    (_, i) =>
      `when ${i + 1} then '${new Date(Date.UTC(2000, i, 1)).toLocaleString("en-US", { month: "long", timeZone: "UTC" })}'`,
  ).join(" ");
  return deps.d1
    .prepare(
      `insert into outbox_emails (id, job, created_at)
       select 'payout-skipped:' || s.id,
         json_object('dedupeKey', 'payout-skipped:' || s.id, 'to', u.email, 'template', 'payout-skipped', 'data', json_object(
           'reason', s.reason, 'amountCents', s.amount_cents,
           'period', (case s.period_month ${months} end) || ' ' || s.period_year, 'settingsUrl', ?1)),
         ?2
       from payout_skips s join users u on u.id = s.user_id
       where s.id in (select value from json_each(?3))
       on conflict (id) do nothing`,
    )
    .bind(new URL("/settings", deps.appUrl).toString(), now, JSON.stringify(ids));
}

/** One page of the period's monthly transfer payouts still to send (pending or processing), by id after `after`. */
export async function dueTransferPage(
  deps: Pick<PayoutDeps, "d1">,
  period: Period,
  after: string,
  size = SEND_START_PAGE,
): Promise<string[]> {
  const { results } = await deps.d1
    .prepare(
      `select id from payouts where period_year = ? and period_month = ? and kind = 'monthly' and status in ('pending', 'processing')
         and stripe_account_id is not null and id > ? order by id limit ?`,
    )
    .bind(period.year, period.month, after, size)
    .all<{ id: string }>();
  return results.map((r) => r.id);
}

/** Thrown by a send step when Stripe did not settle the transfer: the Workflow retries the step with backoff. */
export class TransferNotSettled extends Error {
  constructor(payoutId: string) {
    super(`payout ${payoutId}: Stripe did not settle the transfer; the step is retried`);
    this.name = "TransferNotSettled";
  }
}

/**
 * The send step of PayoutSendWorkflow: sendPayout, where "Stripe did not settle it" THROWS so the
 * Workflow retries the step (backoff in SEND_STEP_RETRIES); `attempt` (1, 2, ...) dates next_retry_at.
 */
export async function sendPayoutStep(
  deps: PayoutDeps,
  payoutId: string,
  attempt = 1,
  now = Date.now(),
): Promise<Exclude<SendOutcome, "retry_later">> {
  const outcome = await sendPayout(deps, payoutId, now, { retry: attempt - 1 });
  if (outcome === "retry_later") throw new TransferNotSettled(payoutId);
  return outcome;
}

/** What a run did (the admin's 'Process All Payouts' answer has the same shape). */
export type RunResult = Omit<ProcessPayoutsResult, "period" | "run"> & { period: Period };

/** The same database, counting what is asked of it (the run reports its D1 work). */
export function countingD1(d1: D1Database, c: { statements: number; batched: number; batches: number }): D1Database {
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") return (query: string) => (c.statements++, target.prepare(query));
      if (prop === "batch")
        return (stmts: D1PreparedStatement[]) => (c.batches++, (c.batched += stmts.length), target.batch(stmts));
      const v = Reflect.get(target, prop);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

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

/**
 * The run's steps for `period` in a row, in this invocation: every prepare page (only the closing
 * month), then each due transfer sent once (no retry: a transfer Stripe did not settle stays
 * processing with next_retry_at). The Worker runs a period through PayoutRunWorkflow, which does
 * the same with each page and each send a durable step; this is for tests and scripts, and with
 * `markPaid` also marks the listed manual payouts paid (markManualPaid).
 */
export async function runPayouts(
  given: PayoutDeps,
  period: Period,
  opts: { now?: number; actor?: Actor; markPaid?: string[] } = {},
): Promise<RunResult> {
  const now = opts.now ?? Date.now();
  const counts = { statements: 0, batched: 0, batches: 0 };
  const d1 = countingD1(given.d1, counts);
  const deps = { ...given, d1, db: createDb(d1) };
  assertPeriodEnded(period, now);
  let prepared = 0;
  if (preparesPeriod(period, now)) {
    for (let after: string | null = ""; after !== null; ) {
      const page: PreparePageResult = await preparePage(deps, period, now, after);
      prepared += page.prepared;
      after = page.next;
    }
  }
  let sent = 0;
  let failed = 0;
  let retryLater = 0;
  for (let after = ""; ; ) {
    const due = await dueTransferPage(deps, period, after);
    if (!due.length) break;
    const queue = [...due];
    await Promise.all(
      Array.from({ length: SEND_CONCURRENCY }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const outcome = await sendPayout(deps, next, now);
          if (outcome === "paid") sent++;
          else if (outcome === "failed") failed++;
          else if (outcome === "retry_later") retryLater++;
        }
      }),
    );
    after = due[due.length - 1];
  }
  const markedPaid = opts.markPaid?.length ? await markManualPaid(deps, period, opts.markPaid, now) : [];
  const markedProcessed = markedPaid.length;
  const result = {
    period,
    prepared,
    sent,
    failed,
    retryLater,
    markedProcessed,
    queued: 0,
    d1Statements: counts.statements,
    d1RoundTrips: counts.batches + counts.statements - counts.batched,
  };
  await deps.db.insert(adminAudit).values({
    actorUserId: opts.actor?.userId ?? null,
    actorEmail: opts.actor?.email ?? null,
    action: opts.actor ? "process-payouts" : "scheduled-payout-run",
    periodYear: period.year,
    periodMonth: period.month,
    detail: JSON.stringify({
      prepared,
      sent,
      failed,
      retryLater,
      markedProcessed,
      ...(opts.actor ? { markPaid: opts.markPaid ?? [], markedPaid } : {}),
    }),
    createdAt: new Date(now),
  });
  return result;
}
const SEND_CONCURRENCY = 6;
/**
 * The admin paid by hand the payouts `ids` (from the list they saw): those still pending, of
 * `period` and by a manual method become paid, each once, with their email in the same batch.
 * Returns the ids this call marked.
 */
export async function markManualPaid(deps: PayoutDeps, period: Period, ids: string[], now: number): Promise<string[]> {
  const listed = JSON.stringify([...new Set(ids)]);
  const rows = ids.length
    ? await deps.d1
        .prepare("select * from payouts where id in (select value from json_each(?))")
        .bind(listed)
        .all<Record<string, unknown>>()
    : { results: [] };
  const hooks = rows.results.map((r) =>
    payoutWebhook(
      deps,
      {
        id: String(r.id),
        userId: String(r.user_id),
        amountCents: Number(r.amount_cents),
        currency: String(r.currency),
        kind: r.kind as PayoutRow["kind"],
        method: String(r.method),
        periodYear: Number(r.period_year),
        periodMonth: Number(r.period_month),
        stripeTransferId: null,
      },
      "payout.paid",
      {
        sql: "exists (select 1 from payouts where id = ? and status = 'paid' and processed_at = ?)",
        binds: [r.id, now],
      },
      now,
    ),
  );
  const [marked] = await deps.d1.batch([
    deps.d1
      .prepare(
        `update payouts set status = 'paid', processed_at = ?1
         where id in (select value from json_each(?2)) and period_year = ?3 and period_month = ?4 and status = 'pending' and stripe_account_id is null
         returning id`,
      )
      .bind(now, listed, period.year, period.month),
    payoutMailInsert(
      deps,
      "payout-paid",
      {
        where:
          "p.id in (select value from json_each(?5)) and p.period_year = ?6 and p.period_month = ?7 and p.status = 'paid' and p.stripe_account_id is null and p.processed_at = ?8",
        binds: [listed, period.year, period.month, now],
      },
      now,
    ),
    ...hooks.flat(),
  ]);
  const done = (marked.results as { id: string }[]).map((r) => r.id);
  await dispatch(
    deps.d1,
    deps.emails,
    done.map((id) => `payout-paid:${id}`),
    now,
  );
  for (const r of rows.results.filter((r) => done.includes(String(r.id))))
    await dispatchWebhooks(deps.d1, deps.webhooks, String(r.user_id), [`payout.paid:${r.id}`], now);
  return done;
}

/**
 * payout.paid / payout.failed for the creator's webhook endpoints, in the batch that changes the
 * payout's status, only if `guard` (that change) holds; keyed `{type}:{payout id}`, so once each.
 */
export function payoutWebhook(
  deps: Pick<PayoutDeps, "d1">,
  p: Pick<
    PayoutRow,
    "id" | "userId" | "amountCents" | "currency" | "kind" | "method" | "periodYear" | "periodMonth" | "stripeTransferId"
  >,
  type: "payout.paid" | "payout.failed",
  guard: { sql: string; binds: unknown[] },
  now: number,
  failureReason?: string,
): D1PreparedStatement[] {
  const data = {
    payoutId: p.id,
    kind: p.kind,
    period: `${p.periodYear}-${String(p.periodMonth).padStart(2, "0")}`,
    amountCents: p.amountCents,
    currency: p.currency,
    method: p.method,
    stripeTransferId: p.stripeTransferId ?? null,
    ...(failureReason ? { failureReason } : {}),
  };
  return webhookStatements(deps.d1, p.userId, type, data, `${type}:${p.id}`, now, guard);
}

// ---- emails ----

const METHOD_NAMES: Record<string, string> = {
  paypal: "PayPal",
  wise: "Wise",
  bank: "bank transfer",
  zelle: "Zelle",
  venmo: "Venmo",
  cashapp: "Cash App",
};

/**
 * The outbox statement for the payout emails of `template`: one row per payout matching `where`
 * (SQL over `payouts p`, with its own binds numbered from ?5), built from the payout row as the
 * same batch leaves it, keyed `{template}:{payout id}`. It goes into the batch that makes the
 * change, so an email exists exactly when the change committed (email-outbox.ts).
 */
export function payoutMailInsert(
  deps: PayoutDeps,
  template: "payout-prepared" | "payout-paid" | "payout-failed",
  match: { where: string; binds: unknown[] },
  now: number,
  reason = "",
): D1PreparedStatement {
  const monthName = (m: number) =>
    new Date(Date.UTC(2000, m - 1, 1)).toLocaleString("en-US", { month: "long", timeZone: "UTC" });
  const months = Array.from({ length: 12 }, (_, i) => `when ${i + 1} then '${monthName(i + 1)}'`).join(" ");
  const methods = Object.entries(METHOD_NAMES)
    .map(([k, v]) => `when '${k}' then '${v}'`)
    .join(" ");
  const extra =
    template === "payout-prepared"
      ? ", 'byTransfer', json(case when p.stripe_account_id is null then 'false' else 'true' end)"
      : template === "payout-failed"
        ? ", 'reason', ?4"
        : "";
  return deps.d1
    .prepare(
      `insert into outbox_emails (id, job, created_at)
       select ?1 || ':' || p.id,
         json_object('dedupeKey', ?1 || ':' || p.id, 'to', u.email, 'template', ?1, 'data', json_object(
           'payoutId', p.id, 'amountCents', p.amount_cents,
           'period', (case p.period_month ${months} end) || ' ' || p.period_year,
           'method', (case p.method ${methods} else p.method end),
           'settingsUrl', ?2, 'withdrawal', json(case when p.kind = 'withdrawal' then 'true' else 'false' end)${extra})),
         ?3
       from payouts p join users u on u.id = p.user_id
       where ${match.where}
       on conflict (id) do nothing`,
    )
    .bind(template, new URL("/settings", deps.appUrl).toString(), now, reason, ...match.binds);
}
