// The transfer rail: a payout to a connected account goes out by one Stripe Transfer. pending ->
// processing (conditional), transfers.create keyed by the payout id (then `{id}:{attempt}` after an
// error Stripe keeps under a key), then paid with its email and webhook in one batch. Only a
// definitive answer about the destination fails it (./failure.ts); anything else leaves it processing
// and its send step throws, so the PayoutSendWorkflow retries it. Like the manual rail, it marks a
// payout paid with the same notices. Behaviour: docs/money.md ("The monthly payout run").
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { payouts } from "../../db/schema";
import { dispatch } from "../mail/email-outbox";
import { dispatchWebhooks } from "../webhooks/delivery";
import { ownerGaveUpAt, retryCodeOf, SEND_STEP_RETRY_LIMIT, STUCK_AFTER_MS } from "./delay";
import type { PayoutDeps, PayoutRow } from "./deps";
import { bookBack, failPayout } from "./failure";
import { payoutMailInsert, payoutWebhook } from "./notices";
import { payoutTransferGroup, periodLabel, type Period } from "./period";

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
function destinationFailure(err: unknown): { code: string; creatorReason: string; detail: string } | null {
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
const retryDelaySeconds = (n: number) => Math.min(60 * 2 ** Math.max(0, n - 1), 512 * 60);

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
  opts: { retry?: number; last?: boolean } = {},
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
  const retryLater = async (err: unknown, code = retryCodeOf(err)) => {
    console.warn("transfer not sent, will retry", p.id, err);
    // When it is tried again: the Workflow's next retry, or (after its last) the daily sweep's re-drive.
    const nextTry = opts.last ? ownerGaveUpAt(now) : now + retryDelaySeconds((opts.retry ?? 0) + 1) * 1000;
    // The key moves on only from the attempt that was answered (a concurrent sender's repeat is a no-op).
    const bump = keptUnderKey(err) ? 1 : 0;
    await deps.d1
      .prepare(
        "update payouts set send_attempt = send_attempt + (case when send_attempt = ?1 then ?2 else 0 end), last_error = ?3, next_retry_at = ?4, retry_code = ?6 where id = ?5 and status = 'processing'",
      )
      .bind(p.sendAttempt, bump, errorText(err), nextTry, p.id, code)
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
      return retryLater(
        new Error("the creator's payouts are held by the admin; the transfer waits for their release"),
        "held",
      );
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

/** Transfer payouts one step hands to their send instances (createBatch takes at most 100). */
const SEND_START_PAGE = 100;

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
  const outcome = await sendPayout(deps, payoutId, now, { retry: attempt - 1, last: attempt > SEND_STEP_RETRY_LIMIT });
  if (outcome === "retry_later") throw new TransferNotSettled(payoutId);
  return outcome;
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
