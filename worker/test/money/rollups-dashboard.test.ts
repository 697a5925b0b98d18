// The dashboard's calls read the rollups (docs/money.md "Rollups"), and answer what they answered
// when they summed the ledger and the purchases (./rollup-reference.ts): stats, the item list,
// analytics over 30 and 90 days, the balance at any moment; after taxed sales, an upsell and an
// order bump too. A creator's answers hold only their own rows.
import { describe, expect, it } from "vitest";
import { createDb } from "../../db/client";
import { creatorBalance } from "../../services/balances";
import { compareRollups } from "../../services/rollups";
import {
  call,
  checkout,
  contentForm,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  signIn,
  standin,
} from "../support/helpers";
import { accept, buy, funnelSetup, offer } from "../funnels/funnel-helpers";
import { taxedSale } from "../tax/tax-fixtures";
import { analyticsMeasures, itemFigures, ledgerBalance } from "./rollup-reference";

const DAY = 24 * 60 * 60 * 1000;

let seq = 0;
async function creator(price = "20") {
  const email = `rd${++seq}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price, accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  expect(res.status).toBe(201);
  return { id, cookie, itemId: (await res.json<{ id: string }>()).id };
}

async function sale(itemId: string) {
  const { paymentIntent } = await checkout(itemId);
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const purchaseId = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!
    .id;
  return { paymentIntent, purchaseId };
}

const get = async <T>(path: string, cookie: string) => {
  const res = await call(path, { cookie });
  expect(res.status, path).toBe(200);
  return res.json<T>();
};

type Stats = Record<string, number | string | null>;
type Item = { id: string; unlockCount: number; totalEarnings: number };
type Analytics = {
  from: string;
  totals: { checkouts: number; sales: number; revenue: number };
  byDay: { date: string; checkouts: number; sales: number; revenue: number }[];
  items: Record<string, number | string>[];
};

/** Every dashboard answer of `c` against the reference computed from the ledger and the purchases. */
async function expectAsBefore(c: { id: string; cookie: string }) {
  expect(await compareRollups(env.DB, c.id)).toEqual([]);
  const now = Date.now();
  const b = await ledgerBalance(c.id, now);
  const stats = await get<Stats>("/api/earnings/stats", c.cookie);
  expect(stats).toMatchObject({
    availableBalance: b.availableCents / 100,
    totalEarnings: b.totalEarningsCents / 100,
    pendingPayouts: b.pendingPayoutCents / 100,
    onHold: b.onHoldCents / 100,
    reserved: b.reservedCents / 100,
    paidOut: b.paidOutCents / 100,
    carriedNegative: b.carriedNegativeCents / 100,
    nextReleaseAt: b.nextReleaseAt?.toISOString() ?? null,
  });
  const figures = await itemFigures(c.id);
  expect(stats.totalUnlocks).toBe([...figures.unlocks.values()].reduce((a, n) => a + n, 0));
  // The balance at any moment: in the middle of a day, at midnight, in the past, at the next payout.
  const midnight = now - (now % DAY);
  for (const at of [now, midnight, midnight - 1, now - 3 * DAY, now - 40 * DAY, now + 35 * DAY])
    expect(await creatorBalance(createDb(env.DB), c.id, at), new Date(at).toISOString()).toEqual(
      await ledgerBalance(c.id, at),
    );
  for (const item of await get<Item[]>("/api/content", c.cookie)) {
    expect(item.unlockCount, item.id).toBe(figures.unlocks.get(item.id) ?? 0);
    expect(item.totalEarnings, item.id).toBe((figures.earned.get(item.id) ?? 0) / 100);
  }
  for (const days of [30, 90]) {
    const a = await get<Analytics>(`/api/analytics/stats?days=${days}`, c.cookie);
    const fromMs = Date.parse(`${a.from}T00:00:00Z`);
    const want = await analyticsMeasures(c.id, fromMs);
    const sum = (m: string, f: (r: (typeof want)[number]) => boolean = () => true) =>
      want.filter((r) => r.measure === m && f(r)).reduce((t, r) => t + Number(r.n), 0);
    for (const d of a.byDay) {
      const on = (r: { day: string }) => r.day === d.date;
      expect({ date: d.date, checkouts: d.checkouts, sales: d.sales, revenue: Math.round(d.revenue * 100) }).toEqual({
        date: d.date,
        checkouts: sum("c", on),
        sales: sum("s", on),
        revenue: sum("r", on),
      });
    }
    for (const it of a.items) {
      const of = (r: { content_id: string }) => r.content_id === it.contentId;
      expect(it, String(it.contentId)).toMatchObject({
        checkouts: sum("c", of),
        paidCheckouts: sum("k", of),
        sales: sum("s", of),
        bumpSales: sum("b", of),
        upsellSales: sum("f", of),
        revenue: sum("r", of) / 100,
      });
    }
  }
}

describe("the dashboard answers as it did before the rollups", () => {
  it("for a creator with seeded sales over 120 days, real sales, a refund and a sale still on hold", async () => {
    const c = await creator();
    expect((await postJson("/dev/seed-sales", { userId: c.id, sales: 400, days: 120 })).status).toBe(200);
    const a = await sale(c.itemId);
    const b = await sale(c.itemId);
    await sale(c.itemId);
    await standin("POST", "/v1/refunds", { payment_intent: a.paymentIntent, amount: "700" });
    expect((await deliver(await eventFor("charge.refunded", a.paymentIntent))).status).toBe(200);
    // One sale made three days ago (still on hold), one ten days ago (available).
    await env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
      .bind(3 * DAY, a.purchaseId)
      .run();
    await env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
      .bind(10 * DAY, b.purchaseId)
      .run();
    await expectAsBefore(c);
  });

  it("after a taxed sale and its refund, an upsell accepted after paying", async () => {
    const c = await creator("30");
    const taxed = await taxedSale(c.itemId);
    await standin("POST", "/v1/refunds", { payment_intent: taxed.paymentIntent, amount: "1000" });
    expect((await deliver(await eventFor("charge.refunded", taxed.paymentIntent))).status).toBe(200);
    await expectAsBefore(c);
    const f = await funnelSetup(`funnel${Math.random().toString(36).slice(2, 8)}@example.com`);
    const { buyerCookie, purchaseId } = await buy(f.mainId);
    expect((await offer(purchaseId, buyerCookie)).status).toBe(200);
    const accepted = await accept(purchaseId, f.upsell.id, buyerCookie);
    expect((await accepted.json<{ status: string }>()).status).toBe("paid");
    const fid = (await row<{ user_id: string }>("select user_id from content where id = ?", f.mainId))!.user_id;
    await expectAsBefore({ id: fid, cookie: f.cookie });
    expect(await compareRollups(env.DB)).toEqual([]);
  });
});

describe("a creator sees only their own rollups", () => {
  it("stats, items and analytics of one creator hold none of another's sales", async () => {
    const big = await creator();
    const small = await creator();
    expect((await postJson("/dev/seed-sales", { userId: big.id, sales: 60, days: 20 })).status).toBe(200);
    await sale(small.itemId);
    const stats = await get<Stats>("/api/earnings/stats", small.cookie);
    expect(stats).toMatchObject({ totalUnlocks: 1, totalEarnings: 16, onHold: 16 });
    const items = await get<Item[]>("/api/content", small.cookie);
    expect(items.map((i) => [i.id, i.unlockCount, i.totalEarnings])).toEqual([[small.itemId, 1, 16]]);
    const a = await get<Analytics>("/api/analytics/stats?days=30", small.cookie);
    expect(a.totals).toMatchObject({ checkouts: 1, sales: 1, revenue: 16 });
    expect(a.items.map((i) => i.contentId)).toEqual([small.itemId]);
    // The seeded creator's own: 60 sales, every 20th refunded.
    const bigStats = await get<Stats>("/api/earnings/stats", big.cookie);
    expect(bigStats).toMatchObject({ totalUnlocks: 57, totalEarnings: 57 * 8 });
    await expectAsBefore(big);
    await expectAsBefore(small);
  });
});
