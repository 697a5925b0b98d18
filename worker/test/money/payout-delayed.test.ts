// A transfer Stripe refuses for the platform's balance (balance_insufficient) is Delayed, not failed:
// the creator's answers say so with the next try, its money stays reserved against every other
// mover, a repeated tick never sends twice, and after the top-up the retry pays it once. After the
// Workflow's last retry the next try is the daily sweep's. And the next payout says "nothing
// available" (not "below the minimum") when nothing is. Behaviour: docs/money.md ("The monthly payout run": Delayed).
import { describe, expect, it } from "vitest";
import type { TimelinePage } from "../../../shared/earnings";
import {
  WITHDRAW_MESSAGES,
  type NextPayout,
  type PayoutHistoryItem,
  type WithdrawStatus,
} from "../../../shared/payouts";
import type { PayoutDeps } from "../../services/payouts/deps";
import { creatorBalance } from "../../services/balances";
import { nextPayout } from "../../services/earnings";
import { payoutDelay, SEND_STEP_RETRY_LIMIT } from "../../services/payouts/delay";
import { closingPeriod } from "../../services/payouts/period";
import { preparePayout } from "../../services/payouts/prepare";
import { sendPayout, sendPayoutStep, stuckPayoutIds, TransferNotSettled } from "../../services/payouts/transfer-rail";
import { withdraw } from "../../services/payouts/withdraw-now";
import { call, connectedAccount, env, postJson, row, rows, signIn, standin } from "../support/helpers";
import { DAY, db, deps, expectLedgerBalanced, transfersTo } from "./payout-fixtures";

let seq = 0;
/** A signed-in creator whose connected bank can receive transfers. */
async function bankCreator() {
  const email = `dl${++seq}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  const acct = await connectedAccount();
  await env.DB.prepare(
    "insert into payout_settings (user_id, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, ?, 1, 1)",
  )
    .bind(id, acct)
    .run();
  return { id, cookie, acct };
}

/** A sale whose creator share is `shareCents`, booked `daysAgo` days ago. */
async function saleOf(userId: string, shareCents: number, daysAgo = 10) {
  const pid = `p${++seq}${Math.random().toString(36).slice(2, 8)}`;
  await env.DB.prepare(
    "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'creator', ?, 'sale', ?, ?, ?)",
  )
    .bind(`sale:${pid}:creator`, userId, shareCents, pid, Date.now() - daysAgo * DAY)
    .run();
}

/**
 * The platform's balance, available and pending: funds other files' charges left pending become
 * available while this test runs, so a withdrawal meant to be refused must exceed both.
 */
const platformAvailable = async () => {
  const { body } = await standin<{ available: { amount: number }[]; pending: { amount: number }[] }>(
    "GET",
    "/v1/balance",
  );
  return [...body.available, ...body.pending].reduce((s, b) => s + Math.max(0, b.amount), 0);
};
/** The send is driven by the test (as the Workflow's step would), not by a Workflow instance. */
const steppedDeps = (): PayoutDeps => ({ ...deps(), startSend: async () => {} });
const get = async <T>(path: string, cookie: string) => (await call(path, { cookie })).json<T>();
const payoutRow = (id: string) =>
  row<{ status: string; send_attempt: number; retry_code: string | null; next_retry_at: number | null }>(
    "select status, send_attempt, retry_code, next_retry_at from payouts where id = ?",
    id,
  );

describe("a transfer refused for the platform's balance", () => {
  it("is Delayed with its next try, keeps its money reserved, is never sent twice, and is paid once after the top-up", async () => {
    const c = await bankCreator();
    // More than the platform can pay now: Stripe's own balance_insufficient, not a forced failure.
    const share = (await platformAvailable()) + 5000;
    await saleOf(c.id, share);
    const w = await withdraw(steppedDeps(), c.id);
    const t1 = Date.now();
    await expect(sendPayoutStep(steppedDeps(), w.id, 1, t1)).rejects.toBeInstanceOf(TransferNotSettled);
    expect(await payoutRow(w.id)).toEqual({
      status: "processing",
      send_attempt: 1,
      retry_code: "balance_insufficient",
      next_retry_at: t1 + 60_000,
    });

    // The creator's answers: Delayed (the platform's balance), with the next try; the admin's code.
    const delay = { reason: "platform_balance", nextTryAt: new Date(t1 + 60_000).toISOString() };
    const status = await get<WithdrawStatus>("/api/payout/withdraw", c.cookie);
    expect(status).toMatchObject({ blockedBy: "open", latest: { id: w.id, status: "processing", delay } });
    expect(await get<PayoutHistoryItem[]>("/api/payout/history", c.cookie)).toMatchObject([{ id: w.id, delay }]);
    const timeline = await get<TimelinePage>("/api/earnings/timeline", c.cookie);
    expect(timeline.events).toMatchObject([{ kind: "payout", id: w.id, delay }]);
    const stored = await db().query.payouts.findFirst({ where: (p, { eq }) => eq(p.id, w.id) });
    expect(payoutDelay(stored!, t1)).toMatchObject({ code: "balance_insufficient", reason: "platform_balance" });

    // The money stays in the withdrawal: another press and the monthly run take only new money.
    await saleOf(c.id, 4000);
    expect(await creatorBalance(db(), c.id)).toMatchObject({ availableCents: 4000, pendingPayoutCents: share });
    const again = await postJson("/api/payout/withdraw", {}, c.cookie);
    expect([again.status, await again.json()]).toEqual([409, { message: WITHDRAW_MESSAGES.open }]);
    const monthly = await preparePayout(steppedDeps(), c.id, closingPeriod(Date.now()));
    expect(await row("select amount_cents from payouts where id = ?", monthly)).toEqual({ amount_cents: 4000 });
    expect(await creatorBalance(db(), c.id)).toMatchObject({ availableCents: 0, pendingPayoutCents: share + 4000 });

    // Two ticks of the retry at once while the balance is still short: one new key, nothing sent.
    const t2 = t1 + 60_000;
    const ticks = await Promise.allSettled([
      sendPayoutStep(steppedDeps(), w.id, 2, t2),
      sendPayoutStep(steppedDeps(), w.id, 2, t2),
    ]);
    expect(ticks.map((t) => t.status)).toEqual(["rejected", "rejected"]);
    expect(await payoutRow(w.id)).toMatchObject({ status: "processing", send_attempt: 2, next_retry_at: t2 + 120_000 });
    expect(await transfersTo(c.acct)).toEqual([]);

    // Topped up: the next tick pays it, a duplicate tick at the same moment is a no-op.
    await standin("POST", "/_standin/balance/top_up", { amount: String(share + 10_000) });
    const t3 = t2 + 120_000;
    const paid = await Promise.all([sendPayout(steppedDeps(), w.id, t3), sendPayout(steppedDeps(), w.id, t3)]);
    expect(paid.sort()).toEqual(["done", "paid"]);
    const transfers = (await transfersTo(c.acct)).filter((t) => t.metadata.payout_id === w.id);
    expect(transfers).toHaveLength(1);
    expect(transfers[0].amount).toBe(share);
    expect(await payoutRow(w.id)).toMatchObject({ status: "paid", next_retry_at: null });
    expect(await get<WithdrawStatus>("/api/payout/withdraw", c.cookie)).toMatchObject({
      latest: { id: w.id, status: "paid", delay: null },
    });
    expect(await rows("select id from outbox_emails where id = ?", `payout-paid:${w.id}`)).toHaveLength(1);
    await expectLedgerBalanced(c.id);
  });

  it("after the Workflow's last retry, the next try is the daily sweep that re-drives it", async () => {
    const c = await bankCreator();
    await saleOf(c.id, (await platformAvailable()) + 5000);
    const w = await withdraw(steppedDeps(), c.id);
    const last = Date.UTC(2026, 10, 27, 9, 0);
    await expect(sendPayoutStep(steppedDeps(), w.id, SEND_STEP_RETRY_LIMIT + 1, last)).rejects.toBeInstanceOf(
      TransferNotSettled,
    );
    const stored = await db().query.payouts.findFirst({ where: (p, { eq }) => eq(p.id, w.id) });
    // Nov 27 09:00 + a day is past Nov 28's 03:30 sweep: Nov 29, 03:30 UTC re-drives it.
    const sweep = Date.UTC(2026, 10, 29, 3, 30);
    expect(payoutDelay(stored!, last + 1000)).toMatchObject({
      reason: "platform_balance",
      nextTryAt: new Date(sweep).toISOString(),
    });
    expect(await stuckPayoutIds(steppedDeps(), sweep - DAY)).not.toContain(w.id);
    expect(await stuckPayoutIds(steppedDeps(), sweep)).toContain(w.id);
    // Nothing left waiting on a short balance for the tests after this one.
    await standin("POST", "/_standin/balance/top_up", { amount: String(stored!.amountCents + 10_000) });
    expect(await sendPayout(steppedDeps(), w.id, sweep)).toBe("paid");
  });
});

describe("the next payout says why there is none", () => {
  it("nothing available after a withdrawal; below the minimum only for 0 < available < $25", async () => {
    const c = await bankCreator();
    await standin("POST", "/_standin/balance/top_up", { amount: "10000" });
    await saleOf(c.id, 4000);
    const w = await withdraw(steppedDeps(), c.id);
    expect(await sendPayout(steppedDeps(), w.id)).toBe("paid");
    const now = Date.UTC(2026, 10, 27, 12);
    expect(await nextPayout(db(), c.id, now)).toEqual<NextPayout>({
      date: "2026-12-01T02:00:00.000Z",
      amount: 0,
      reason: "nothing_available",
    });
    expect(await get<NextPayout>("/api/payout/next", c.cookie)).toMatchObject({ reason: "nothing_available" });
    await saleOf(c.id, 1240);
    expect(await nextPayout(db(), c.id, now)).toMatchObject({ amount: 12.4, reason: "below_minimum" });
  });
});
