// The admin screen says what is true, and the admin's actions on one payout: each creator row's
// status (the seven words), and mark paid / mark failed / hold / release / re-send, each audited,
// each safe to press twice or at once, refused with 403 / 400 / 404 / 409 as it should be.
import { beforeAll, describe, expect, it } from "vitest";
import { BELOW_MINIMUM, READY_FOR_PAYOUT, type AdminCreatorPayoutRow, type CreatorHoldResult, type PayoutActionResult } from "../../shared/admin";
import { closingPeriod, payoutDeps, runPayouts } from "../services/payouts";
import { call, connectedAccount, env, outbox, postJson, row, rows, signIn, standin } from "./helpers";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.now();
const P = closingPeriod(NOW);

let seq = 0;
/** A creator with a fresh id, their payout method, and `cents` of sales old enough to be available. */
async function creator(kind: "bank" | "paypal" | "none", cents: number): Promise<{ id: string; account: string | null }> {
  const id = `pa${++seq}${Math.random().toString(36).slice(2, 8)}`;
  await env.DB.prepare("insert into users (id, email) values (?, ?)").bind(id, `${id}@example.com`).run();
  let account: string | null = null;
  if (kind === "bank") {
    account = await connectedAccount();
    await env.DB.prepare("insert into payout_settings (user_id, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, ?, 1, 1)").bind(id, account).run();
  }
  if (kind === "paypal") await env.DB.prepare("insert into payout_settings (user_id, method, email) values (?, 'paypal', ?)").bind(id, `pp-${id}@example.com`).run();
  if (cents)
    await env.DB.prepare("insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, created_at) values (?, 'creator', ?, 'sale', ?, ?)")
      .bind(`sale:${id}`, id, cents, NOW - 10 * DAY)
      .run();
  return { id, account };
}

/** A payout of the period in the given state, written as the run and sendPayout leave it (with its ledger row). */
async function payoutIn(userId: string, status: "pending" | "processing" | "paid" | "failed", cents: number, extra: { account?: string; nextRetryAt?: number; lastError?: string } = {}) {
  const id = `po_${userId}_${status}`;
  await env.DB.batch([
    env.DB.prepare(
      "insert into payouts (id, user_id, amount_cents, method, email, stripe_account_id, status, period_year, period_month, next_retry_at, last_error, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ).bind(id, userId, cents, extra.account ? "bank" : "paypal", extra.account ? null : "pp@example.com", extra.account ?? null, status, P.year, P.month, extra.nextRetryAt ?? null, extra.lastError ?? null, NOW - DAY),
    env.DB.prepare("insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id, created_at) values (?, 'creator', ?, 'payout', ?, ?, ?)").bind(`payout:${id}`, userId, -cents, id, NOW - DAY),
    ...(status === "failed"
      ? [env.DB.prepare("insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id, created_at) values (?, 'creator', ?, 'payout_reversal', ?, ?, ?)").bind(`payout-reversal:${id}`, userId, cents, id, NOW - DAY)]
      : []),
  ]);
  return id;
}

let admin: string;
let someone: string;
beforeAll(async () => {
  admin = await signIn("admin@apewall.test");
  someone = await signIn("not-admin-payouts@example.com");
});

async function list(): Promise<Record<string, AdminCreatorPayoutRow>> {
  const res = await call(`/api/admin/creator-payouts?month=${P.month}&year=${P.year}`, { cookie: admin });
  expect(res.status).toBe(200);
  return Object.fromEntries((await res.json<AdminCreatorPayoutRow[]>()).map((r) => [r.userId, r]));
}

describe("each creator row's status is true", () => {
  it("a paid creator reads Paid (not 'Below Minimum ($25)'), and a creator with $286 and no payout method reads Not set up", async () => {
    const paid = await creator("paypal", 6240);
    await payoutIn(paid.id, "paid", 6240);
    const unset = await creator("none", 28600);
    const rowsNow = await list();
    expect(rowsNow[paid.id]).toMatchObject({ status: "Paid", statusLabel: "Paid", availableBalance: 0, payout: { amount: 62.4, status: "paid" } });
    expect(rowsNow[unset.id]).toMatchObject({ status: "Not set up", statusLabel: "Not set up", availableBalance: 286, payoutSetUp: false, payout: null });
  });

  it("each of the seven: Paid, Pending, Retrying, Failed, Held, Not set up, Below minimum; the spec's words where they are true", async () => {
    const paid = await creator("paypal", 4000);
    await payoutIn(paid.id, "paid", 4000);
    const pending = await creator("paypal", 4000);
    await payoutIn(pending.id, "pending", 4000);
    const ready = await creator("paypal", 3000);
    const retrying = await creator("bank", 5000);
    await payoutIn(retrying.id, "processing", 5000, { account: retrying.account!, nextRetryAt: NOW + 60_000, lastError: "StripeAPIError api_error (500): boom" });
    const sending = await creator("bank", 5000);
    await payoutIn(sending.id, "processing", 5000, { account: sending.account! });
    const failed = await creator("paypal", 4500);
    await payoutIn(failed.id, "failed", 4500);
    const held = await creator("paypal", 9000);
    await env.DB.prepare("update payout_settings set held_at = ?, held_reason = 'Checking a dispute' where user_id = ?").bind(NOW, held.id).run();
    const notSetUp = await creator("none", 5000);
    const below = await creator("paypal", 1000);
    const belowUnset = await creator("none", 1000);

    const r = await list();
    expect(r[paid.id]).toMatchObject({ status: "Paid", statusLabel: "Paid" });
    expect(r[pending.id]).toMatchObject({ status: "Pending", statusLabel: "Pending", payout: { status: "pending", byTransfer: false } });
    expect(r[ready.id]).toMatchObject({ status: "Pending", statusLabel: READY_FOR_PAYOUT, payout: null });
    expect(r[retrying.id]).toMatchObject({ status: "Retrying", statusLabel: "Retrying", payout: { status: "processing", byTransfer: true, lastError: expect.stringContaining("api_error"), nextRetryAt: new Date(NOW + 60_000).toISOString() } });
    expect(r[sending.id]).toMatchObject({ status: "Pending", payout: { status: "processing" } });
    expect(r[failed.id]).toMatchObject({ status: "Failed", statusLabel: "Failed", availableBalance: 45, payout: { status: "failed" } });
    expect(r[held.id]).toMatchObject({ status: "Held", statusLabel: "Held", held: { reason: "Checking a dispute", at: new Date(NOW).toISOString() } });
    expect(r[notSetUp.id]).toMatchObject({ status: "Not set up", statusLabel: "Not set up" });
    expect(r[below.id]).toMatchObject({ status: "Below minimum", statusLabel: BELOW_MINIMUM });
    expect(r[belowUnset.id]).toMatchObject({ status: "Below minimum", statusLabel: BELOW_MINIMUM });
  });

  it("the CSV's status column agrees with the list: a transfer Stripe has not settled reads retrying", async () => {
    const retrying = await creator("bank", 5000);
    const id = await payoutIn(retrying.id, "processing", 5000, { account: retrying.account!, nextRetryAt: NOW + 60_000, lastError: "api_error" });
    const csv = await (await call(`/api/admin/export-payouts?month=${P.month}&year=${P.year}`, { cookie: admin })).text();
    const line = csv.split("\r\n").find((l) => l.startsWith(`${id},`))!;
    expect(line.split(",")[8]).toBe("retrying");
  });
});
