// "Withdraw now" (POST /api/payout/withdraw): each refusal in the creator's terms, one withdrawal for
// two presses at once, never the same cents as the monthly run, a failed transfer booked back, and
// the money timeline's withdrawal and skip entries. Transfers go to the Stripe stand-in. The press
// answers with the withdrawal pending; its send Workflow (PAYOUT_SEND, workerd's local engine) pays
// it moments later, so each test waits for that instance as the caller would wait for the status.
import { introspectWorkflow, type WorkflowIntrospector } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { WITHDRAW_MESSAGES } from "../../../shared/payouts";
import type { PayoutHistoryItem, WithdrawStatus } from "../../../shared/payouts";
import type { TimelinePage } from "../../../shared/earnings";
import { createDb } from "../../db/client";
import { creatorBalance } from "../../services/balances";
import { closingPeriod } from "../../services/payouts/period";
import { preparePage } from "../../services/payouts/prepare";
import { payoutDeps } from "../../deps";
import { withdraw } from "../../services/payouts/withdraw-now";
import { startPayoutSends } from "../../workflows/payout-send";
import { call, connectedAccount, env, outbox, postJson, row, rows, signIn, standin } from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;
const deps = () => payoutDeps(env as never);

let seq = 0;
/** A signed-in creator: bank connected and enabled, connected but restricted, or nothing set up. */
async function creator(kind: "bank" | "restricted" | "none", opts: { held?: boolean } = {}) {
  const email = `wd${++seq}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  const acct = kind === "none" ? "" : await connectedAccount();
  if (kind !== "none")
    await env.DB.prepare(
      "insert into payout_settings (user_id, stripe_account_id, connect_details_submitted, connect_payouts_enabled, held_at, held_reason) values (?, ?, 1, ?, ?, ?)",
    )
      .bind(id, acct, kind === "bank" ? 1 : 0, opts.held ? Date.now() : null, opts.held ? "Checking a dispute" : null)
      .run();
  return { id, email, cookie, acct };
}

/** A $`cents/100` sale `daysAgo` days ago, booked as fulfil writes it (creator 80%). */
async function sale(userId: string, cents: number, daysAgo = 10) {
  const pid = `p${++seq}${Math.random().toString(36).slice(2, 8)}`;
  const itemId = `item_${userId}`.slice(0, 30);
  const at = Date.now() - daysAgo * DAY;
  const share = cents - Math.round(cents * 0.2);
  await env.DB.batch([
    env.DB.prepare("insert or ignore into content (id, user_id, title, price_cents) values (?, ?, 'Guide', ?)").bind(
      itemId,
      userId,
      cents,
    ),
    env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, status, paid_at, created_at) values (?, ?, ?, 'b@example.com', ?, 'paid', ?, ?)",
    ).bind(pid, itemId, userId, cents, at, at),
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'creator', ?, 'sale', ?, ?, ?)",
    ).bind(`sale:${pid}:creator`, userId, share, pid, at),
  ]);
  return pid;
}

const press = (cookie?: string) => postJson("/api/payout/withdraw", {}, cookie);
const statusOf = async (cookie: string) => (await call("/api/payout/withdraw", { cookie })).json<WithdrawStatus>();
const withdrawalsOf = (userId: string) =>
  rows<{ id: string; amount_cents: number; status: string; kind: string; notes: string | null }>(
    "select * from payouts where user_id = ? order by created_at",
    userId,
  );
const payoutLedger = (userId: string) =>
  rows<{ kind: string; amount_cents: number; payout_id: string }>(
    "select kind, amount_cents, payout_id from ledger_entries where user_id = ? and kind in ('payout', 'payout_reversal') order by id",
    userId,
  );
const mailsFor = (payoutId: string) =>
  rows<{ id: string }>("select id from outbox_emails where id like ? order by id", `%:${payoutId}`);
/**
 * Runs `fn` with every send Workflow instance it starts watched; with `settle`, waits for each to
 * complete. The introspector lives until the end (disposing removes the local instances, so one left
 * waiting for a retry after an outage never fires after the test).
 */
async function withSends<T>(fn: (settle: () => Promise<void>, sends: WorkflowIntrospector) => Promise<T>): Promise<T> {
  const sends = await introspectWorkflow(env.PAYOUT_SEND);
  try {
    return await fn(async () => {
      for (const s of await sends.get()) await s.waitForStatus("complete");
    }, sends);
  } finally {
    await sends.dispose();
  }
}
const until = <T>(fn: () => Promise<T | undefined | false>) => vi.waitUntil(fn, { timeout: 15_000, interval: 100 });
const OPEN = ["pending", "processing"];
/** Waits until Stripe answered the send's attempt with a transient error: processing, next retry set. */
const retrying = (payoutId: string) =>
  until(
    async () =>
      !!(await row<{ n: number }>(
        "select 1 as n from payouts where id = ? and status = 'processing' and next_retry_at is not null",
        payoutId,
      )),
  );

async function transfersTo(acct: string) {
  const { body } = await standin<{
    data: { id: string; amount: number; transfer_group: string; metadata: Record<string, string> }[];
  }>("GET", "/v1/transfers", { destination: acct, limit: "100" });
  return body.data;
}

describe("withdraw now: refusals", () => {
  it("refuses, in the creator's terms and with a 4xx, when signed out, no bank is connected, Stripe cannot transfer yet, payouts are held, the balance is below $25, or a withdrawal is open", async () => {
    expect((await press()).status).toBe(401);

    const cases = [
      [await creator("none"), 400, "no_bank"],
      [await creator("restricted"), 400, "bank_restricted"],
      [await creator("bank", { held: true }), 403, "held"],
    ] as const;
    for (const [c, status, block] of cases) {
      await sale(c.id, 10000);
      expect((await statusOf(c.cookie)).blockedBy).toBe(block);
      const res = await press(c.cookie);
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ message: WITHDRAW_MESSAGES[block] });
      expect(await withdrawalsOf(c.id)).toEqual([]);
    }

    const small = await creator("bank");
    await sale(small.id, 3000); // $24 available
    await sale(small.id, 5000, 2); // still on hold
    expect(await statusOf(small.cookie)).toMatchObject({ available: 24, blockedBy: "below_minimum", latest: null });
    const res = await press(small.cookie);
    expect([res.status, await res.json()]).toEqual([400, { message: WITHDRAW_MESSAGES.below_minimum }]);

    // Open: Stripe had an outage, so the first withdrawal waits for its send's retry (a minute away).
    await withSends(async () => {
      const open = await creator("bank");
      await sale(open.id, 5000);
      await standin("POST", "/_standin/transfers/fail_next", { destination: open.acct, code: "api_error" });
      const first = await press(open.cookie);
      expect(first.status).toBe(200);
      const w = await first.json<PayoutHistoryItem>();
      expect(w).toMatchObject({ kind: "withdrawal", amount: 40 });
      expect(OPEN).toContain(w.status);
      await retrying(w.id);
      await sale(open.id, 5000);
      const again = await press(open.cookie);
      expect([again.status, await again.json()]).toEqual([409, { message: WITHDRAW_MESSAGES.open }]);
      expect(await statusOf(open.cookie)).toMatchObject({
        available: 40,
        blockedBy: "open",
        latest: { id: w.id, status: "processing", amount: 40 },
      });
      // A body is never an amount: the ledger decides.
      expect((await postJson("/api/payout/withdraw", { amount: 1 }, open.cookie)).status).toBe(400);
      expect(await withdrawalsOf(open.id)).toHaveLength(1);
    });
  });
});

describe("withdraw now", () => {
  it("books one payout, one ledger row and its emails, and ends paid with one transfer of its own transfer_group", async () => {
    const c = await creator("bank");
    await sale(c.id, 5000);
    await sale(c.id, 2500, 20);
    await sale(c.id, 1000, 1); // on hold: stays
    expect(await statusOf(c.cookie)).toMatchObject({ available: 60, blockedBy: null });

    const w = await withSends(async (settle) => {
      const res = await press(c.cookie);
      expect(res.status).toBe(200);
      const answer = await res.json<PayoutHistoryItem>();
      // The answer is the withdrawal as it stands: on its way (its send Workflow pays it).
      expect(answer).toMatchObject({ kind: "withdrawal", amount: 60, payoutMethod: "bank" });
      expect([...OPEN, "paid"]).toContain(answer.status);
      await settle();
      return answer;
    });

    expect(await withdrawalsOf(c.id)).toMatchObject([
      { id: w.id, kind: "withdrawal", status: "paid", amount_cents: 6000 },
    ]);
    expect(await payoutLedger(c.id)).toEqual([{ kind: "payout", amount_cents: -6000, payout_id: w.id }]);
    expect((await mailsFor(w.id)).map((m) => m.id)).toEqual([`payout-paid:${w.id}`, `payout-prepared:${w.id}`]);
    const transfers = await transfersTo(c.acct);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({
      amount: 6000,
      transfer_group: `withdrawal-${w.id}`,
      metadata: { payout_id: w.id },
    });
    expect(await creatorBalance(createDb(env.DB), c.id)).toMatchObject({
      availableCents: 0,
      onHoldCents: 800,
      paidOutCents: 6000,
    });
    expect(await statusOf(c.cookie)).toMatchObject({
      available: 0,
      blockedBy: "below_minimum",
      latest: { id: w.id, status: "paid" },
    });
    // The emails name it a withdrawal, not a month's payout.
    const subjects = await vi.waitUntil(
      async () => {
        const mine = (await outbox()).filter((m) => m.to === c.email).map((m) => m.subject);
        return mine.length >= 3 ? mine : undefined;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(subjects).toEqual(
      expect.arrayContaining(["Your withdrawal of $60.00 is on its way", "Your withdrawal of $60.00 was sent"]),
    );
  });

  it("two presses at once make one withdrawal", async () => {
    const c = await creator("bank");
    await sale(c.id, 5000);
    await withSends(async (settle) => {
      const answers = await Promise.all([press(c.cookie), press(c.cookie)]);
      // The other is refused: 409 while the first is open, or 400 once the first has taken everything.
      const [ok, refused] = answers.map((r) => r.status).sort();
      expect(ok).toBe(200);
      expect([400, 409]).toContain(refused);
      await settle();
    });
    expect(await withdrawalsOf(c.id)).toMatchObject([{ status: "paid", amount_cents: 4000 }]);
    expect(await payoutLedger(c.id)).toHaveLength(1);
    expect(await transfersTo(c.acct)).toHaveLength(1);
  });

  it("a withdrawal and the monthly prepare at the same moment never take the same cents", async () => {
    for (const withdrawalFirst of [true, false]) {
      const c = await creator("bank");
      await sale(c.id, 5000);
      await sale(c.id, 5000, 15);
      const now = Date.now();
      const available = (await creatorBalance(createDb(env.DB), c.id, now)).availableCents;
      await withSends(async (settle) => {
        const w = () => withdraw(deps(), c.id, now).catch((err: Error) => err);
        // The run's prepare step, on a page of this creator alone (keyset after a prefix of their id).
        const m = async () =>
          expect((await preparePage(deps(), closingPeriod(now), now, c.id.slice(0, -1), 1)).creators).toBe(1);
        await Promise.all(withdrawalFirst ? [w(), m()] : [m(), w()]);
        // A withdrawal asked a moment earlier than the run's clock, arriving after it: nothing left to take.
        await withdraw(deps(), c.id, now - 1000).catch(() => null);
        await settle();
      });
      const taken = -(await payoutLedger(c.id)).reduce((s, r) => s + r.amount_cents, 0);
      expect(taken).toBe(available);
      expect(await withdrawalsOf(c.id)).toHaveLength(1);
    }
  });

  it("a transfer Stripe refuses for the destination fails it, books the money back, and a new withdrawal can be made", async () => {
    const c = await creator("bank");
    await sale(c.id, 5000);
    await standin("POST", "/_standin/transfers/fail_next", {
      destination: c.acct,
      code: "insufficient_capabilities_for_transfer",
    });
    const failed = await withSends(async (settle) => {
      const answer = await (await press(c.cookie)).json<PayoutHistoryItem>();
      await settle();
      const latest = (await statusOf(c.cookie)).latest!;
      expect(latest.id).toBe(answer.id);
      return latest;
    });
    expect(failed).toMatchObject({ kind: "withdrawal", status: "failed", amount: 40 });
    expect(failed.notes).toMatch(/finish setting up your bank account/);
    expect(await payoutLedger(c.id)).toEqual([
      { kind: "payout", amount_cents: -4000, payout_id: failed.id },
      { kind: "payout_reversal", amount_cents: 4000, payout_id: failed.id },
    ]);
    expect((await mailsFor(failed.id)).map((m) => m.id)).toEqual([
      `payout-failed:${failed.id}`,
      `payout-prepared:${failed.id}`,
    ]);
    expect(await statusOf(c.cookie)).toMatchObject({
      available: 40,
      blockedBy: null,
      latest: { id: failed.id, status: "failed" },
    });

    const second = await withSends(async (settle) => {
      const answer = await (await press(c.cookie)).json<PayoutHistoryItem>();
      await settle();
      return answer;
    });
    expect(await statusOf(c.cookie)).toMatchObject({ latest: { id: second.id, status: "paid", amount: 40 } });
    expect(second.id).not.toBe(failed.id);
    expect((await transfersTo(c.acct)).map((t) => t.amount)).toEqual([4000]);
  });
});

describe("the money timeline explains every cent", () => {
  it("shows a withdrawal with its status and the months the run skipped, with why and what carries over", async () => {
    const c = await creator("bank");
    const withdrawn = await sale(c.id, 5000, 30);
    await env.DB.prepare(
      "insert into payout_skips (id, user_id, period_year, period_month, reason, amount_cents, created_at) values (?, ?, 2026, 10, 'below_minimum', 1240, ?)",
    )
      .bind(`skip_${c.id}`.slice(0, 30), c.id, Date.now() - 25 * DAY)
      .run();
    await standin("POST", "/_standin/transfers/fail_next", { destination: c.acct, code: "api_error" });
    const { w, page } = await withSends(async (_settle, sends) => {
      const w = await (await press(c.cookie)).json<PayoutHistoryItem>();
      // Stripe's outage: the send's first attempt is answered with a 500; it stays processing, its retry a minute away.
      await retrying(w.id);
      const open = await (await call("/api/earnings/timeline", { cookie: c.cookie })).json<TimelinePage>();
      expect(open.items).toMatchObject([{ purchaseId: withdrawn, state: { kind: "in_withdrawal", payoutId: w.id } }]);
      expect(open.events).toMatchObject([
        { kind: "payout", payoutKind: "withdrawal", id: w.id, status: "processing", amount: 40, paidAt: null },
        { kind: "skip", reason: "below_minimum", month: "October 2026", amount: 12.4 },
      ]);

      // Stripe answers again: a send of the same payout (here the daily sweep's re-drive) marks it paid.
      // (The first instance still waits for its retry; disposing the introspector removes it.)
      await startPayoutSends(env.PAYOUT_SEND, [w.id], "redrive");
      expect(await sends.get()).toHaveLength(2);
      await until(async () => (await statusOf(c.cookie)).latest?.status === "paid");
      expect(await transfersTo(c.acct)).toHaveLength(1);
      return { w, page: await (await call("/api/earnings/timeline", { cookie: c.cookie })).json<TimelinePage>() };
    });
    expect(page.items[0].state).toMatchObject({ kind: "paid", payoutId: w.id });
    expect(page.events[0]).toMatchObject({ kind: "payout", payoutKind: "withdrawal", status: "paid" });
    expect(page.events[0].kind === "payout" && page.events[0].paidAt).toBeTruthy();

    // Paged one sale at a time, the events land on the page whose sales surround them, each once.
    const other = await creator("bank");
    await sale(other.id, 1000, 40);
    await env.DB.prepare(
      "insert into payout_skips (id, user_id, period_year, period_month, reason, amount_cents, created_at) values (?, ?, 2026, 9, 'not_set_up', 800, ?)",
    )
      .bind(`skip2_${other.id}`.slice(0, 30), other.id, Date.now() - 35 * DAY)
      .run();
    await sale(other.id, 1000, 20);
    const first = await (await call("/api/earnings/timeline?limit=1", { cookie: other.cookie })).json<TimelinePage>();
    const second = await (
      await call(`/api/earnings/timeline?limit=1&cursor=${first.nextCursor}`, { cookie: other.cookie })
    ).json<TimelinePage>();
    expect(first.events).toEqual([]);
    expect(second.events).toMatchObject([{ kind: "skip", reason: "not_set_up", amount: 8 }]);
  });
});
