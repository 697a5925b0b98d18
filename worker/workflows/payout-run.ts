// The monthly payout run as a Cloudflare Workflow (PayoutRunWorkflow): one live instance per period,
// id `payouts-YYYY-MM`, then `payouts-YYYY-MM-r{n}` for the n-th run started by a later press. Its
// `now` is a parameter, so every step and retry computes the same "as of" balances.
// Steps, each a plain function in services/payouts/ (prepare.ts, transfer-rail.ts), each safe to repeat:
// `prepare {n}` writes one keyset page of creators' payouts and skips; `start sends {n}` hands one page
// of due transfers to their own PayoutSendWorkflow instance. Emails are written in each change's batch.
// Behaviour: docs/money.md ("The monthly payout run").
import type { WorkflowEvent, WorkflowStep } from "cloudflare:workers";
import type { PayoutRunView, ProcessPayoutsResult } from "../../shared/admin";
import { createDb } from "../db/client";
import { adminAudit } from "../db/schema";
import type { Bindings } from "../lib/env";
import { payoutDelay } from "../services/payouts/delay";
import { countingD1, type Actor } from "../services/payouts/deps";
import { markManualPaid } from "../services/payouts/manual-rail";
import { assertPeriodEnded, preparesPeriod, transferGroup, type Period } from "../services/payouts/period";
import { preparePage } from "../services/payouts/prepare";
import { dueTransferPage } from "../services/payouts/transfer-rail";
import { payoutDeps } from "../deps";
import { alreadyExists, startPayoutSends } from "./payout-send";

export type PayoutRunParams = { year: number; month: number; now: number; prepare: boolean };
export type PayoutRunOutput = {
  pages: number;
  creators: number;
  prepared: number;
  skipped: number;
  sendsStarted: number;
  d1RoundTrips: number;
};

const PAGE_STEP = {
  retries: { limit: 5, delay: "10 seconds", backoff: "exponential" },
  timeout: "10 minutes",
} as const;

/** The instance id of a period's `n`-th run (1, 2, ...): `payouts-YYYY-MM` (the period's transfer_group too), then `payouts-YYYY-MM-r{n}`. */
const runInstanceId = (p: Period, n = 1) => (n === 1 ? transferGroup(p) : `${transferGroup(p)}-r${n}`);

/** Runs looked for per period: far more presses than a month needs; past it the last run is joined. */
const MAX_RUNS = 100;

/**
 * The period's latest run: the highest `n` whose instance exists (runs are numbered without gaps),
 * or null when none does (never run, or its record is past Workflows' retention).
 */
async function latestRun(
  env: Pick<Bindings, "PAYOUT_RUN">,
  period: Period,
): Promise<{ n: number; instance: WorkflowInstance } | null> {
  let last: { n: number; instance: WorkflowInstance } | null = null;
  for (let n = 1; n <= MAX_RUNS; n++) {
    const instance = await env.PAYOUT_RUN.get(runInstanceId(period, n)).catch(() => null);
    if (!instance) break;
    last = { n, instance };
  }
  return last;
}

/** PayoutRunWorkflow's run (worker/workflows/entrypoints.ts loads this module when an instance runs). */
export async function runPayoutRun(
  env: Bindings,
  event: WorkflowEvent<PayoutRunParams>,
  step: WorkflowStep,
): Promise<PayoutRunOutput> {
  const { year, month, now, prepare } = event.payload;
  const period = { year, month };
  const out: PayoutRunOutput = { pages: 0, creators: 0, prepared: 0, skipped: 0, sendsStarted: 0, d1RoundTrips: 0 };
  for (let after: string | null = prepare ? "" : null; after !== null; out.pages++) {
    const from: string = after;
    const page = await step.do(`prepare ${out.pages}`, PAGE_STEP, async () =>
      preparePage(payoutDeps(env), period, now, from),
    );
    out.creators += page.creators;
    out.prepared += page.prepared;
    out.skipped += page.skipped;
    out.d1RoundTrips += page.d1RoundTrips;
    after = page.next;
  }
  for (let n = 0, after = ""; ; n++) {
    const from = after;
    const started = await step.do(`start sends ${n}`, PAGE_STEP, async () => {
      const ids = await dueTransferPage({ d1: env.DB }, period, from);
      await startPayoutSends(env.PAYOUT_SEND, ids);
      return { count: ids.length, last: ids[ids.length - 1] ?? null };
    });
    out.d1RoundTrips++;
    out.sendsStarted += started.count;
    if (!started.last) break;
    after = started.last;
  }
  console.log(`payout run ${event.instanceId} complete ${JSON.stringify(out)}`);
  return out;
}

/** Instance states after which a press of 'Process All Payouts' runs the period again. */
const FINISHED = ["complete", "errored", "terminated"];

/**
 * Starts the run of `period` as of `now`, or joins the one that runs (a create refused with
 * "already exists" is a join too: two creates can race past the look-up). With `rerunFinished`
 * (the admin's press), once the latest run finished the next one starts, as of this `now`: it
 * prepares whoever became payable since (a creator who set up a payout method, a payout that failed
 * and whose money came back) and re-sends what is due; everything done before is a no-op in D1, so
 * a press when nothing is owed changes nothing. Returns the instance id and whether this call started it.
 */
export async function startPayoutRun(
  env: Pick<Bindings, "PAYOUT_RUN">,
  period: Period,
  now: number,
  prepare: boolean,
  opts: { rerunFinished?: boolean } = {},
): Promise<{ id: string; started: boolean }> {
  // Looked up first: the local engine (wrangler dev, tests) does not refuse a second create of an id.
  const last = await latestRun(env, period);
  if (last) {
    const id = runInstanceId(period, last.n);
    if (!opts.rerunFinished || last.n >= MAX_RUNS || !FINISHED.includes((await last.instance.status()).status))
      return { id, started: false };
  }
  const id = runInstanceId(period, (last?.n ?? 0) + 1);
  try {
    await env.PAYOUT_RUN.create({ id, params: { year: period.year, month: period.month, now, prepare } });
    return { id, started: true };
  } catch (err) {
    if (alreadyExists(err)) return { id, started: false };
    throw err;
  }
}

const RUN_STATUSES = [
  "queued",
  "running",
  "paused",
  "waiting",
  "waitingForPause",
  "errored",
  "terminated",
  "complete",
  "unknown",
] as const;
/** Rows of `attention` at most (the ones with the most money first). */
const ATTENTION_ROWS = 500;

/**
 * GET /api/admin/payout-run: the period's run, live. The counts are the period's monthly payout
 * rows as D1 has them now; the run's status is its latest Workflow instance's ("none" when it was
 * never created). `attention` lists the retrying and failed payouts with the admin's (technical) reason.
 */
export async function payoutRunView(env: Pick<Bindings, "DB" | "PAYOUT_RUN">, period: Period): Promise<PayoutRunView> {
  const [counts, attention, run] = await Promise.all([
    env.DB.prepare(
      `select count(*) as prepared,
         coalesce(sum(status = 'processing' and next_retry_at is null), 0) as sent,
         coalesce(sum(status = 'paid'), 0) as paid,
         coalesce(sum(status = 'failed'), 0) as failed,
         coalesce(sum(status = 'processing' and next_retry_at is not null), 0) as retrying,
         coalesce(sum(status = 'pending' and stripe_account_id is null), 0) as pending_manual,
         min(case when status = 'processing' then next_retry_at end) as next_retry_at
       from payouts where period_year = ? and period_month = ? and kind = 'monthly'`,
    )
      .bind(period.year, period.month)
      .first<{
        prepared: number;
        sent: number;
        paid: number;
        failed: number;
        retrying: number;
        pending_manual: number;
        next_retry_at: number | null;
      }>(),
    env.DB.prepare(
      `select p.id, p.user_id, u.first_name, u.last_name, u.email, p.amount_cents, p.method, p.status, p.last_error, p.failure_code, p.failure_detail, p.next_retry_at, p.retry_code, p.stripe_account_id
       from payouts p join users u on u.id = p.user_id
       where p.period_year = ? and p.period_month = ? and p.kind = 'monthly'
         and (p.status = 'failed' or (p.status = 'processing' and p.next_retry_at is not null))
       order by p.amount_cents desc, p.id limit ?`,
    )
      .bind(period.year, period.month, ATTENTION_ROWS)
      .all<{
        id: string;
        user_id: string;
        first_name: string | null;
        last_name: string | null;
        email: string;
        amount_cents: number;
        method: string;
        status: "pending" | "processing" | "paid" | "failed";
        last_error: string | null;
        failure_code: string | null;
        failure_detail: string | null;
        next_retry_at: number | null;
        retry_code: string | null;
        stripe_account_id: string | null;
      }>(),
    runStatus(env, period),
  ]);
  const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString());
  return {
    period,
    run,
    prepared: counts?.prepared ?? 0,
    sent: counts?.sent ?? 0,
    paid: counts?.paid ?? 0,
    failed: counts?.failed ?? 0,
    retrying: counts?.retrying ?? 0,
    pendingManual: counts?.pending_manual ?? 0,
    nextRetryAt: iso(counts?.next_retry_at ?? null),
    attention: attention.results.map((r) => ({
      payoutId: r.id,
      userId: r.user_id,
      name: [r.first_name, r.last_name].filter(Boolean).join(" "),
      email: r.email,
      amount: r.amount_cents / 100,
      method: r.method,
      status: r.status === "failed" ? "Failed" : "Retrying",
      reason:
        r.status === "failed"
          ? (r.failure_code === "marked_failed_by_admin" ? r.failure_detail : null) ||
            [r.failure_code, r.failure_detail].filter(Boolean).join(": ") ||
            (r.last_error ?? "")
          : (r.last_error ?? ""),
      // The true next try (after the Workflow's last retry, the daily sweep's), as the creator reads it.
      nextRetryAt:
        r.status === "failed"
          ? null
          : (payoutDelay({
              status: r.status,
              stripeAccountId: r.stripe_account_id,
              nextRetryAt: r.next_retry_at === null ? null : new Date(r.next_retry_at),
              retryCode: r.retry_code,
            })?.nextTryAt ?? iso(r.next_retry_at)),
    })),
  };
}

/** The period's latest run and its status ("none" under the first run's id when there is none). */
async function runStatus(env: Pick<Bindings, "PAYOUT_RUN">, period: Period): Promise<PayoutRunView["run"]> {
  const last = await latestRun(env, period);
  if (!last) return { id: runInstanceId(period), status: "none", error: null };
  const id = runInstanceId(period, last.n);
  const s = await last.instance.status();
  const status = (RUN_STATUSES as readonly string[]).includes(s.status)
    ? (s.status as PayoutRunView["run"]["status"])
    : s.status === "rollingBack"
      ? "running"
      : "unknown";
  return { id, status, error: s.error ? `${s.error.name}: ${s.error.message}` : null };
}

/**
 * 'Process All Payouts' for `period`: refused (400) for a period that has not ended; starts the
 * period's run, joins it while it runs, or starts its next run as of this press once it finished
 * (only the closing month is prepared); marks paid the listed manual
 * payouts still pending (markManualPaid: never one prepared after the admin's list was read); one
 * audit row. Safe to press twice: the run is joined, the listed payouts are already paid.
 */
export async function processPayouts(
  env: Bindings,
  period: Period,
  actor: Actor,
  markPaid: string[],
  now = Date.now(),
): Promise<ProcessPayoutsResult> {
  assertPeriodEnded(period, now);
  const counter = { statements: 0, batched: 0, batches: 0 };
  const d1 = countingD1(env.DB, counter);
  const deps = { ...payoutDeps(env), d1, db: createDb(d1) };
  const run = await startPayoutRun(env, period, now, preparesPeriod(period, now), { rerunFinished: true });
  const markedPaid = markPaid.length ? await markManualPaid(deps, period, markPaid, now) : [];
  const c = await d1
    .prepare(
      `select count(*) as prepared,
         coalesce(sum(status = 'paid' and stripe_account_id is not null), 0) as sent,
         coalesce(sum(status = 'failed'), 0) as failed,
         coalesce(sum(status = 'processing' and next_retry_at is not null), 0) as retrying,
         coalesce(sum(status in ('pending', 'processing') and next_retry_at is null and stripe_account_id is not null), 0) as queued
       from payouts where period_year = ? and period_month = ? and kind = 'monthly'`,
    )
    .bind(period.year, period.month)
    .first<{ prepared: number; sent: number; failed: number; retrying: number; queued: number }>();
  await deps.db.insert(adminAudit).values({
    actorUserId: actor.userId,
    actorEmail: actor.email,
    action: "process-payouts",
    periodYear: period.year,
    periodMonth: period.month,
    detail: JSON.stringify({ run, markPaid, markedPaid }),
    createdAt: new Date(now),
  });
  return {
    period,
    prepared: c?.prepared ?? 0,
    sent: c?.sent ?? 0,
    failed: c?.failed ?? 0,
    retryLater: c?.retrying ?? 0,
    markedProcessed: markedPaid.length,
    queued: c?.queued ?? 0,
    d1Statements: counter.statements,
    d1RoundTrips: counter.batches + counter.statements - counter.batched,
    run,
  };
}
