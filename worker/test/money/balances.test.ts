// The balance rules of worker/services/balances.ts, with sales and refunds booked by the real
// payment services (checkout through the stand-in, webhooks) and payouts written as the payout run
// writes them (a payouts row and its negative 'payout' ledger row).
import { describe, expect, it } from "vitest";
import { SALE_HOLD_DAYS } from "../../../shared/payouts";
import { createDb } from "../../db/client";
import { availableBalances, creatorBalance } from "../../services/balances";
import {
  call,
  checkout,
  contentForm,
  deliver,
  env,
  eventFor,
  postForm,
  row,
  signIn,
  standin,
} from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;
const db = () => createDb(env.DB);

async function creatorWithItem(email: string, price = "10") {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Beats", price, linkUrl: "https://example.com/beats", accessType: "link" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  const item = await res.json<{ id: string }>();
  const creator = await row<{ id: string }>("select id from users where email = ?", email);
  return { cookie, itemId: item.id, creatorId: creator!.id };
}

/** A paid sale booked by the payment_intent.succeeded webhook; returns its purchase id. */
async function sale(itemId: string) {
  const { paymentIntent } = await checkout(itemId);
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const p = await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent);
  return { purchaseId: p!.id, paymentIntent };
}

async function refund(paymentIntent: string, amount?: number) {
  await standin("POST", "/v1/refunds", {
    payment_intent: paymentIntent,
    ...(amount ? { amount: String(amount) } : {}),
  });
  expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
}

/** Moves a purchase's ledger rows `days` into the past, as if the sale had been made then. */
const backdate = (purchaseId: string, days: number) =>
  env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
    .bind(days * DAY, purchaseId)
    .run();

/** A payout prepared for `cents` (its ledger row takes the money out of available). */
async function payout(
  userId: string,
  cents: number,
  status: "pending" | "processing" | "paid" | "failed",
  month: number,
) {
  const id = `po_${userId}_${month}`;
  await env.DB.batch([
    env.DB.prepare(
      "insert into payouts (id, user_id, amount_cents, method, status, period_year, period_month) values (?, ?, ?, 'paypal', ?, 2026, ?)",
    ).bind(id, userId, cents, status, month),
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id) values (?, 'creator', ?, 'payout', ?, ?)",
    ).bind(`payout:${id}`, userId, -cents, id),
  ]);
  return id;
}

describe("creator balance from the ledger", () => {
  it("a fresh sale is on hold, then available after the hold", async () => {
    const { creatorId, itemId, cookie } = await creatorWithItem("hold@example.com");
    await sale(itemId);
    const now = Date.now();
    expect(await creatorBalance(db(), creatorId, now)).toMatchObject({
      availableCents: 0,
      onHoldCents: 800,
      totalEarningsCents: 800,
      pendingPayoutCents: 0,
      carriedNegativeCents: 0,
    });
    const b = await creatorBalance(db(), creatorId, now);
    expect(b.nextReleaseAt!.getTime()).toBeGreaterThan(now + (SALE_HOLD_DAYS - 1) * DAY);
    expect(b.nextReleaseAt!.getTime()).toBeLessThanOrEqual(now + SALE_HOLD_DAYS * DAY);

    expect(await creatorBalance(db(), creatorId, now + (SALE_HOLD_DAYS - 1) * DAY)).toMatchObject({
      availableCents: 0,
      onHoldCents: 800,
    });
    expect(await creatorBalance(db(), creatorId, now + SALE_HOLD_DAYS * DAY + 1000)).toMatchObject({
      availableCents: 800,
      onHoldCents: 0,
      nextReleaseAt: null,
    });

    // The API shows the same figures in dollars.
    const stats = await (await call("/api/earnings/stats", { cookie })).json();
    expect(stats).toMatchObject({
      availableBalance: 0,
      onHold: 8,
      totalEarnings: 8,
      pendingPayouts: 0,
      totalUnlocks: 1,
      contentCount: 1,
    });
  });

  it("a refund during the hold takes from the held share, not the available balance", async () => {
    const { creatorId, itemId } = await creatorWithItem("hold-refund@example.com");
    const old = await sale(itemId);
    await backdate(old.purchaseId, SALE_HOLD_DAYS + 1);
    const fresh = await sale(itemId);
    await refund(fresh.paymentIntent, 500); // half of the fresh $10 sale
    expect(await creatorBalance(db(), creatorId)).toMatchObject({
      availableCents: 800,
      onHoldCents: 400,
      totalEarningsCents: 1200,
      carriedNegativeCents: 0,
    });
  });

  it("a refund after the money became available counts at once", async () => {
    const { creatorId, itemId } = await creatorWithItem("late-refund@example.com");
    const a = await sale(itemId);
    const b = await sale(itemId);
    await backdate(a.purchaseId, SALE_HOLD_DAYS + 2);
    await backdate(b.purchaseId, SALE_HOLD_DAYS + 2);
    expect(await creatorBalance(db(), creatorId)).toMatchObject({ availableCents: 1600, onHoldCents: 0 });
    await refund(a.paymentIntent);
    expect(await creatorBalance(db(), creatorId)).toMatchObject({
      availableCents: 800,
      onHoldCents: 0,
      totalEarningsCents: 800,
    });
  });

  it("money in a pending or processing payout is pending, not available; paid is paid out; a failed payout's money returns", async () => {
    const { creatorId, itemId, cookie } = await creatorWithItem("pending@example.com");
    for (let i = 0; i < 4; i++) await backdate((await sale(itemId)).purchaseId, SALE_HOLD_DAYS + 3);
    expect((await creatorBalance(db(), creatorId)).availableCents).toBe(3200);

    await payout(creatorId, 3200, "pending", 1);
    expect(await creatorBalance(db(), creatorId)).toMatchObject({
      availableCents: 0,
      pendingPayoutCents: 3200,
      paidOutCents: 0,
      totalEarningsCents: 3200,
    });
    expect(await (await call("/api/earnings/stats", { cookie })).json()).toMatchObject({
      availableBalance: 0,
      pendingPayouts: 32,
    });

    await env.DB.prepare("update payouts set status = 'processing' where id = ?").bind(`po_${creatorId}_1`).run();
    expect((await creatorBalance(db(), creatorId)).pendingPayoutCents).toBe(3200);

    await env.DB.prepare("update payouts set status = 'paid' where id = ?").bind(`po_${creatorId}_1`).run();
    expect(await creatorBalance(db(), creatorId)).toMatchObject({
      availableCents: 0,
      pendingPayoutCents: 0,
      paidOutCents: 3200,
    });

    // A second payout fails: the reversal row gives its money back to available.
    await backdate((await sale(itemId)).purchaseId, SALE_HOLD_DAYS + 1);
    const failed = await payout(creatorId, 800, "failed", 2);
    expect((await creatorBalance(db(), creatorId)).availableCents).toBe(0);
    await env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id) values (?, 'creator', ?, 'payout_reversal', 800, ?)",
    )
      .bind(`payout-reversal:${failed}`, creatorId, failed)
      .run();
    expect(await creatorBalance(db(), creatorId)).toMatchObject({
      availableCents: 800,
      pendingPayoutCents: 0,
      paidOutCents: 3200,
      totalEarningsCents: 4000,
    });
  });

  it("a refund after a payout leaves a carried negative, shown as zero available, paid off by later sales", async () => {
    const { creatorId, itemId, cookie } = await creatorWithItem("carried@example.com");
    const a = await sale(itemId);
    await backdate(a.purchaseId, 30);
    await payout(creatorId, 800, "paid", 3);
    await refund(a.paymentIntent);
    expect(await creatorBalance(db(), creatorId)).toMatchObject({
      availableCents: 0,
      carriedNegativeCents: 800,
      paidOutCents: 800,
      totalEarningsCents: 0,
    });
    expect(await (await call("/api/earnings/stats", { cookie })).json()).toMatchObject({
      availableBalance: 0,
      carriedNegative: 8,
    });

    // A new $15 sale (creator share $12): on hold while held; once released it first pays off the $8.
    const cookie15 = cookie;
    const res = await postForm(
      "/api/content",
      contentForm({ title: "More", price: "15", linkUrl: "https://example.com/more", accessType: "link" }),
      cookie15,
    );
    const more = await res.json<{ id: string }>();
    await sale(more.id);
    expect(await creatorBalance(db(), creatorId)).toMatchObject({
      availableCents: 0,
      onHoldCents: 1200,
      carriedNegativeCents: 800,
    });
    expect(await creatorBalance(db(), creatorId, Date.now() + (SALE_HOLD_DAYS + 1) * DAY)).toMatchObject({
      availableCents: 400,
      onHoldCents: 0,
      carriedNegativeCents: 0,
    });
  });

  it("availableBalances: every creator in one statement, with a minimum and a user filter", async () => {
    const one = await creatorWithItem("many-1@example.com", "40");
    const two = await creatorWithItem("many-2@example.com", "10");
    await backdate((await sale(one.itemId)).purchaseId, SALE_HOLD_DAYS + 1); // $32 available
    await backdate((await sale(two.itemId)).purchaseId, SALE_HOLD_DAYS + 1); // $8 available
    await sale(two.itemId); // on hold

    const all = await availableBalances(db(), Date.now(), { userIds: [one.creatorId, two.creatorId] });
    expect(all).toEqual(
      [
        { userId: one.creatorId, availableCents: 3200, carriedNegativeCents: 0 },
        { userId: two.creatorId, availableCents: 800, carriedNegativeCents: 0 },
      ].sort((x, y) => (x.userId < y.userId ? -1 : 1)),
    );
    const eligible = await availableBalances(db(), Date.now(), { minCents: 2500 });
    expect(eligible.find((r) => r.userId === one.creatorId)?.availableCents).toBe(3200);
    expect(eligible.find((r) => r.userId === two.creatorId)).toBeUndefined();
    // Every row agrees with the single-creator figure.
    for (const r of await availableBalances(db(), Date.now())) {
      expect((await creatorBalance(db(), r.userId)).availableCents).toBe(r.availableCents);
    }
    // As of a moment before the sales, nothing is there.
    expect(await availableBalances(db(), Date.now() - 60 * DAY, { userIds: [one.creatorId] })).toEqual([]);
  });

  it("the stats call needs a session and shows only the caller's money", async () => {
    expect((await call("/api/earnings/stats")).status).toBe(401);
    const { itemId } = await creatorWithItem("owner-a@example.com");
    await sale(itemId);
    const other = await signIn("owner-b@example.com");
    expect(await (await call("/api/earnings/stats", { cookie: other })).json()).toMatchObject({
      availableBalance: 0,
      onHold: 0,
      totalEarnings: 0,
      totalUnlocks: 0,
    });
  });
});
