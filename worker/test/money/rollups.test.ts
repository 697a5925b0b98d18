// The dashboard's rollups (ledger_daily, sales_daily; docs/money.md "Rollups") against their
// recomputation from the ledger and the purchases, after each thing the real services book: sales,
// partial and full refunds, disputes won and lost, a withdrawal; a webhook delivered twice or two at
// once adds nothing more; a tampered rollup is reported by compare and put right by rebuild; and
// the EXPLAIN QUERY PLAN of the dashboard's statements scans no large table.
import { describe, expect, it } from "vitest";
import { compareRollups } from "../../services/rollups";
import {
  call,
  checkout,
  connectedAccount,
  contentForm,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
} from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;

let seq = 0;
/** A creator with a bank Stripe can pay, selling one $50 item. */
async function creator() {
  const email = `ru${++seq}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  await env.DB.prepare(
    "insert into payout_settings (user_id, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, ?, 1, 1)",
  )
    .bind(id, await connectedAccount())
    .run();
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price: "50", accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  expect(res.status).toBe(201);
  return { id, cookie, itemId: (await res.json<{ id: string }>()).id };
}

/** A paid sale (payment_intent.succeeded delivered): its PaymentIntent, charge and purchase. */
async function sale(itemId: string) {
  const { paymentIntent } = await checkout(itemId);
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
    .latest_charge;
  const purchaseId = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!
    .id;
  return { paymentIntent, charge, purchaseId };
}

async function refund(paymentIntent: string, amount?: number) {
  await standin("POST", "/v1/refunds", {
    payment_intent: paymentIntent,
    ...(amount ? { amount: String(amount) } : {}),
  });
  expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
}

/** A chargeback on the charge, closed won or lost at Stripe, and its events delivered. */
async function dispute(charge: string, outcome: "won" | "lost") {
  const d = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
  await deliver(await eventFor("charge.dispute.created", d.body.id));
  await deliver(await eventFor("charge.dispute.funds_withdrawn", d.body.id));
  await standin("POST", `/_standin/disputes/${d.body.id}/close`, { outcome });
  if (outcome === "won") await deliver(await eventFor("charge.dispute.funds_reinstated", d.body.id));
  await deliver(await eventFor("charge.dispute.closed", d.body.id));
}

const agree = async () => expect(await compareRollups(env.DB)).toEqual([]);
const snapshot = async () => ({
  ledger: await rows("select * from ledger_daily order by user_id, day, content_id, kind"),
  sales: await rows("select * from sales_daily order by creator_id, day, content_id"),
});

describe("rollups equal the ledger and the purchases they sum", () => {
  it("after sales, a partial then a full refund, a dispute won and one lost, and a withdrawal", async () => {
    const c = await creator();
    await agree();
    const a = await sale(c.itemId);
    const b = await sale(c.itemId);
    const d = await sale(c.itemId);
    const e = await sale(c.itemId);
    await agree();
    await refund(a.paymentIntent, 300);
    await agree();
    await refund(a.paymentIntent);
    await agree();
    await dispute(b.charge, "won");
    await agree();
    await dispute(d.charge, "lost");
    await agree();
    // Past the hold (as /dev/ledger/age-sale moves it: an update of the ledger rows), then withdrawn.
    await env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
      .bind(10 * DAY, e.purchaseId)
      .run();
    await agree();
    expect((await postJson("/api/payout/withdraw", {}, c.cookie)).status).toBe(200);
    expect(await row("select 1 from ledger_entries where user_id = ? and kind = 'payout'", c.id)).not.toBeNull();
    await agree();
    const stats = await (await call("/api/earnings/stats", { cookie: c.cookie })).json<Record<string, number>>();
    // Four $50 sales at 80%: a refunded in full, d lost; b (won) and e stand.
    expect(stats.totalEarnings).toBe(80);
    expect(stats.totalUnlocks).toBe(
      (await row<{ n: number }>("select count(*) as n from purchases where creator_id = ? and status = 'paid'", c.id))!
        .n,
    );
  });

  it("a webhook delivered twice, or two at once, adds nothing more", async () => {
    const c = await creator();
    const { paymentIntent } = await checkout(c.itemId);
    const succeeded = await eventFor("payment_intent.succeeded", paymentIntent);
    const twice = await Promise.all([deliver(succeeded), deliver(succeeded)]);
    expect(twice.map((r) => r.status)).toEqual([200, 200]);
    const once = await snapshot();
    expect((await deliver(succeeded)).status).toBe(200);
    expect(await snapshot()).toEqual(once);
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount: "500" });
    const refunded = await eventFor("charge.refunded", paymentIntent);
    await Promise.all([deliver(refunded), deliver(refunded)]);
    const after = await snapshot();
    await deliver(refunded);
    expect(await snapshot()).toEqual(after);
    await agree();
    // Two different sales at once.
    const [x, y] = await Promise.all([checkout(c.itemId), checkout(c.itemId)]);
    await Promise.all([
      deliver(await eventFor("payment_intent.succeeded", x.paymentIntent)),
      deliver(await eventFor("payment_intent.succeeded", y.paymentIntent)),
    ]);
    await agree();
    const sum = await row<{ cents: number; entries: number }>(
      "select sum(cents) as cents, sum(entries) as entries from ledger_daily where user_id = ? and kind = 'sale'",
      c.id,
    );
    expect(sum).toEqual({ cents: 3 * 4000, entries: 3 });
  });
});

describe("rebuild and compare", () => {
  it("compare reports a tampered rollup and rebuild puts it right, for one creator or all", async () => {
    const c = await creator();
    const other = await creator();
    await sale(c.itemId);
    await sale(other.itemId);
    await env.DB.prepare("update ledger_daily set cents = cents + 1 where user_id = ? and kind = 'sale'")
      .bind(c.id)
      .run();
    await env.DB.prepare("update sales_daily set unlocks = unlocks + 2 where creator_id = ?").bind(other.id).run();
    const diff = await (await call(`/dev/rollups/compare?userId=${c.id}`)).json<{ differences: unknown[] }>();
    expect(diff.differences).toEqual([
      expect.objectContaining({
        table: "ledger_daily",
        userId: c.id,
        measure: "sale:cents",
        rollup: 4001,
        recomputed: 4000,
      }),
    ]);
    expect(await compareRollups(env.DB)).toHaveLength(2);
    const fixed = await (await postJson("/dev/rollups/rebuild", { userId: c.id })).json<{ differences: unknown[] }>();
    expect(fixed.differences).toEqual([]);
    expect(await compareRollups(env.DB)).toEqual([
      expect.objectContaining({ table: "sales_daily", userId: other.id, measure: "unlocks", rollup: 3, recomputed: 1 }),
    ]);
    expect((await postJson("/dev/rollups/rebuild", {})).status).toBe(200);
    await agree();
    expect((await postJson("/dev/rollups/rebuild", { userId: 42 })).status).toBe(400);
  });
});

describe("the dashboard's query plans", () => {
  it("search an index for every statement: no scan of the ledger, the purchases or the payouts", async () => {
    const c = await creator();
    expect((await postJson("/dev/seed-sales", { userId: c.id, sales: 200 })).status).toBe(200);
    const res = await call(`/dev/explain?userId=${c.id}`);
    expect(res.status).toBe(200);
    const { queries } = await res.json<{ queries: { name: string; plan: string[] }[] }>();
    expect(queries.map((q) => q.name)).toEqual(
      expect.arrayContaining([
        "earnings/stats + payout/next: balance",
        "analytics/stats?days=90: sales",
        "creator/sales?limit=50&cursor=(deep)",
        "payout/history",
        "content: earnings",
      ]),
    );
    const plan = (name: string) => queries.find((q) => q.name === name)?.plan.join("\n");
    // A deep page seeks to its cursor; a page's receipts are read by the sales' ids, not the creator's every sale.
    expect(plan("creator/sales?limit=50&cursor=(deep)")).toMatch(
      /purchases_creator_paid \(creator_id=\? AND paid_at>\? AND paid_at<\?\)/,
    );
    expect(plan("earnings/timeline?limit=50&cursor=(deep)")).toMatch(
      /purchases_creator_paid \(creator_id=\? AND paid_at>\? AND paid_at<\?\)/,
    );
    expect(plan("creator/sales: receipts of the page's sales")).toMatch(
      /SEARCH p USING INDEX sqlite_autoindex_purchases_1 \(id=\?\)/,
    );
    for (const q of queries)
      for (const line of q.plan) expect(line, q.name).not.toMatch(/SCAN (ledger_entries|purchases|payouts|p|l|r|s)\b/);
  });
});
