// /admin says what is true about money, and a hold means no money leaves: the payouts waiting for the
// platform's Stripe balance (balance_insufficient) with that balance; each row's words ('Nothing to
// pay', 'Paid this month', 'Below Minimum ($25)' only above zero); failure notes in words; a held
// creator's prepared transfer and manual payout wait until released; the held / released emails are
// written with the change. Behaviour: docs/money.md ("The admin dashboard").
import { beforeAll, describe, expect, it } from "vitest";
import {
  BELOW_MINIMUM,
  PAID_THIS_MONTH,
  type AdminCreatorPayoutRow,
  type PayoutsWaitingView,
} from "../../../shared/admin";
import type { CurrentUser } from "../../../shared/auth";
import { payoutDeps } from "../../deps";
import { markManualPaid } from "../../services/payouts/manual-rail";
import { closingPeriod } from "../../services/payouts/period";
import { preparePayout } from "../../services/payouts/prepare";
import { sendPayout } from "../../services/payouts/transfer-rail";
import { call, env, outbox, postJson, row, signIn, standin } from "../support/helpers";
import { creatorWithSales, DAY, transfersTo } from "./payout-fixtures";

const NOW = Date.now();
const P = closingPeriod(NOW);
const deps = () => payoutDeps(env as never);

/** A creator called Robin with their payout method and `cents` of available sales. */
const creator = (kind: "bank" | "paypal" | "none", cents: number) =>
  creatorWithSales(kind, cents, { now: NOW, firstName: "Robin" });

let admin: string;
beforeAll(async () => {
  admin = await signIn("admin@apewall.test");
});
const act = (path: string, body: unknown = {}) => postJson(path, body, admin);
async function list(): Promise<Record<string, AdminCreatorPayoutRow>> {
  const res = await call(`/api/admin/creator-payouts?month=${P.month}&year=${P.year}`, { cookie: admin });
  expect(res.status).toBe(200);
  return Object.fromEntries((await res.json<AdminCreatorPayoutRow[]>()).map((r) => [r.userId, r]));
}
const mailsTo = async (to: string, subject: string) =>
  (await outbox()).filter((m) => m.to === to && m.subject === subject);

describe("payouts waiting for the platform's Stripe balance", () => {
  it("a transfer Stripe refused with balance_insufficient needs a look (monthly or withdrawal), with the reason in words and the platform's balance; paid, it is gone", async () => {
    const c = await creator("bank", 4000);
    const id = await preparePayout(deps(), c.id, P, NOW);
    await standin("POST", "/_standin/transfers/fail_next", { destination: c.account!, code: "balance_insufficient" });
    expect(await sendPayout(deps(), id!, NOW)).toBe("retry_later");
    // A withdrawal left the same way (as the transfer rail records Stripe's answer).
    const w = await creator("bank", 0);
    await env.DB.prepare(
      "insert into payouts (id, user_id, kind, amount_cents, method, stripe_account_id, status, period_year, period_month, last_error, next_retry_at) values (?, ?, 'withdrawal', 2600, 'bank', ?, 'processing', ?, ?, ?, ?)",
    )
      .bind(
        `w-${w.id}`,
        w.id,
        w.account,
        P.year,
        P.month,
        "StripeInvalidRequestError balance_insufficient (400): You have insufficient available funds",
        NOW + 60_000,
      )
      .run();

    const res = await call("/api/admin/payouts-waiting", { cookie: admin });
    expect(res.status).toBe(200);
    const view = await res.json<PayoutsWaitingView>();
    const { body: balance } = await standin<{ available: { amount: number }[]; pending: { amount: number }[] }>(
      "GET",
      "/v1/balance",
    );
    expect(view.platformBalance).toEqual({
      available: balance.available.reduce((s, b) => s + b.amount, 0) / 100,
      pending: balance.pending.reduce((s, b) => s + b.amount, 0) / 100,
    });
    const mine = view.payouts.filter((p) => p.userId === c.id || p.userId === w.id);
    expect(mine).toMatchObject([
      { payoutId: id, name: "Robin", amount: 40, kind: "monthly", what: expect.stringMatching(/^\w+ \d{4} payout$/) },
      { payoutId: `w-${w.id}`, amount: 26, kind: "withdrawal", what: "Withdrawal" },
    ]);
    expect(mine[0].reason).toMatch(
      /^Stripe refused the transfer: when it was tried, the platform's Stripe balance did not have the \$40\.00/,
    );
    expect(mine[0].reason).not.toMatch(/balance_insufficient/);
    expect(mine[0].nextRetryAt).not.toBeNull();

    // The next try goes through: nothing waits any more.
    expect(await sendPayout(deps(), id!, NOW)).toBe("paid");
    const after = await (await call("/api/admin/payouts-waiting", { cookie: admin })).json<PayoutsWaitingView>();
    expect(after.payouts.map((p) => p.payoutId)).not.toContain(id);
    // Admin only.
    expect((await call("/api/admin/payouts-waiting")).status).toBe(401);
  });
});

describe("each row's words match the money", () => {
  it("nothing available reads 'Nothing to pay' (or 'Paid this month' after a paid withdrawal); 'Below Minimum ($25)' only above zero; a failed payout's note in words; the address paid", async () => {
    // Sold $10 and refunded it: nothing available, nothing paid.
    const nothing = await creator("paypal", 1000);
    await env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, created_at) values (?, 'creator', ?, 'refund', -1000, ?)",
    )
      .bind(`refund:${nothing.id}`, nothing.id, NOW - DAY)
      .run();
    const withdrew = await creator("bank", 4000);
    await env.DB.batch([
      env.DB.prepare(
        "insert into payouts (id, user_id, kind, amount_cents, method, stripe_account_id, status, period_year, period_month, processed_at) values (?, ?, 'withdrawal', 4000, 'bank', ?, 'paid', ?, ?, ?)",
      ).bind(`wd-${withdrew.id}`, withdrew.id, withdrew.account, P.year, P.month, NOW - 1000),
      env.DB.prepare(
        "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id, created_at) values (?, 'creator', ?, 'payout', -4000, ?, ?)",
      ).bind(`payout:wd-${withdrew.id}`, withdrew.id, `wd-${withdrew.id}`, NOW - 1000),
    ]);
    const below = await creator("paypal", 1200);
    const failed = await creator("paypal", 4000);
    const failedId = await preparePayout(deps(), failed.id, P, NOW);
    const reason = "Your PayPal email bounced. Check it in your payout settings.";
    expect((await act(`/api/admin/payouts/${failedId}/mark-failed`, { reason })).status).toBe(200);
    const pending = await creator("paypal", 3000);
    const pendingId = await preparePayout(deps(), pending.id, P, NOW);

    const r = await list();
    expect(r[nothing.id]).toMatchObject({ status: "Nothing to pay", statusLabel: "Nothing to pay" });
    expect(r[withdrew.id]).toMatchObject({
      status: "Nothing to pay",
      statusLabel: PAID_THIS_MONTH,
      paidThisMonthAt: new Date(NOW - 1000).toISOString(),
    });
    expect(r[below.id]).toMatchObject({ status: "Below minimum", statusLabel: BELOW_MINIMUM, availableBalance: 12 });
    expect(r[failed.id].payout).toMatchObject({
      status: "failed",
      notes: `Marked failed by admin@apewall.test: ${reason}`,
    });
    expect(r[pending.id].payout).toMatchObject({
      id: pendingId,
      email: `pp-${pending.id}@example.com`,
      preparedAt: new Date(NOW).toISOString(),
    });
  });
});

describe("a hold means no money leaves", () => {
  it("a held creator's prepared transfer waits (no transfer) and goes out when released; the creator is emailed once when held and once when released", async () => {
    const c = await creator("bank", 5000);
    const id = await preparePayout(deps(), c.id, P, NOW);
    const hold = `/api/admin/creators/${c.id}/hold`;
    const [a, b] = await Promise.all([act(hold, { reason: "Checking a dispute" }), act(hold, { reason: "Again" })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const me = await signIn(c.email);
    expect(await (await call("/api/auth/user", { cookie: me })).json<CurrentUser>()).toMatchObject({
      payoutsHeld: true,
    });

    expect(await sendPayout(deps(), id!, NOW)).toBe("retry_later");
    expect(await transfersTo(c.account!)).toHaveLength(0);
    expect(await row("select status from payouts where id = ?", id)).toEqual({ status: "processing" });
    await expect.poll(() => mailsTo(c.email, "Your payouts are on hold"), { timeout: 10_000 }).toHaveLength(1);
    const held = (await mailsTo(c.email, "Your payouts are on hold"))[0];
    expect(held.text).toContain("a payout or withdrawal already prepared waits until the hold ends");
    expect(held.text).toContain("reply to this email or write to us at http://");
    expect(held.text).toContain("/feedback");
    expect(held.text).not.toContain("Checking a dispute");

    const release = `/api/admin/creators/${c.id}/release`;
    await Promise.all([act(release), act(release)]);
    // Released: the transfer that waited is sent at once, and paid.
    expect(await row("select status from payouts where id = ?", id)).toEqual({ status: "paid" });
    expect(await transfersTo(c.account!)).toMatchObject([{ amount: 5000 }]);
    await expect
      .poll(() => mailsTo(c.email, "Your payouts are no longer on hold"), { timeout: 10_000 })
      .toHaveLength(1);
    expect((await mailsTo(c.email, "Your payouts are no longer on hold"))[0].text).toContain("/feedback");
    expect(await (await call("/api/auth/user", { cookie: me })).json<CurrentUser>()).toMatchObject({
      payoutsHeld: false,
    });
    // A second hold is a new hold: emailed again.
    expect((await act(hold, { reason: "Once more" })).status).toBe(200);
    await expect.poll(() => mailsTo(c.email, "Your payouts are on hold"), { timeout: 10_000 }).toHaveLength(2);
  });

  it("a held creator's prepared manual payout waits: mark paid is 409 and 'Process All Payouts' does not mark it; released, it is marked paid", async () => {
    const c = await creator("paypal", 4000);
    const id = await preparePayout(deps(), c.id, P, NOW);
    expect((await act(`/api/admin/creators/${c.id}/hold`, { reason: "Checking" })).status).toBe(200);
    const refused = await act(`/api/admin/payouts/${id}/mark-paid`, { reference: "PP-1" });
    expect(refused.status).toBe(409);
    expect((await refused.json<{ message: string }>()).message).toMatch(/held/);
    expect(await markManualPaid(deps(), P, [id!], NOW)).toEqual([]);
    expect(await row("select status from payouts where id = ?", id)).toEqual({ status: "pending" });

    expect((await act(`/api/admin/creators/${c.id}/release`)).status).toBe(200);
    expect((await act(`/api/admin/payouts/${id}/mark-paid`, { reference: "PP-1" })).status).toBe(200);
    expect(await row("select status, reference from payouts where id = ?", id)).toEqual({
      status: "paid",
      reference: "PP-1",
    });
  });
});
