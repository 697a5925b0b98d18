// The payout run under faults: concurrent and repeated runs, a crash after each write, a failed or
// reversed transfer, the next period, a run larger than one invocation, the Cron Trigger, the daily
// sweep, a refund after a payout and a queue that fails. Transfers go to the Stripe stand-in; each test
// has its own month, so runs do not see each other's. Behaviour: docs/money.md.
import { createScheduledController, introspectWorkflow, introspectWorkflowInstance } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { handleScheduled, MONTHLY_PAYOUT_CRON } from "../../cron";
import { creatorBalance } from "../../services/balances";
import { closingPeriod, transferGroup, type Period } from "../../services/payouts/period";
import { preparePayout } from "../../services/payouts/prepare";
import { sendPayout } from "../../services/payouts/transfer-rail";
import { runPayoutSteps } from "./payout-steps";
import {
  checkout,
  contentForm,
  deliver,
  env,
  eventFor,
  outbox,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
  waitForMail,
} from "../support/helpers";
import { creator, DAY, db, deps, expectLedgerBalanced, payoutsOf, runAt, sale, transfersTo } from "./payout-fixtures";

describe("the payout run", () => {
  it("two runs at once and again a day later: one payout per creator per period, one transfer, ledger balanced", async () => {
    const T = runAt(2025, 3);
    const bank = await creator("bank");
    const manual = await creator("paypal");
    const small = await creator("paypal");
    const unset = await creator("none");
    await sale(bank.id, 5000, T - 10 * DAY);
    await sale(bank.id, 2500, T - 9 * DAY);
    await sale(bank.id, 1000, T - 2 * DAY); // still on hold on the 1st
    await sale(manual.id, 4000, T - 20 * DAY);
    await sale(small.id, 2000, T - 20 * DAY); // $16 share: below the minimum
    await sale(unset.id, 10000, T - 20 * DAY); // payouts not set up

    // The Cron Trigger fires twice at once, and again a day later (each is a scheduled run of the
    // period: PayoutRunWorkflow, with each transfer its own PayoutSendWorkflow instance).
    const P = closingPeriod(T);
    const cron = (at: number) =>
      handleScheduled(createScheduledController({ cron: MONTHLY_PAYOUT_CRON, scheduledTime: at }), env as never);
    const run = await introspectWorkflowInstance(env.PAYOUT_RUN, transferGroup(P));
    const sends = await introspectWorkflow(env.PAYOUT_SEND);
    try {
      await sends.modifyAll(async (m) => m.disableRetryDelays());
      await Promise.all([cron(T), cron(T)]);
      await run.waitForStatus("complete");
      for (const s of await sends.get()) await s.waitForStatus("complete");
      expect(
        await rows(
          "select 1 from payouts where period_year = ? and period_month = ? and user_id in (?, ?, ?, ?)",
          P.year,
          P.month,
          bank.id,
          manual.id,
          small.id,
          unset.id,
        ),
      ).toHaveLength(2);
      await cron(T + DAY);
      for (const s of await sends.get()) await s.waitForStatus("complete");
    } finally {
      await sends.dispose();
      await run.dispose();
    }
    // The period's steps run again a day later prepare nothing more.
    expect((await runPayoutSteps(deps(), closingPeriod(T + DAY), { now: T + DAY })).prepared).toBe(0);

    const [bp] = await payoutsOf(bank.id);
    expect(await payoutsOf(bank.id)).toHaveLength(1);
    expect(bp).toMatchObject({
      amount_cents: 6000,
      status: "paid",
      period_year: 2025,
      period_month: 2,
      method: "bank",
    });
    const transfers = await transfersTo(bank.acct);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({
      id: bp.stripe_transfer_id,
      amount: 6000,
      transfer_group: "payouts-2025-02",
      metadata: { payout_id: bp.id },
    });

    expect(await payoutsOf(manual.id)).toMatchObject([{ amount_cents: 3200, status: "pending", method: "paypal" }]);
    expect(await payoutsOf(small.id)).toEqual([]);
    expect(await payoutsOf(unset.id)).toEqual([]);
    for (const u of [bank, manual]) await expectLedgerBalanced(u.id);

    // What the creators see: the money left available; the held sale is still on hold.
    expect(await creatorBalance(db(), bank.id, T + DAY)).toMatchObject({
      availableCents: 0,
      onHoldCents: 800,
      paidOutCents: 6000,
      pendingPayoutCents: 0,
    });
    expect(await creatorBalance(db(), manual.id, T + DAY)).toMatchObject({
      availableCents: 0,
      pendingPayoutCents: 3200,
    });
    expect(await creatorBalance(db(), small.id, T + DAY)).toMatchObject({ availableCents: 1600 });
    const audit = await rows<{ action: string; period_month: number }>(
      "select action, period_month from admin_audit where period_year = 2025 and period_month = 2",
    );
    expect(audit.map((x) => x.action)).toEqual([
      "scheduled-payout-run",
      "scheduled-payout-run",
      "scheduled-payout-run",
    ]);
  });

  it("prepare for one creator is a no-op the second time, even at once", async () => {
    const T = runAt(2025, 4);
    const c = await creator("paypal");
    await sale(c.id, 5000, T - 10 * DAY);
    const results = await Promise.all([1, 2, 3].map(() => preparePayout(deps(), c.id, closingPeriod(T), T)));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await preparePayout(deps(), c.id, closingPeriod(T), T + 1000)).toBeNull();
    expect(await payoutsOf(c.id)).toMatchObject([{ amount_cents: 4000 }]);
    await expectLedgerBalanced(c.id);
  });

  it("a crash after each write, then a rerun: resumes, nothing twice, nothing lost", async () => {
    const T = runAt(2025, 5);
    const P = closingPeriod(T);
    const [c1, c2, c3] = [await creator("bank"), await creator("bank"), await creator("bank")];
    for (const c of [c1, c2, c3]) await sale(c.id, 5000, T - 10 * DAY);

    // Crash 1: stopped right after the prepare batches (no transfer sent yet).
    const ids = await Promise.all([c1, c2, c3].map((c) => preparePayout(deps(), c.id, P, T)));
    expect(ids.every(Boolean)).toBe(true);
    // Crash 2: c2's payout was claimed (pending -> processing) and then the run died.
    await env.DB.prepare("update payouts set status = 'processing' where id = ?").bind(ids[1]).run();
    // Crash 3: c3's transfer was made at Stripe, then the run died before writing it down.
    const real = deps().stripe;
    const crashing = {
      transfers: {
        list: real.transfers.list.bind(real.transfers),
        retrieve: real.transfers.retrieve.bind(real.transfers),
        create: async (...args: Parameters<typeof real.transfers.create>) => {
          await real.transfers.create(...args);
          throw Object.assign(new Error("Connection closed"), { type: "StripeConnectionError" });
        },
      },
    };
    expect(await sendPayout({ ...deps(), stripe: crashing as never }, ids[2]!, T)).toBe("retry_later");
    expect(await row("select status from payouts where id = ?", ids[2])).toEqual({ status: "processing" });

    const rerun = await runPayoutSteps(deps(), P, { now: T + 60_000 });
    expect(rerun).toMatchObject({ prepared: 0, sent: 3, failed: 0, retryLater: 0 });
    for (const [i, c] of [c1, c2, c3].entries()) {
      const ps = await payoutsOf(c.id);
      expect(ps).toMatchObject([{ id: ids[i], status: "paid", amount_cents: 4000 }]);
      const ts = await transfersTo(c.acct);
      expect(ts).toHaveLength(1);
      expect(ts[0]).toMatchObject({ id: ps[0].stripe_transfer_id, transfer_group: transferGroup(P) });
      await expectLedgerBalanced(c.id);
    }
    // And once more: nothing moves.
    expect(await runPayoutSteps(deps(), P, { now: T + 120_000 })).toMatchObject({ prepared: 0, sent: 0 });
  });

  it("a failed transfer: payout failed, money back, creator emailed; the next run pays it", async () => {
    const T = runAt(2025, 6);
    const P = closingPeriod(T);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    const control = await standin("POST", "/_standin/transfers/fail_next", {
      destination: c.acct,
      code: "insufficient_capabilities_for_transfer",
    });
    expect(control.status).toBe(200);

    expect(await runPayoutSteps(deps(), P, { now: T })).toMatchObject({ prepared: 1, sent: 0, failed: 1 });
    const [failed] = await payoutsOf(c.id);
    expect(failed.status).toBe("failed");
    expect(await row("select failure_detail from payouts where id = ?", failed.id)).toEqual({
      failure_detail: expect.stringContaining("capabilities"),
    });
    expect(await creatorBalance(db(), c.id, T + 1)).toMatchObject({
      availableCents: 4000,
      pendingPayoutCents: 0,
      paidOutCents: 0,
    });
    expect(
      await row("select amount_cents from ledger_entries where idempotency_key = ?", `payout-reversal:${failed.id}`),
    ).toEqual({ amount_cents: 4000 });
    await expectLedgerBalanced(c.id);
    // The "on its way" email of the prepared payout may arrive first: wait for the failure's own.
    const mail = await vi.waitUntil(
      async () => (await outbox()).find((m) => m.to === c.email && /could not be sent/.test(m.subject)),
      { timeout: 10_000, interval: 100 },
    );
    expect(mail.subject).toMatch(/could not be sent/);
    expect(await transfersTo(c.acct)).toEqual([]);

    // The admin presses 'Process All Payouts' a day later: the period is prepared again for this creator.
    expect(await runPayoutSteps(deps(), P, { now: T + DAY })).toMatchObject({ prepared: 1, sent: 1 });
    const ps = await payoutsOf(c.id);
    expect(ps.map((p) => [p.status, p.amount_cents])).toEqual([
      ["failed", 4000],
      ["paid", 4000],
    ]);
    expect(await transfersTo(c.acct)).toHaveLength(1);
    expect(await creatorBalance(db(), c.id, T + DAY + 1)).toMatchObject({ availableCents: 0, paidOutCents: 4000 });
    await expectLedgerBalanced(c.id);
  });

  it("a failed payout does not block the next period", async () => {
    const T = runAt(2025, 7);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    await standin("POST", "/_standin/transfers/fail_next", {
      destination: c.acct,
      code: "insufficient_capabilities_for_transfer",
    });
    await runPayoutSteps(deps(), closingPeriod(T), { now: T });
    const next = runAt(2025, 8);
    expect(await runPayoutSteps(deps(), closingPeriod(next), { now: next })).toMatchObject({ prepared: 1, sent: 1 });
    expect((await payoutsOf(c.id)).map((p) => [p.period_month, p.status, p.amount_cents])).toEqual([
      [6, "failed", 4000],
      [7, "paid", 4000],
    ]);
    await expectLedgerBalanced(c.id);
  });

  it("a reversed transfer (webhook, delivered twice): payout failed, money back once", async () => {
    const T = runAt(2025, 9);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    await runPayoutSteps(deps(), closingPeriod(T), { now: T });
    const [paid] = await payoutsOf(c.id);
    expect(paid.status).toBe("paid");
    const rev = await standin("POST", `/v1/transfers/${paid.stripe_transfer_id}/reversals`, {});
    expect(rev.status).toBe(200);
    const event = await eventFor("transfer.reversed", paid.stripe_transfer_id!);
    expect((await deliver(event)).status).toBe(200);
    // Redelivered under a new event id, as a retried or duplicated event would be.
    expect((await deliver({ ...event, id: `${event.id}x` })).status).toBe(200);
    expect(await payoutsOf(c.id)).toMatchObject([{ status: "failed" }]);
    const back = await rows(
      "select amount_cents from ledger_entries where user_id = ? and kind = 'payout_reversal'",
      c.id,
    );
    expect(back).toEqual([{ amount_cents: 4000 }]);
    expect((await creatorBalance(db(), c.id)).availableCents).toBe(4000);
    await expectLedgerBalanced(c.id);
    await waitForMail(c.email);
  });
});

describe("a run larger than one invocation", () => {
  it("the run's instance hands each transfer to its own send instance, which pays it once; a second trigger joins the run and sends nothing more", async () => {
    const T = runAt(2025, 12);
    const cs = [await creator("bank"), await creator("bank"), await creator("bank")];
    for (const c of cs) await sale(c.id, 5000, T - 10 * DAY);
    const run = await introspectWorkflowInstance(env.PAYOUT_RUN, "payouts-2025-11");
    const sends = await introspectWorkflow(env.PAYOUT_SEND);
    try {
      const cron = () =>
        handleScheduled(createScheduledController({ cron: MONTHLY_PAYOUT_CRON, scheduledTime: T }), env as never);
      await cron();
      await run.waitForStatus("complete");
      expect(await run.getOutput()).toMatchObject({ prepared: 3, sendsStarted: 3 });
      for (const s of await sends.get()) await s.waitForStatus("complete");
      await vi.waitUntil(
        async () =>
          (await rows("select 1 from payouts where period_year = 2025 and period_month = 11 and status = 'paid'"))
            .length === 3,
        { timeout: 10_000, interval: 100 },
      );
      for (const c of cs) {
        expect(await transfersTo(c.acct)).toHaveLength(1);
        await expectLedgerBalanced(c.id);
      }
      // Triggered again: the run is joined; nothing is due, nothing is sent.
      await cron();
      expect(await sends.get()).toHaveLength(3);
      expect(await runPayoutSteps(deps(), closingPeriod(T), { now: T + DAY })).toMatchObject({ prepared: 0, sent: 0 });
    } finally {
      await sends.dispose();
      await run.dispose();
    }
  });
});

describe("the Cron Trigger", () => {
  it("0 2 1 * * starts the run that prepares the month that just closed and sends bank transfers; manual methods wait", async () => {
    const T = runAt(2025, 11);
    const bank = await creator("bank");
    const manual = await creator("paypal");
    await sale(bank.id, 5000, T - 10 * DAY);
    await sale(manual.id, 5000, T - 10 * DAY);
    const run = await introspectWorkflowInstance(env.PAYOUT_RUN, "payouts-2025-10");
    try {
      await handleScheduled(createScheduledController({ cron: MONTHLY_PAYOUT_CRON, scheduledTime: T }), env as never);
      await run.waitForStatus("complete");
    } finally {
      await run.dispose();
    }
    await vi.waitUntil(async () => (await payoutsOf(bank.id))[0]?.status === "paid", {
      timeout: 10_000,
      interval: 100,
    });
    expect(await payoutsOf(bank.id)).toMatchObject([
      { period_year: 2025, period_month: 10, status: "paid", amount_cents: 4000 },
    ]);
    expect(await payoutsOf(manual.id)).toMatchObject([
      { period_year: 2025, period_month: 10, status: "pending", amount_cents: 4000 },
    ]);
    const prepared = await waitForMail(manual.email);
    expect(prepared.subject).toBe("Your October 2025 payout of $40.00 is on its way");
    expect(prepared.text).toContain("by the 21st of the month");
  });
});

describe("nothing left without an owner", () => {
  it("a transfer payout left processing with no retry due for over a day (its send instance gave up) is sent again by the daily sweep and paid once", async () => {
    const c = await creator("bank");
    const now = Date.now();
    await sale(c.id, 5000, now - 10 * DAY);
    const id = await preparePayout(deps(), c.id, closingPeriod(now), now);
    expect(id).toBeTruthy();
    // As if a send started, Stripe did not settle it, and its send instance ran out of retries.
    await env.DB.prepare(
      "update payouts set status = 'processing', next_retry_at = ?, last_error = 'api_error' where id = ?",
    )
      .bind(now - 25 * 60 * 60 * 1000, id)
      .run();
    // An hour late only is not stuck: its retry may be running.
    await env.DB.prepare("update payouts set next_retry_at = ? where id = ?")
      .bind(now - 2 * 60 * 60 * 1000, id)
      .run();
    await handleScheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: now }), env as never);
    expect(await row("select status from payouts where id = ?", id)).toEqual({ status: "processing" });
    await env.DB.prepare("update payouts set next_retry_at = ? where id = ?")
      .bind(now - 25 * 60 * 60 * 1000, id)
      .run();

    await handleScheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: now }), env as never);
    await vi.waitUntil(
      async () => (await row<{ status: string }>("select status from payouts where id = ?", id))?.status === "paid",
      { timeout: 10_000, interval: 100 },
    );
    expect(await transfersTo(c.acct)).toHaveLength(1);
    await expectLedgerBalanced(c.id);
  });
});

describe("a refund after a payout", () => {
  it("the balance goes negative and the next payouts net it off", async () => {
    const email = "refund-after-payout@example.com";
    const cookie = await signIn(email);
    expect(
      (await postJson("/api/payout/setup", { payoutMethod: "paypal", payoutEmail: "pp@example.com" }, cookie)).status,
    ).toBeLessThan(300);
    const res = await postForm(
      "/api/content",
      contentForm({ title: "Course", price: "50", linkUrl: "https://example.com/c", accessType: "link" }),
      cookie,
    );
    const item = await res.json<{ id: string }>();
    const userId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
    const buy = async () => {
      const { paymentIntent } = await checkout(item.id);
      expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
      const p = await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent);
      await env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
        .bind(10 * DAY, p!.id)
        .run();
      return paymentIntent;
    };
    // The run prepares; the admin then pays this creator's PayPal payout from the list and marks it.
    const runAndMark = async (period: Period, at: number) => {
      await runPayoutSteps(deps(), period, { now: at });
      const listed = await rows<{ id: string }>(
        "select id from payouts where user_id = ? and status = 'pending'",
        userId,
      );
      await runPayoutSteps(deps(), period, { now: at, markPaid: listed.map((p) => p.id) });
    };
    const first = await buy();
    await buy();
    const now = Date.now();
    const P: Period = closingPeriod(now);
    // (Creators of the tests above with money back are paid in this run too; only this creator is checked.)
    await runAndMark(P, now);
    expect(await payoutsOf(userId)).toMatchObject([{ amount_cents: 8000, status: "paid" }]);

    await standin("POST", "/v1/refunds", { payment_intent: first });
    expect((await deliver(await eventFor("charge.refunded", first))).status).toBe(200);
    // As of after the refund (booked when its event arrived, which under load can be seconds after `now`).
    expect(await creatorBalance(db(), userId, Date.now() + 1000)).toMatchObject({
      availableCents: 0,
      carriedNegativeCents: 4000,
    });

    // Two new sales ($80 for the creator); the next month's run pays $40: the refund is netted off.
    await buy();
    await buy();
    const next = now + 40 * DAY;
    await runAndMark(closingPeriod(next), next);
    expect((await payoutsOf(userId)).map((p) => p.amount_cents)).toEqual([8000, 4000]);
    expect(await creatorBalance(db(), userId, next + 1000)).toMatchObject({
      availableCents: 0,
      carriedNegativeCents: 0,
      paidOutCents: 12000,
    });
    await expectLedgerBalanced(userId);
  });
});

describe("payout emails survive a queue that fails", () => {
  it("the queue refuses during the run: the payouts are made, and the sweep sends the prepared and paid emails once each", async () => {
    const T = runAt(2026, 2);
    const bank = await creator("bank");
    const manual = await creator("paypal");
    await sale(bank.id, 5000, T - 10 * DAY);
    await sale(manual.id, 5000, T - 10 * DAY);
    const failing = {
      send: async () => Promise.reject(new Error("queue unavailable")),
      sendBatch: async () => Promise.reject(new Error("queue unavailable")),
    };
    expect(await runPayoutSteps({ ...deps(), emails: failing as never }, closingPeriod(T), { now: T })).toMatchObject({
      prepared: 2,
      sent: 1,
    });
    expect(await payoutsOf(bank.id)).toMatchObject([{ status: "paid" }]);

    const sweep = () =>
      handleScheduled(
        createScheduledController({ cron: "*/5 * * * *", scheduledTime: Date.now() + 10 * 60_000 }),
        env as never,
      );
    await sweep();
    await waitForMail(manual.email);
    const bankMails = await vi.waitUntil(
      async () => {
        const m = (await outbox()).filter((x) => x.to === bank.email);
        return m.length >= 2 ? m : undefined;
      },
      { timeout: 10_000 },
    );
    expect(bankMails.map((m) => m.subject).sort()).toEqual([
      "Your January 2026 payout of $40.00 is on its way",
      "Your January 2026 payout of $40.00 was sent",
    ]);
    expect((await outbox()).filter((x) => x.to === manual.email).map((m) => m.subject)).toEqual([
      "Your January 2026 payout of $40.00 is on its way",
    ]);
    await vi.waitUntil(
      async () =>
        (
          await row<{ n: number }>(
            "select count(*) as n from outbox_emails where sent_at is null and job like ?",
            `%${bank.id}%`,
          )
        )?.n === 0,
      { timeout: 10_000 },
    );
    await sweep();
    await new Promise((r) => setTimeout(r, 1500));
    expect((await outbox()).filter((x) => x.to === bank.email)).toHaveLength(2);
  });
});
