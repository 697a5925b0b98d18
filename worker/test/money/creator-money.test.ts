// The creator's money calls: payout setup, sales pages, the money timeline, next payout, history;
// each refuses the signed-out and shows only the caller's own data.
import { describe, expect, it } from "vitest";
import { SALE_HOLD_DAYS, PAYOUT_SETUP_MESSAGES } from "../../../shared/payouts";
import { pageCursor } from "../../../shared/earnings";
import type { NextPayout, PayoutHistoryItem } from "../../../shared/payouts";
import type { Sale, TimelinePage } from "../../../shared/earnings";
import { MONTHLY_PAYOUT_CRON } from "../../cron";
import { createDb } from "../../db/client";
import { nextPayout } from "../../services/earnings";
import { closingPeriod } from "../../services/payouts/period";
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

const DAY = 24 * 60 * 60 * 1000;

async function creator(email: string) {
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  return { cookie, id };
}

/** Writes `n` paid sales of a $10 item straight into the tables, as fulfil would (80% to the creator). */
async function seedSales(userId: string, n: number, paidAt: (i: number) => number) {
  const itemId = `item_${userId}`.slice(0, 30);
  await env.DB.prepare("insert or ignore into content (id, user_id, title, price_cents) values (?, ?, 'Seeded', 1000)")
    .bind(itemId, userId)
    .run();
  const stmts = [];
  for (let i = 0; i < n; i++) {
    const id = `s${i}x${userId}`.slice(0, 30);
    const at = paidAt(i);
    stmts.push(
      env.DB.prepare(
        "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, status, paid_at, created_at) values (?, ?, ?, ?, 1000, 'paid', ?, ?)",
      ).bind(id, itemId, userId, `b${i}@example.com`, at, at),
      env.DB.prepare(
        "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'creator', ?, 'sale', 800, ?, ?)",
      ).bind(`sale:${id}:creator`, userId, id, at),
    );
  }
  for (let i = 0; i < stmts.length; i += 100) await env.DB.batch(stmts.slice(i, i + 100));
}

describe("payout setup", () => {
  it("refuses missing or bad input with the spec's message and changes nothing", async () => {
    const { cookie, id } = await creator("setup-bad@example.com");
    const cases: [unknown, string][] = [
      [{}, PAYOUT_SETUP_MESSAGES.required],
      [{ payoutMethod: "paypal" }, PAYOUT_SETUP_MESSAGES.required],
      [{ payoutMethod: "", payoutEmail: "a@example.com" }, PAYOUT_SETUP_MESSAGES.required],
      [{ payoutMethod: "bitcoin", payoutEmail: "a@example.com" }, PAYOUT_SETUP_MESSAGES.method],
      [{ payoutMethod: "wise", payoutEmail: "not-an-email" }, PAYOUT_SETUP_MESSAGES.email],
    ];
    for (const [body, message] of cases) {
      const res = await postJson("/api/payout/setup", body, cookie);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message });
    }
    expect(await row("select * from payout_settings where user_id = ?", id)).toBeNull();
    expect(await (await call("/api/auth/user", { cookie })).json()).toMatchObject({
      payoutEnabled: false,
      payoutMethod: null,
      payoutEmail: null,
    });
  });

  it("saves the method and email; the current user then says payouts are enabled", async () => {
    const { cookie } = await creator("setup-ok@example.com");
    expect(
      (await postJson("/api/payout/setup", { payoutMethod: "paypal", payoutEmail: " Me@PayPal.example " }, cookie))
        .status,
    ).toBe(200);
    expect(await (await call("/api/auth/user", { cookie })).json()).toMatchObject({
      payoutEnabled: true,
      payoutMethod: "paypal",
      payoutEmail: "me@paypal.example",
    });
    // A change replaces it.
    await postJson("/api/payout/setup", { payoutMethod: "venmo", payoutEmail: "me@venmo.example" }, cookie);
    expect(await (await call("/api/auth/user", { cookie })).json()).toMatchObject({
      payoutMethod: "venmo",
      payoutEmail: "me@venmo.example",
    });
  });

  it("every money call refuses the signed-out", async () => {
    for (const path of [
      "/api/earnings/stats",
      "/api/earnings/timeline",
      "/api/creator/sales",
      "/api/payout/history",
      "/api/payout/next",
    ]) {
      expect((await call(path)).status, path).toBe(401);
    }
    expect((await postJson("/api/payout/setup", { payoutMethod: "paypal", payoutEmail: "x@example.com" })).status).toBe(
      401,
    );
  });
});

describe("sales pages", () => {
  it("pages through every sale newest first, without gaps or repeats, and only the caller's", async () => {
    const a = await creator("pages-a@example.com");
    const b = await creator("pages-b@example.com");
    const base = Date.now() - 30 * DAY;
    // 130 sales, some sharing a millisecond (ties are broken by id).
    await seedSales(a.id, 130, (i) => base + Math.floor(i / 3) * 1000);
    await seedSales(b.id, 5, (i) => base + i);

    const seen: Sale[] = [];
    let cursor: string | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const res = await call(`/api/creator/sales?limit=50${cursor ? `&cursor=${cursor}` : ""}`, { cookie: a.cookie });
      expect(res.status).toBe(200);
      const page = await res.json<Sale[]>();
      seen.push(...page);
      if (page.length < 50) break;
      const last = page[page.length - 1];
      cursor = pageCursor(last.createdAt, last.id);
    }
    expect(seen).toHaveLength(130);
    expect(new Set(seen.map((s) => s.id)).size).toBe(130);
    const times = seen.map((s) => Date.parse(s.createdAt!));
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    expect(seen[0]).toMatchObject({
      productName: "Seeded",
      amount: 10,
      status: "completed",
      buyerEmail: "b129@example.com",
    });
    expect(seen.every((s) => s.id.includes(a.id))).toBe(true);

    // Without parameters: the newest 50.
    expect(await (await call("/api/creator/sales", { cookie: a.cookie })).json<Sale[]>()).toHaveLength(50);
    expect((await call("/api/creator/sales?cursor=x;drop", { cookie: a.cookie })).status).toBe(400);
    expect((await call("/api/creator/sales?limit=1000", { cookie: a.cookie })).status).toBe(400);
  });
});

describe("money timeline, next payout and history", () => {
  it("shows each sale's state: on hold, available, in a payout, paid, reversed", async () => {
    const { cookie, id } = await creator("timeline@example.com");
    const now = Date.now();
    // Oldest first: s0 paid out in an earlier payout, s1 in the prepared payout, s2 available, s3 on hold.
    const at = [now - 80 * DAY, now - 40 * DAY, now - 10 * DAY, now - DAY];
    await seedSales(id, 4, (i) => at[i]);
    const payout = (pid: string, status: string, createdAt: number, cents: number) =>
      env.DB.batch([
        env.DB.prepare(
          "insert into payouts (id, user_id, amount_cents, method, email, status, period_year, period_month, created_at, processed_at) values (?, ?, ?, 'paypal', 'me@paypal.example', ?, 2026, ?, ?, ?)",
        ).bind(
          pid,
          id,
          cents,
          status,
          new Date(createdAt).getUTCMonth() + 1,
          createdAt,
          status === "paid" ? createdAt + 2 * DAY : null,
        ),
        env.DB.prepare(
          "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id, created_at) values (?, 'creator', ?, 'payout', ?, ?, ?)",
        ).bind(`payout:${pid}`, id, -cents, pid, createdAt),
      ]);
    await payout(`po_old_${id}`.slice(0, 30), "paid", now - 60 * DAY, 800);
    await payout(`po_new_${id}`.slice(0, 30), "pending", now - 20 * DAY, 800);

    const page = await (await call("/api/earnings/timeline", { cookie })).json<TimelinePage>();
    expect(page.nextCursor).toBeNull();
    expect(page.items.map((i) => i.state.kind)).toEqual(["on_hold", "available", "in_payout", "paid"]);
    expect(page.items[0]).toMatchObject({ amount: 10, creatorShare: 8, productName: "Seeded" });
    expect(Date.parse((page.items[0].state as { until: string }).until)).toBe(at[3] + SALE_HOLD_DAYS * DAY);
    expect(page.items[2].state).toMatchObject({
      month: new Date(Date.UTC(2026, new Date(now - 20 * DAY).getUTCMonth(), 1)).toLocaleString("en-US", {
        month: "long",
        year: "numeric",
        timeZone: "UTC",
      }),
    });
    expect(Date.parse((page.items[3].state as { paidAt: string }).paidAt)).toBe(now - 58 * DAY);

    // Paging: two at a time gives the same four.
    const first = await (await call("/api/earnings/timeline?limit=2", { cookie })).json<TimelinePage>();
    const second = await (
      await call(`/api/earnings/timeline?limit=2&cursor=${first.nextCursor}`, { cookie })
    ).json<TimelinePage>();
    expect([...first.items, ...second.items].map((i) => i.purchaseId)).toEqual(page.items.map((i) => i.purchaseId));

    const history = await (await call("/api/payout/history", { cookie })).json<PayoutHistoryItem[]>();
    expect(history.map((h) => [h.status, h.amount, h.payoutMethod, h.payoutEmail])).toEqual([
      ["pending", 8, "paypal", "me@paypal.example"],
      ["paid", 8, "paypal", "me@paypal.example"],
    ]);

    // Another creator sees none of it.
    const other = await creator("timeline-other@example.com");
    expect(await (await call("/api/earnings/timeline", { cookie: other.cookie })).json()).toEqual({
      items: [],
      events: [],
      nextCursor: null,
    });
    expect(await (await call("/api/payout/history", { cookie: other.cookie })).json()).toEqual([]);
  });

  it("a refunded sale shows 'reversed' with its reason", async () => {
    const { cookie } = await creator("timeline-refund@example.com");
    const res = await postForm(
      "/api/content",
      contentForm({ title: "Refundable", price: "10", accessType: "link", linkUrl: "https://example.com/x" }),
      cookie,
    );
    const item = await res.json<{ id: string }>();
    const { paymentIntent } = await checkout(item.id);
    await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent });
    await deliver(await eventFor("charge.refunded", paymentIntent));
    const page = await (await call("/api/earnings/timeline", { cookie })).json<TimelinePage>();
    expect(page.items[0]).toMatchObject({
      productName: "Refundable",
      creatorShare: 8,
      state: { kind: "reversed", reason: "refund" },
    });
  });

  it("next payout: date and amount, or why there is none", async () => {
    const { cookie, id } = await creator("next@example.com");
    const next = () => call("/api/payout/next", { cookie }).then((r) => r.json<NextPayout>());
    // The run is at 02:00 UTC on the 1st: this month's if it is still ahead, else next month's.
    const firstOfNextMonth = (() => {
      const d = new Date();
      const thisRun = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1, 2);
      return new Date(
        d.getTime() < thisRun ? thisRun : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, 2),
      ).toISOString();
    })();
    expect(await next()).toEqual({ date: firstOfNextMonth, amount: 0, reason: "not_set_up" });
    await postJson("/api/payout/setup", { payoutMethod: "wise", payoutEmail: "me@wise.example" }, cookie);
    expect(await next()).toMatchObject({ amount: 0, reason: "nothing_available" });
    // $32 long released: enough.
    await seedSales(id, 4, () => Date.now() - 40 * DAY);
    expect(await next()).toEqual({ date: firstOfNextMonth, amount: 32, reason: null });
  });

  it("a sale in the payout prepared on the 1st shows the month the payout is for, as the admin screen, CSV and emails name it", async () => {
    const { cookie, id } = await creator("timeline-period@example.com");
    // The most recent run: 02:00 UTC on the 1st of this month (or of the last, before it ran).
    const d = new Date();
    let runAt = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1, 2);
    if (runAt > d.getTime()) runAt = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1, 2);
    const period = closingPeriod(runAt);
    await seedSales(id, 4, () => runAt - 20 * DAY);
    const pid = `po_period_${id}`.slice(0, 30);
    await env.DB.batch([
      env.DB.prepare(
        "insert into payouts (id, user_id, amount_cents, method, email, status, period_year, period_month, created_at) values (?, ?, 3200, 'paypal', 'me@paypal.example', 'pending', ?, ?, ?)",
      ).bind(pid, id, period.year, period.month, runAt),
      env.DB.prepare(
        "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id, created_at) values (?, 'creator', ?, 'payout', -3200, ?, ?)",
      ).bind(`payout:${pid}`, id, pid, runAt),
    ]);
    const page = await (await call("/api/earnings/timeline", { cookie })).json<TimelinePage>();
    const label = new Date(Date.UTC(period.year, period.month - 1, 1)).toLocaleString("en-US", {
      month: "long",
      year: "numeric",
      timeZone: "UTC",
    });
    expect(page.items.map((i) => i.state)).toEqual(Array(4).fill({ kind: "in_payout", payoutId: pid, month: label }));
  });

  it("next payout agrees with the run at 02:00 UTC on the 1st: at 01:59 it is today's run, at 02:01 next month's", async () => {
    expect(MONTHLY_PAYOUT_CRON).toBe("0 2 1 * *");
    const { cookie, id } = await creator("next-boundary@example.com");
    await postJson("/api/payout/setup", { payoutMethod: "wise", payoutEmail: "me@wise.example" }, cookie);
    // $32 released long before the 1st of December 2026.
    await seedSales(id, 4, () => Date.UTC(2026, 10, 1));
    const db = createDb(env.DB);
    expect(await nextPayout(db, id, Date.UTC(2026, 11, 1, 1, 59))).toEqual({
      date: "2026-12-01T02:00:00.000Z",
      amount: 32,
      reason: null,
    });
    expect(await nextPayout(db, id, Date.UTC(2026, 11, 1, 2, 1))).toEqual({
      date: "2027-01-01T02:00:00.000Z",
      amount: 32,
      reason: null,
    });
    expect(await nextPayout(db, id, Date.UTC(2026, 10, 30, 23, 0))).toEqual({
      date: "2026-12-01T02:00:00.000Z",
      amount: 32,
      reason: null,
    });
    // The API gives the same answer for now.
    const now = Date.now();
    const expected = await nextPayout(db, id, now);
    expect(await (await call("/api/payout/next", { cookie })).json()).toEqual(expected);
    expect(new Date(expected.date).getUTCHours()).toBe(2);
  });
});
