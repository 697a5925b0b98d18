// The dashboard's answers from the rollups (docs/money.md "Rollups") equal the pre-rollup statements
// (./rollup-reference.ts) at their edges: a creator with no sales, one whose only rows in the window
// are refunds, sales exactly at the first midnight of the 30- and 90-day windows and a millisecond
// before it, at the last millisecond of today and at tomorrow's midnight, a paywall sale, a bump
// and a funnel step.
import { describe, expect, it } from "vitest";
import { createDb } from "../../db/client";
import { analyticsStats } from "../../services/analytics";
import { creatorBalance } from "../../services/balances";
import { listCreatorContent } from "../../services/content";
import { earningsStats } from "../../services/earnings";
import { compareRollups } from "../../services/rollups";
import { contentForm, env, postForm, row, signIn } from "../support/helpers";
import { analyticsMeasures, itemFigures, ledgerBalance } from "./rollup-reference";

const DAY = 24 * 60 * 60 * 1000;
const TODAY = Date.UTC(2026, 10, 20);
const NOW = TODAY + 15 * 3_600_000;

let seq = 0;
const uid = () => `rea${++seq}${Math.random().toString(36).slice(2, 8)}`;

async function creator() {
  const email = `${uid()}@example.com`;
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price: "20", accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  expect(res.status).toBe(201);
  return { id, itemId: (await res.json<{ id: string }>()).id };
}

type Kind = "paywall" | "bump" | "step";
/** A paid $20 sale at `at` (checkout a minute before) with its $16 creator row; `refundAt`: fully refunded then. */
async function sale(c: { id: string; itemId: string }, at: number, kind: Kind = "paywall", refundAt?: number) {
  const id = uid();
  const stmts = [
    env.DB.prepare(
      `insert into purchases (id, content_id, creator_id, amount_cents, status, buyer_key_hash, funnel_step_id, bump_of, paid_at, created_at)
       values (?, ?, ?, 2000, ?, ?, ?, ?, ?, ?)`,
    ).bind(
      id,
      c.itemId,
      c.id,
      refundAt ? "refunded" : "paid",
      uid(),
      kind === "step" ? "step" : null,
      kind === "bump" ? "main" : null,
      at,
      at - 60_000,
    ),
    ledger(c, id, "sale", 1600, at),
  ];
  if (refundAt) stmts.push(ledger(c, id, "refund", -1600, refundAt));
  await env.DB.batch(stmts);
  return id;
}

const ledger = (c: { id: string; itemId: string }, purchaseId: string, kind: string, cents: number, at: number) =>
  env.DB.prepare(
    `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id, created_at)
     values (?, 'creator', ?, ?, ?, ?, ?, ?)`,
  ).bind(`${kind}:${purchaseId}:creator`, c.id, kind, cents, purchaseId, c.itemId, at);

async function expectAsBefore(userId: string) {
  const db = createDb(env.DB);
  expect(await compareRollups(env.DB, userId)).toEqual([]);
  const b = await ledgerBalance(userId, NOW);
  expect(await creatorBalance(db, userId, NOW)).toEqual(b);
  const figures = await itemFigures(userId);
  const stats = await earningsStats(db, userId, NOW);
  expect(stats).toMatchObject({
    availableBalance: b.availableCents / 100,
    totalEarnings: b.totalEarningsCents / 100,
    totalUnlocks: [...figures.unlocks.values()].reduce((a, n) => a + n, 0),
  });
  for (const item of await listCreatorContent(db, userId)) {
    expect(item.unlockCount, item.id).toBe(figures.unlocks.get(item.id) ?? 0);
    expect(item.totalEarnings, item.id).toBe((figures.earned.get(item.id) ?? 0) / 100);
  }
  const answers = [];
  for (const days of [30, 90]) {
    const a = await analyticsStats(db, userId, { days }, NOW);
    const fromMs = TODAY - (days - 1) * DAY;
    expect(a.from).toBe(new Date(fromMs).toISOString().slice(0, 10));
    expect(a.byDay.map((d) => d.date)).toEqual(
      Array.from({ length: days }, (_, i) => new Date(fromMs + i * DAY).toISOString().slice(0, 10)),
    );
    const want = await analyticsMeasures(userId, fromMs);
    const sum = (m: string, f: (r: (typeof want)[number]) => boolean = () => true) =>
      want.filter((r) => r.measure === m && f(r)).reduce((t, r) => t + Number(r.n), 0);
    const inWindow = (r: { day: string }) => r.day <= a.byDay.at(-1)!.date;
    for (const d of a.byDay) {
      const on = (r: { day: string }) => r.day === d.date;
      expect({ date: d.date, checkouts: d.checkouts, sales: d.sales, revenue: Math.round(d.revenue * 100) }).toEqual({
        date: d.date,
        checkouts: sum("c", on),
        sales: sum("s", on),
        revenue: sum("r", on),
      });
    }
    expect(a.totals).toMatchObject({
      checkouts: sum("c", inWindow),
      sales: sum("s", inWindow),
      revenue: sum("r", inWindow) / 100,
    });
    for (const it of a.items) {
      const of = (r: { content_id: string }) => r.content_id === it.contentId;
      expect(it, it.contentId).toMatchObject({
        checkouts: sum("c", of),
        paidCheckouts: sum("k", of),
        sales: sum("s", of),
        bumpSales: sum("b", of),
        upsellSales: sum("f", of),
        revenue: sum("r", of) / 100,
      });
    }
    answers.push(a);
  }
  return { stats, answers };
}

describe("the dashboard's answers at their edges", () => {
  it("a creator with no sales: zeros everywhere", async () => {
    const c = await creator();
    const { stats, answers } = await expectAsBefore(c.id);
    expect(stats).toMatchObject({ availableBalance: 0, totalEarnings: 0, totalUnlocks: 0 });
    for (const a of answers) expect(a.totals).toMatchObject({ checkouts: 0, sales: 0, revenue: 0 });
  });

  it("a creator whose window holds only refunds of older sales", async () => {
    const c = await creator();
    await sale(c, TODAY - 120 * DAY, "paywall", TODAY - DAY);
    await sale(c, TODAY - 100 * DAY, "paywall", TODAY);
    const { stats, answers } = await expectAsBefore(c.id);
    expect(stats).toMatchObject({ totalEarnings: 0, totalUnlocks: 0 });
    expect(answers[0]!.totals).toMatchObject({ sales: 0, revenue: -32 });
  });

  it("sales at each window's first midnight and a millisecond before, at today's last millisecond and tomorrow's midnight", async () => {
    const c = await creator();
    for (const days of [30, 90]) {
      const from = TODAY - (days - 1) * DAY;
      await sale(c, from - 1);
      await sale(c, from);
      await sale(c, from, "bump");
      await sale(c, from + 60_000, "step", from + DAY);
    }
    await sale(c, TODAY);
    await sale(c, TODAY + DAY - 1, "bump");
    await sale(c, TODAY + DAY);
    const { answers } = await expectAsBefore(c.id);
    const [a30, a90] = answers;
    // The first day holds the sales paid at its midnight, not the one a millisecond before.
    expect(a30!.byDay[0]!.sales).toBe(3);
    expect(a90!.byDay[0]!.sales).toBe(3);
    expect(a30!.byDay.at(-1)!.sales).toBe(2);
  });
});
