// The payout run as Workflows: the cron's one instance per period, a step run twice, an
// outage then recovery, two sends of one payout at once, skip records and their emails, and the
// admin's live view. Workflows run in workerd (the vitest plugin's local engine); retry delays are
// switched off through the introspection API so an outage resolves at once.
import { createScheduledController, introspectWorkflow, introspectWorkflowInstance } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { PayoutRunView, ProcessPayoutsResult } from "../../../shared/admin";
import { dailySweep, handleScheduled, MONTHLY_PAYOUT_CRON } from "../../cron";
import { closingPeriod, type Period } from "../../services/payouts/period";
import { preparePage } from "../../services/payouts/prepare";
import { sendPayout, sendPayoutStep, TransferNotSettled } from "../../services/payouts/transfer-rail";
import { payoutDeps } from "../../deps";
import { startPayoutSends } from "../../workflows/payout-send";
import { call, connectedAccount, env, outbox, postJson, row, rows, signIn, standin } from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;
const deps = () => payoutDeps(env as never);
const runAt = (year: number, month: number) => Date.UTC(year, month - 1, 1, 2);
const runId = (p: Period) => `payouts-${p.year}-${String(p.month).padStart(2, "0")}`;

let seq = 0;
async function creator(kind: "bank" | "paypal" | "none", opts: { held?: boolean } = {}) {
  const id = `w${++seq}${Math.random().toString(36).slice(2, 8)}`;
  const email = `${id}@example.com`;
  const acct = kind === "bank" ? await connectedAccount() : "";
  await env.DB.prepare("insert into users (id, email) values (?, ?)").bind(id, email).run();
  if (kind === "bank")
    await env.DB.prepare(
      "insert into payout_settings (user_id, method, email, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, 'bank', ?, ?, 1, 1)",
    )
      .bind(id, email, acct)
      .run();
  if (kind === "paypal")
    await env.DB.prepare("insert into payout_settings (user_id, method, email) values (?, 'paypal', ?)")
      .bind(id, `pp-${email}`)
      .run();
  if (opts.held)
    await env.DB.prepare("update payout_settings set held_at = ?, held_reason = 'review' where user_id = ?")
      .bind(Date.now(), id)
      .run();
  return { id, email, acct };
}

/** A sale booked at `at`: the creator's 80% share of `cents`. */
async function sale(userId: string, cents: number, at: number) {
  const pid = `p${++seq}${Math.random().toString(36).slice(2, 8)}`;
  await env.DB.prepare(
    "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'creator', ?, 'sale', ?, ?, ?)",
  )
    .bind(`sale:${pid}:creator`, userId, cents - Math.round(cents * 0.2), pid, at)
    .run();
}

async function transfersTo(acct: string) {
  const { body } = await standin<{ data: { id: string; amount: number; metadata: Record<string, string> }[] }>(
    "GET",
    "/v1/transfers",
    { destination: acct, limit: "100" },
  );
  return body.data;
}
const payoutsOf = (userId: string) =>
  rows<{
    id: string;
    status: string;
    amount_cents: number;
    stripe_transfer_id: string | null;
    last_error: string | null;
  }>("select * from payouts where user_id = ? order by created_at", userId);
const skipsOf = (userId: string) =>
  rows<{ reason: string; amount_cents: number; period_month: number }>(
    "select reason, amount_cents, period_month from payout_skips where user_id = ?",
    userId,
  );
const mailsTo = async (email: string) => (await outbox()).filter((m) => m.to === email);
const until = <T>(fn: () => Promise<T | undefined | false>) => vi.waitUntil(fn, { timeout: 15_000, interval: 100 });

/** Runs `fn` with every send instance created meanwhile retried without delay; waits for each to end. */
async function withSends<T>(fn: () => Promise<T>): Promise<T> {
  const sends = await introspectWorkflow(env.PAYOUT_SEND);
  try {
    await sends.modifyAll(async (m) => m.disableRetryDelays());
    const out = await fn();
    for (const s of await sends.get()) await s.waitForStatus("complete");
    return out;
  } finally {
    await sends.dispose();
  }
}

describe("the monthly run as a Workflow", () => {
  it("the cron creates one instance per period; a second trigger joins it; transfers paid once, manual waits, skipped creators get one skip row and one email each", async () => {
    const T = runAt(2025, 3);
    const P = closingPeriod(T);
    const bank = await creator("bank");
    const manual = await creator("paypal");
    const small = await creator("paypal");
    const unset = await creator("none");
    const held = await creator("bank", { held: true });
    await sale(bank.id, 5000, T - 10 * DAY);
    await sale(manual.id, 5000, T - 10 * DAY);
    await sale(small.id, 2000, T - 10 * DAY); // $16
    await sale(unset.id, 10000, T - 10 * DAY); // $80, no payout method
    await sale(held.id, 5000, T - 10 * DAY); // $40, on hold

    const run = await introspectWorkflowInstance(env.PAYOUT_RUN, runId(P));
    try {
      await withSends(async () => {
        const cron = () =>
          handleScheduled(createScheduledController({ cron: MONTHLY_PAYOUT_CRON, scheduledTime: T }), env as never);
        await cron();
        await cron();
        await run.waitForStatus("complete");
        await cron();
      });
      expect(await run.getOutput()).toMatchObject({ prepared: 2, skipped: 3, sendsStarted: 1 });
    } finally {
      await run.dispose();
    }
    const audit = await rows<{ detail: string }>(
      "select detail from admin_audit where action = 'scheduled-payout-run' and period_year = ? and period_month = ?",
      P.year,
      P.month,
    );
    expect(audit.map((a) => JSON.parse(a.detail).started).sort()).toEqual([false, false, true]);

    expect(await payoutsOf(bank.id)).toMatchObject([{ status: "paid", amount_cents: 4000 }]);
    expect(await transfersTo(bank.acct)).toHaveLength(1);
    expect(await payoutsOf(manual.id)).toMatchObject([{ status: "pending", amount_cents: 4000 }]);
    for (const c of [small, unset, held]) expect(await payoutsOf(c.id)).toEqual([]);
    expect(await transfersTo(held.acct)).toEqual([]);
    expect(await skipsOf(small.id)).toEqual([{ reason: "below_minimum", amount_cents: 1600, period_month: 2 }]);
    expect(await skipsOf(unset.id)).toEqual([{ reason: "not_set_up", amount_cents: 8000, period_month: 2 }]);
    expect(await skipsOf(held.id)).toEqual([{ reason: "held", amount_cents: 4000, period_month: 2 }]);
    expect(await skipsOf(bank.id)).toEqual([]);

    const [smallMail] = await until(async () => {
      const m = await mailsTo(small.email);
      return m.length ? m : undefined;
    });
    expect(smallMail.subject).toBe("No payout for February 2025: $16.00 carries over");
    expect(smallMail.text).toContain("below the $25.00 minimum");
    expect(smallMail.text).toContain("carries over to the next monthly payout");
    const [unsetMail] = await until(async () => {
      const m = await mailsTo(unset.email);
      return m.length ? m : undefined;
    });
    expect(unsetMail.text).toContain("no payout method is set up");
    const [heldMail] = await until(async () => {
      const m = await mailsTo(held.email);
      return m.length ? m : undefined;
    });
    expect(heldMail.text).toContain("on hold");
    // One email each, also after the second trigger.
    await new Promise((r) => setTimeout(r, 500));
    for (const c of [small, unset, held]) expect(await mailsTo(c.email)).toHaveLength(1);
  });

  it("a crash after a prepare step wrote its page: the step runs again and writes nothing twice; the send pays once", async () => {
    const T = runAt(2025, 4);
    const P = closingPeriod(T);
    const bank = await creator("bank");
    const small = await creator("paypal");
    await sale(bank.id, 5000, T - 10 * DAY);
    await sale(small.id, 1000, T - 10 * DAY);
    // The first attempt of `prepare 0` committed its batches, then the invocation died before
    // Workflows stored the step's result...
    const first = await preparePage(deps(), P, T, "");
    expect(first.prepared).toBeGreaterThanOrEqual(1);
    // ...so the step runs again (by hand, then as the instance's own step).
    expect(await preparePage(deps(), P, T, "")).toMatchObject({ prepared: 0, skipped: 0 });
    const run = await introspectWorkflowInstance(env.PAYOUT_RUN, runId(P));
    try {
      await withSends(async () => {
        await handleScheduled(createScheduledController({ cron: MONTHLY_PAYOUT_CRON, scheduledTime: T }), env as never);
        await run.waitForStatus("complete");
      });
      expect(await run.getOutput()).toMatchObject({ prepared: 0, sendsStarted: 1 });
    } finally {
      await run.dispose();
    }
    expect(await payoutsOf(bank.id)).toMatchObject([{ status: "paid", amount_cents: 4000 }]);
    expect(await transfersTo(bank.acct)).toHaveLength(1);
    expect(await rows("select 1 from ledger_entries where user_id = ? and kind = 'payout'", bank.id)).toHaveLength(1);
    expect(await skipsOf(small.id)).toEqual([{ reason: "below_minimum", amount_cents: 800, period_month: 3 }]);
    await until(async () => (await mailsTo(small.email)).length > 0);
    await new Promise((r) => setTimeout(r, 500));
    expect(await mailsTo(small.email)).toHaveLength(1);
    expect(
      await row(
        "select count(*) as n from outbox_emails where id like 'payout-prepared:%' and job like ?",
        `%${bank.email}%`,
      ),
    ).toEqual({ n: 1 });
  });

  it("an outage (Stripe answers 500) then recovery: the send step is retried and ends paid with one transfer", async () => {
    const T = runAt(2025, 5);
    const P = closingPeriod(T);
    const bank = await creator("bank");
    await sale(bank.id, 5000, T - 10 * DAY);
    expect((await preparePage(deps(), P, T, "")).prepared).toBeGreaterThanOrEqual(1);
    const [p] = await payoutsOf(bank.id);
    // Stripe fails the first attempt with a 500 (an error it keeps under the Idempotency-Key).
    await standin("POST", "/_standin/transfers/fail_next", { destination: bank.acct, code: "api_error" });
    const sends = await introspectWorkflowInstance(env.PAYOUT_SEND, `payout-${p.id}`);
    try {
      await sends.modify(async (m) => m.disableRetryDelays());
      await startPayoutSends(env.PAYOUT_SEND, [p.id]);
      await until(
        async () => (await row<{ status: string }>("select status from payouts where id = ?", p.id))?.status === "paid",
      );
      await sends.waitForStatus("complete");
      expect(await sends.getOutput()).toEqual({ payoutId: p.id, outcome: "paid" });
    } finally {
      await sends.dispose();
    }
    expect(await payoutsOf(bank.id)).toMatchObject([{ status: "paid", last_error: expect.stringContaining("500") }]);
    expect(await transfersTo(bank.acct)).toHaveLength(1);
  });

  it("the send step throws while Stripe has not settled the transfer (so Workflows retries it), and returns what a definitive answer decided", async () => {
    const T = runAt(2025, 6);
    const P = closingPeriod(T);
    const bank = await creator("bank");
    await sale(bank.id, 5000, T - 10 * DAY);
    await preparePage(deps(), P, T, "");
    const [p] = await payoutsOf(bank.id);
    await standin("POST", "/_standin/transfers/fail_next", { destination: bank.acct, code: "rate_limit" });
    await expect(sendPayoutStep(deps(), p.id, 1, T)).rejects.toBeInstanceOf(TransferNotSettled);
    expect(await row("select status, next_retry_at from payouts where id = ?", p.id)).toEqual({
      status: "processing",
      next_retry_at: T + 60_000,
    });
    await standin("POST", "/_standin/transfers/fail_next", { destination: bank.acct, code: "rate_limit" });
    await expect(sendPayoutStep(deps(), p.id, 3, T)).rejects.toBeInstanceOf(TransferNotSettled);
    expect(await row("select next_retry_at from payouts where id = ?", p.id)).toEqual({
      next_retry_at: T + 4 * 60_000,
    });
    expect(await sendPayoutStep(deps(), p.id, 4, T)).toBe("paid");
    expect(await sendPayoutStep(deps(), p.id, 5, T)).toBe("done");
    expect(await transfersTo(bank.acct)).toHaveLength(1);
  });

  it("two sends of one payout at once (two instances), also after a transfer whose answer was lost: one transfer, one paid", async () => {
    const T = runAt(2025, 7);
    const P = closingPeriod(T);
    const a = await creator("bank");
    const b = await creator("bank");
    await sale(a.id, 5000, T - 10 * DAY);
    await sale(b.id, 6000, T - 10 * DAY);
    await preparePage(deps(), P, T, "");
    const [pa] = await payoutsOf(a.id);
    const [pb] = await payoutsOf(b.id);
    // b's transfer was made at Stripe and the answer lost: the payout is processing with no transfer id.
    const real = deps().stripe;
    const crashing = {
      transfers: {
        list: real.transfers.list.bind(real.transfers),
        create: async (...args: Parameters<typeof real.transfers.create>) => {
          await real.transfers.create(...args);
          throw Object.assign(new Error("Connection closed"), { type: "StripeConnectionError" });
        },
      },
    };
    expect(await sendPayout({ ...deps(), stripe: crashing as never }, pb.id, T)).toBe("retry_later");
    await withSends(() =>
      Promise.all([
        startPayoutSends(env.PAYOUT_SEND, [pa.id, pb.id]),
        startPayoutSends(env.PAYOUT_SEND, [pa.id, pb.id], "again"),
      ]),
    );
    expect(await payoutsOf(a.id)).toMatchObject([{ status: "paid" }]);
    expect(await payoutsOf(b.id)).toMatchObject([{ status: "paid" }]);
    expect(await transfersTo(a.acct)).toHaveLength(1);
    expect(await transfersTo(b.acct)).toHaveLength(1);
    expect(
      await rows("select 1 from ledger_entries where payout_id in (?, ?) and kind = 'payout_reversal'", pa.id, pb.id),
    ).toEqual([]);
  });

  it("nothing left without an owner: the daily sweep starts a new send for a transfer payout with no retry due for a day, and it is paid once", async () => {
    const now = Date.now();
    const bank = await creator("bank");
    await sale(bank.id, 5000, now - 60 * DAY);
    const P = closingPeriod(now - 40 * DAY);
    await preparePage(deps(), P, now - 40 * DAY, "");
    const [p] = await payoutsOf(bank.id);
    // Its send instance gave up after its retries: processing, the last retry due over a day ago.
    await env.DB.prepare(
      "update payouts set status = 'processing', next_retry_at = ?, last_error = 'api_error' where id = ?",
    )
      .bind(now - 25 * 60 * 60 * 1000, p.id)
      .run();
    await withSends(() =>
      handleScheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: now }), env as never),
    );
    await until(
      async () => (await row<{ status: string }>("select status from payouts where id = ?", p.id))?.status === "paid",
    );
    expect(await transfersTo(bank.acct)).toHaveLength(1);
  });
});

describe("the admin's side of the run", () => {
  it("Process All Payouts starts the period's run, or its next run once finished (a creator set up since is prepared, nothing twice); GET /api/admin/payout-run shows counts, the next retry and the payouts that need a look", async () => {
    const admin = await signIn("admin@apewall.test");
    const now = Date.now();
    const P = closingPeriod(now);
    const q = `/api/admin/payout-run?month=${P.month}&year=${P.year}`;
    const view = async () => (await call(q, { cookie: admin })).json<PayoutRunView>();
    expect(await view()).toMatchObject({ run: { id: runId(P), status: "none", error: null }, prepared: 0 });

    const bank = await creator("bank");
    const manual = await creator("paypal");
    await sale(bank.id, 5000, now - 10 * DAY);
    await sale(manual.id, 5000, now - 10 * DAY);
    const run = await introspectWorkflowInstance(env.PAYOUT_RUN, runId(P));
    // The second press finds the first run finished and starts the next, as of its own time.
    const rerun = await introspectWorkflowInstance(env.PAYOUT_RUN, `${runId(P)}-r2`);
    // (The introspectors are kept to the end: disposing one removes its instance from the local engine.)
    try {
      let first!: ProcessPayoutsResult;
      await withSends(async () => {
        const res = await postJson("/api/admin/process-payouts", { month: P.month, year: P.year }, admin);
        expect(res.status).toBe(200);
        first = await res.json<ProcessPayoutsResult>();
        await run.waitForStatus("complete");
      });
      expect(first).toMatchObject({ run: { id: runId(P), started: true }, markedProcessed: 0 });
      const [mp] = await payoutsOf(manual.id);
      // A creator sets up PayPal after the run finished: the next press runs it again and prepares them
      // (not marked paid: the admin's list did not have it); nothing done before is done twice.
      const late = await creator("none");
      await sale(late.id, 5000, now - 10 * DAY);
      await env.DB.prepare("insert into payout_settings (user_id, method, email) values (?, 'paypal', ?)")
        .bind(late.id, `pp-${late.email}`)
        .run();
      await withSends(async () => {
        const second = await (
          await postJson("/api/admin/process-payouts", { month: P.month, year: P.year, markPaid: [mp.id] }, admin)
        ).json<ProcessPayoutsResult>();
        expect(second).toMatchObject({ run: { id: `${runId(P)}-r2`, started: true }, markedProcessed: 1 });
        await until(async () => (await payoutsOf(late.id)).length === 1);
        await rerun.waitForStatus("complete");
      });
      expect(await payoutsOf(late.id)).toMatchObject([{ status: "pending", amount_cents: 4000 }]);
      expect(await payoutsOf(manual.id)).toMatchObject([{ status: "paid" }]);
      expect(await payoutsOf(bank.id)).toMatchObject([{ status: "paid" }]);
      expect(await transfersTo(bank.acct)).toHaveLength(1);

      // One retrying and one failed payout of the period, as the send leaves them.
      const retrying = await creator("bank");
      const failed = await creator("bank");
      const retryAt = now + 5 * 60_000;
      await env.DB.prepare(
        "insert into payouts (id, user_id, amount_cents, method, stripe_account_id, status, period_year, period_month, last_error, next_retry_at) values (?, ?, 3000, 'bank', ?, 'processing', ?, ?, 'StripeAPIError (500): An unknown error occurred', ?)",
      )
        .bind(`r-${retrying.id}`, retrying.id, retrying.acct, P.year, P.month, retryAt)
        .run();
      await env.DB.prepare(
        "insert into payouts (id, user_id, amount_cents, method, stripe_account_id, status, period_year, period_month, failure_code, failure_detail, notes) values (?, ?, 2600, 'bank', ?, 'failed', ?, ?, 'account_closed', 'The account is closed', 'Your connected bank account is closed')",
      )
        .bind(`f-${failed.id}`, failed.id, failed.acct, P.year, P.month)
        .run();
      const v = await view();
      expect(v).toMatchObject({
        period: P,
        run: { id: `${runId(P)}-r2`, status: "complete", error: null },
        prepared: 5,
        sent: 0,
        paid: 2,
        failed: 1,
        retrying: 1,
        pendingManual: 1,
        nextRetryAt: new Date(retryAt).toISOString(),
      });
      expect(v.attention).toEqual([
        {
          payoutId: `r-${retrying.id}`,
          userId: retrying.id,
          name: "",
          email: retrying.email,
          amount: 30,
          method: "bank",
          status: "Retrying",
          reason: "StripeAPIError (500): An unknown error occurred",
          nextRetryAt: new Date(retryAt).toISOString(),
        },
        {
          payoutId: `f-${failed.id}`,
          userId: failed.id,
          name: "",
          email: failed.email,
          amount: 26,
          method: "bank",
          status: "Failed",
          reason: "account_closed: The account is closed",
          nextRetryAt: null,
        },
      ]);

      // Admin only, and the period validated.
      expect((await call(q)).status).toBe(401);
      expect((await call(q, { cookie: await signIn("someone-else@example.com") })).status).toBe(403);
      const bad = await call(`/api/admin/payout-run?month=13&year=${P.year}`, { cookie: admin });
      expect(bad.status).toBe(400);
      expect(typeof (await bad.json<{ message: string }>()).message).toBe("string");
    } finally {
      await rerun.dispose();
      await run.dispose();
    }
  });
});

describe("found in review", () => {
  it("a refund booked after the run's 'as of' time is never paid out: the payout is the smaller of the balance then and now", async () => {
    const T = runAt(2025, 9);
    const P = closingPeriod(T);
    const c = await creator("paypal");
    await sale(c.id, 10000, T - 10 * DAY); // $80 available at T
    // Refunded the next day, before a restarted run (same `now`) or a late page prepares it: -$30 of the share.
    await env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'creator', ?, 'refund', -3000, 'refunded-later', ?)",
    )
      .bind(`refund:${c.id}`, c.id, T + DAY)
      .run();
    await preparePage(deps(), P, T, "");
    expect(await payoutsOf(c.id)).toMatchObject([{ status: "pending", amount_cents: 5000 }]);
  });

  it("a creator held after their transfer was prepared gets no transfer while held: it waits (Retrying, with the reason) and goes out once released", async () => {
    const T = runAt(2025, 10);
    const P = closingPeriod(T);
    const bank = await creator("bank");
    await sale(bank.id, 5000, T - 10 * DAY);
    await preparePage(deps(), P, T, "");
    const [p] = await payoutsOf(bank.id);
    await env.DB.prepare("update payout_settings set held_at = ?, held_reason = 'chargebacks' where user_id = ?")
      .bind(Date.now(), bank.id)
      .run();
    expect(await sendPayout(deps(), p.id, T)).toBe("retry_later");
    expect(await payoutsOf(bank.id)).toMatchObject([
      { status: "processing", stripe_transfer_id: null, last_error: expect.stringContaining("held") },
    ]);
    expect(await transfersTo(bank.acct)).toHaveLength(0);
    await env.DB.prepare("update payout_settings set held_at = null, held_reason = null where user_id = ?")
      .bind(bank.id)
      .run();
    expect(await sendPayout(deps(), p.id, T)).toBe("paid");
    expect(await transfersTo(bank.acct)).toHaveLength(1);
  });

  it("the admin list shows where a prepared payout goes (its own method and email), not the creator's later settings", async () => {
    const admin = await signIn("admin@apewall.test");
    const now = Date.now();
    const P = closingPeriod(now);
    const c = await creator("paypal");
    await sale(c.id, 5000, now - 40 * DAY);
    await preparePage(deps(), P, now, "");
    await env.DB.prepare("update payout_settings set email = 'changed@example.com' where user_id = ?").bind(c.id).run();
    const list = await (
      await call(`/api/admin/creator-payouts?month=${P.month}&year=${P.year}`, { cookie: admin })
    ).json<{ userId: string; payoutEmail: string | null }[]>();
    expect(list.find((r) => r.userId === c.id)).toMatchObject({ payoutEmail: `pp-${c.email}` });
  });

  it("the daily sweep re-drives stuck payouts even when another of its jobs fails (R2 down)", async () => {
    const failingR2 = new Proxy({}, { get: () => () => Promise.reject(new Error("R2 is down")) });
    // An upload whose completion crashed an hour ago: the uploads job asks R2 what it holds.
    const c = await creator("none");
    await env.DB.prepare(
      "insert into uploads (id, user_id, object_key, file_name, content_type, size_bytes, part_size, part_count, status, created_at, completed_at) values (?, ?, ?, 'f.zip', 'application/zip', 10, 10, 1, 'completing', ?, ?)",
    )
      .bind(`up-${c.id}`, c.id, `files/${c.id}/f.zip`, Date.now() - 2 * 60 * 60 * 1000, Date.now() - 2 * 60 * 60 * 1000)
      .run();
    const out = await dailySweep({ ...(env as never as object), FILES: failingR2 } as never, Date.now());
    expect(out.staleUploadsAborted).toEqual({ error: "R2 is down" });
    expect(typeof out.stuckPayoutsResent).toBe("number");
  });
});
