// One payout's transfer under Stripe's answers: errors it keeps under the Idempotency-Key, rate limits,
// the platform's balance, two sends at once, a failed look-up on resume, the send step's backoff;
// partial and full transfer.reversed events in any order; and what a failed payout tells the creator.
// Behaviour: docs/money.md ("The monthly payout run").
import { describe, expect, it, vi } from "vitest";
import { creatorBalance } from "../../services/balances";
import { closingPeriod } from "../../services/payouts/period";
import { preparePayout } from "../../services/payouts/prepare";
import { sendPayout, sendPayoutStep, TransferNotSettled } from "../../services/payouts/transfer-rail";
import { call, connectedAccount, deliver, env, eventFor, outbox, row, rows, signIn, standin } from "../support/helpers";
import { runPayoutSteps } from "./payout-steps";
import {
  creator,
  crashAfterTransfer,
  DAY,
  db,
  deps,
  expectLedgerBalanced,
  payoutsOf,
  runAt,
  sale,
  transfersTo,
} from "./payout-fixtures";

/** A Stripe SDK error as the SDK raises it for an HTTP answer (type, code, statusCode). */
function stripeError(type: string, fields: { code?: string; param?: string; statusCode: number; message: string }) {
  return Object.assign(new Error(fields.message), { type, ...fields });
}

describe("transfers Stripe does not settle at once", () => {
  it("an api_error (500, kept under the key): the payout stays processing, says why and when, and the retry pays it once", async () => {
    const T = runAt(2024, 2);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    await standin("POST", "/_standin/transfers/fail_next", { destination: c.acct, code: "api_error" });
    expect(await runPayoutSteps(deps(), closingPeriod(T), { now: T })).toMatchObject({
      prepared: 1,
      sent: 0,
      failed: 0,
      retryLater: 1,
    });
    const [p] = await payoutsOf(c.id);
    expect(await row("select status, last_error, next_retry_at from payouts where id = ?", p.id)).toEqual({
      status: "processing",
      last_error: expect.stringContaining("500"),
      next_retry_at: T + 60_000,
    });
    // Stripe keeps its 500 under the Idempotency-Key: the retry must not replay it forever.
    expect(await sendPayout(deps(), p.id, T + 60_000)).toBe("paid");
    expect(await transfersTo(c.acct)).toHaveLength(1);
    expect(await payoutsOf(c.id)).toMatchObject([{ status: "paid" }]);
    await expectLedgerBalanced(c.id);
  });

  it("a rate limit (429) is retried with the same key and pays once", async () => {
    const T = runAt(2024, 3);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    await standin("POST", "/_standin/transfers/fail_next", { destination: c.acct, code: "rate_limit" });
    expect(await runPayoutSteps(deps(), closingPeriod(T), { now: T })).toMatchObject({ failed: 0, retryLater: 1 });
    const [p] = await payoutsOf(c.id);
    expect(p.status).toBe("processing");
    expect(await sendPayout(deps(), p.id, T + 60_000)).toBe("paid");
    expect(await transfersTo(c.acct)).toHaveLength(1);
    await expectLedgerBalanced(c.id);
  });

  it("balance_insufficient (the platform's funds still pending) does not fail the payout: it is paid after the top-up, and the creator gets no failure email", async () => {
    const T = runAt(2024, 4);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    await standin("POST", "/_standin/transfers/fail_next", { destination: c.acct, code: "balance_insufficient" });
    expect(await runPayoutSteps(deps(), closingPeriod(T), { now: T })).toMatchObject({
      prepared: 1,
      failed: 0,
      retryLater: 1,
    });
    const [p] = await payoutsOf(c.id);
    expect(await row("select status, last_error from payouts where id = ?", p.id)).toEqual({
      status: "processing",
      last_error: expect.stringContaining("balance_insufficient"),
    });
    expect(await rows("select 1 from ledger_entries where payout_id = ? and kind = 'payout_reversal'", p.id)).toEqual(
      [],
    );
    expect(await creatorBalance(db(), c.id, T + 1)).toMatchObject({ availableCents: 0, pendingPayoutCents: 4000 });

    await standin("POST", "/_standin/balance/top_up", { amount: "4000" });
    expect(await sendPayout(deps(), p.id, T + 60_000)).toBe("paid");
    expect(await transfersTo(c.acct)).toHaveLength(1);
    expect(await creatorBalance(db(), c.id, T + 60_001)).toMatchObject({ availableCents: 0, paidOutCents: 4000 });
    await expectLedgerBalanced(c.id);
    const mails = await vi.waitUntil(
      async () => {
        const m = (await outbox()).filter((x) => x.to === c.email);
        return m.length >= 2 ? m : undefined;
      },
      { timeout: 10_000 },
    );
    expect(mails.map((m) => m.subject).some((s) => /could not be sent/.test(s))).toBe(false);
  });

  it("two sends of one payout at once (the second meets idempotency_key_in_use): one transfer, paid, nothing booked back", async () => {
    const T = runAt(2024, 5);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    const id = (await preparePayout(deps(), c.id, closingPeriod(T), T))!;
    const real = deps().stripe;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inFlight = new Promise<void>((r) => (entered = r));
    // The first send's request is still executing at Stripe...
    const slow = {
      transfers: {
        list: real.transfers.list.bind(real.transfers),
        create: async (...args: Parameters<typeof real.transfers.create>) => {
          entered();
          await gate;
          return real.transfers.create(...args);
        },
      },
    };
    // ...so Stripe answers the second one, with the same key, 409 idempotency_key_in_use.
    const busy = {
      transfers: {
        list: real.transfers.list.bind(real.transfers),
        create: async () => {
          throw stripeError("StripeInvalidRequestError", {
            code: "idempotency_key_in_use",
            statusCode: 409,
            message: "There is currently another in-progress request using this Idempotent Key",
          });
        },
      },
    };
    const first = sendPayout({ ...deps(), stripe: slow as never }, id, T);
    await inFlight;
    const second = await sendPayout({ ...deps(), stripe: busy as never }, id, T);
    expect(second).toBe("retry_later");
    release();
    expect(await first).toBe("paid");
    expect(await payoutsOf(c.id)).toMatchObject([{ id, status: "paid" }]);
    expect(await transfersTo(c.acct)).toHaveLength(1);
    expect(await rows("select 1 from ledger_entries where payout_id = ? and kind = 'payout_reversal'", id)).toEqual([]);
    await expectLedgerBalanced(c.id);
  });

  it("a failed transfer look-up on resume does not fail the payout: it stays processing and the next send pays it once", async () => {
    const T = runAt(2024, 6);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    const id = (await preparePayout(deps(), c.id, closingPeriod(T), T))!;
    // A run claimed it and stopped: the transfer may exist.
    await env.DB.prepare("update payouts set status = 'processing' where id = ?").bind(id).run();
    const real = deps().stripe;
    const lookupFails = {
      transfers: {
        list: () => {
          throw stripeError("StripePermissionError", {
            statusCode: 403,
            message: "The provided key does not have the required permissions for this endpoint",
          });
        },
        create: real.transfers.create.bind(real.transfers),
      },
    };
    expect(await sendPayout({ ...deps(), stripe: lookupFails as never }, id, T)).toBe("retry_later");
    expect(await payoutsOf(c.id)).toMatchObject([{ status: "processing" }]);
    expect(await rows("select 1 from ledger_entries where payout_id = ? and kind = 'payout_reversal'", id)).toEqual([]);
    expect(await sendPayout(deps(), id, T + 60_000)).toBe("paid");
    expect(await transfersTo(c.acct)).toHaveLength(1);
    await expectLedgerBalanced(c.id);
  });

  it("the send step retries a payout Stripe did not settle with a growing delay: it throws, and next_retry_at says when", async () => {
    const T = runAt(2024, 7);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    const id = (await preparePayout(deps(), c.id, closingPeriod(T), T))!;
    const attempt = async (n: number) => {
      await standin("POST", "/_standin/transfers/fail_next", { destination: c.acct, code: "rate_limit" });
      await expect(sendPayoutStep(deps(), id, n, T)).rejects.toBeInstanceOf(TransferNotSettled);
      return (
        (await row<{ next_retry_at: number }>("select next_retry_at from payouts where id = ?", id))!.next_retry_at - T
      );
    };
    expect(await attempt(1)).toBe(60_000);
    expect(await attempt(3)).toBe(240_000);
    expect(await payoutsOf(c.id)).toMatchObject([{ status: "processing" }]);
    expect(await sendPayout(deps(), id)).toBe("paid");
  });
});

describe("partial transfer reversals", () => {
  it("book back what was reversed while the payout stays paid; the full reversal later books only the rest", async () => {
    const T = runAt(2025, 10);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    await runPayoutSteps(deps(), closingPeriod(T), { now: T });
    const [paid] = await payoutsOf(c.id);
    expect(paid).toMatchObject({ status: "paid", amount_cents: 4000 });
    const back = async () =>
      (await row<{ cents: number }>(
        "select coalesce(sum(amount_cents), 0) as cents from ledger_entries where user_id = ? and kind = 'payout_reversal'",
        c.id,
      ))!.cents;

    expect(
      (await standin("POST", `/v1/transfers/${paid.stripe_transfer_id}/reversals`, { amount: "1000" })).status,
    ).toBe(200);
    const partial = await eventFor("transfer.reversed", paid.stripe_transfer_id!);
    await deliver(partial);
    await deliver({ ...partial, id: `${partial.id}x` });
    expect(await payoutsOf(c.id)).toMatchObject([{ status: "paid" }]);
    expect(await back()).toBe(1000);
    expect((await creatorBalance(db(), c.id)).availableCents).toBe(1000);

    expect((await standin("POST", `/v1/transfers/${paid.stripe_transfer_id}/reversals`, {})).status).toBe(200);
    const full = await eventFor("transfer.reversed", paid.stripe_transfer_id!);
    expect(full.id).not.toBe(partial.id);
    await deliver(full);
    // The older partial event arriving late changes nothing more.
    await deliver({ ...partial, id: `${partial.id}late` });
    expect(await payoutsOf(c.id)).toMatchObject([{ status: "failed" }]);
    expect(await back()).toBe(4000);
    expect((await creatorBalance(db(), c.id)).availableCents).toBe(4000);
    await expectLedgerBalanced(c.id);
  });
});

describe("a partial transfer.reversed while the payout is processing", () => {
  it("is booked back at once, once; the resumed send marks the payout paid", async () => {
    const T = runAt(2024, 8);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    const id = (await preparePayout(deps(), c.id, closingPeriod(T), T))!;
    const crash = crashAfterTransfer();
    const crashing = crash.stripe;
    expect(await sendPayout({ ...deps(), stripe: crashing as never }, id, T)).toBe("retry_later");
    expect((await standin("POST", `/v1/transfers/${crash.transferId}/reversals`, { amount: "1000" })).status).toBe(200);
    const partial = await eventFor("transfer.reversed", crash.transferId);
    expect((await deliver(partial)).status).toBe(200);
    await deliver({ ...partial, id: `${partial.id}x` });
    const back = await rows<{ amount_cents: number }>(
      "select amount_cents from ledger_entries where payout_id = ? and kind = 'payout_reversal'",
      id,
    );
    expect(back).toEqual([{ amount_cents: 1000 }]);
    expect((await creatorBalance(db(), c.id)).availableCents).toBe(1000);

    expect(await sendPayout(deps(), id)).toBe("paid");
    expect(await payoutsOf(c.id)).toMatchObject([{ status: "paid", stripe_transfer_id: crash.transferId }]);
    expect(await transfersTo(c.acct)).toHaveLength(1);
    expect((await creatorBalance(db(), c.id)).availableCents).toBe(1000);
  });
});

describe("reordered events", () => {
  it("transfer.reversed arriving while the payout is still processing: failed once, money back, paid again by a new payout", async () => {
    // Real time here: the webhook books its reversal at the moment it arrives.
    const T = Date.now();
    const P = closingPeriod(T);
    const c = await creator("bank");
    await sale(c.id, 5000, T - 10 * DAY);
    const id = (await preparePayout(deps(), c.id, P, T))!;
    // The transfer is made, then the run stops before writing it down...
    const crash = crashAfterTransfer();
    const crashing = crash.stripe;
    expect(await sendPayout({ ...deps(), stripe: crashing as never }, id, T)).toBe("retry_later");
    // ...and the transfer is reversed before the next run: its event arrives first.
    await standin("POST", `/v1/transfers/${crash.transferId}/reversals`, {});
    expect((await deliver(await eventFor("transfer.reversed", crash.transferId))).status).toBe(200);
    expect(await row("select status from payouts where id = ?", id)).toEqual({ status: "failed" });
    expect(await creatorBalance(db(), c.id)).toMatchObject({ availableCents: 4000, pendingPayoutCents: 0 });

    // The resumed send does not pay the failed payout; the next run prepares a new one and pays it.
    expect(await sendPayout(deps(), id)).toBe("done");
    await runPayoutSteps(deps(), P, { now: T + DAY });
    expect((await payoutsOf(c.id)).map((p) => p.status)).toEqual(["failed", "paid"]);
    const ts = await transfersTo(c.acct);
    expect(ts.map((t) => t.amount)).toEqual([4000, 4000]);
    expect(
      await rows("select amount_cents from ledger_entries where user_id = ? and kind = 'payout_reversal'", c.id),
    ).toEqual([{ amount_cents: 4000 }]);
    expect(await creatorBalance(db(), c.id, T + DAY + 1)).toMatchObject({ availableCents: 0, paidOutCents: 4000 });
    await expectLedgerBalanced(c.id);
  });
});

describe("what a failed payout tells the creator", () => {
  it("the email and payout history say what happened and what to do, in the creator's terms; Stripe's message stays with the admin", async () => {
    const T = runAt(2024, 9);
    const email = `failed-words-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const cookie = await signIn(email);
    const userId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
    const acct = await connectedAccount();
    await env.DB.prepare(
      "insert into payout_settings (user_id, method, email, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, 'bank', ?, ?, 1, 1)",
    )
      .bind(userId, email, acct)
      .run();
    await sale(userId, 5000, T - 10 * DAY);
    await standin("POST", "/_standin/transfers/fail_next", {
      destination: acct,
      code: "insufficient_capabilities_for_transfer",
    });
    expect(await runPayoutSteps(deps(), closingPeriod(T), { now: T })).toMatchObject({ failed: 1 });

    const stripeWords = /capabilities|crypto_transfers|legacy_payments|Stripe account|test card/;
    const mail = await vi.waitUntil(
      async () => (await outbox()).find((m) => m.to === email && /could not be sent/.test(m.subject)),
      { timeout: 10_000 },
    );
    expect(mail.text).not.toMatch(stripeWords);
    expect(mail.text).toContain("finish setting up your bank account");
    const history = await (await call("/api/payout/history", { cookie })).json<
      { status: string; notes: string | null }[]
    >();
    expect(history).toMatchObject([{ status: "failed" }]);
    expect(history[0].notes).not.toMatch(stripeWords);
    expect(history[0].notes).toContain("finish setting up your bank account");
    // The admin's reason: Stripe's code and message on the payout row.
    expect(await row("select failure_code, failure_detail from payouts where user_id = ?", userId)).toEqual({
      failure_code: "insufficient_capabilities_for_transfer",
      failure_detail: expect.stringContaining("capabilities"),
    });
  });
});

describe("failed payouts from before the failure columns (migration 0013)", () => {
  it("Stripe's message moves to the admin's failure_detail; the creator's notes say what to do", async () => {
    const c = await creator("bank");
    const old =
      "You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card.";
    await env.DB.prepare(
      "insert into payouts (id, user_id, amount_cents, method, status, period_year, period_month, notes) values (?, ?, 4000, 'bank', 'failed', 2023, 1, ?)",
    )
      .bind(`old-${c.id}`, c.id, old)
      .run();
    const migration = (
      env as unknown as { TEST_MIGRATIONS: { name: string; queries: string[] }[] }
    ).TEST_MIGRATIONS.find((m) => m.name.startsWith("0013_"))!;
    for (const q of migration.queries) await env.DB.prepare(q).run();
    const after = await row<{ notes: string; failure_code: string; failure_detail: string }>(
      "select notes, failure_code, failure_detail from payouts where id = ?",
      `old-${c.id}`,
    );
    expect(after).toEqual({
      notes: expect.stringContaining("not yours"),
      failure_code: "balance_insufficient",
      failure_detail: old,
    });
    expect(after!.notes).not.toMatch(/Stripe account|test card/);
  });
});
