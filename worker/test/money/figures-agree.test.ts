// The dashboard's two money figures agree with the ledger: analytics revenue and total earnings are
// the same creator rows (sales net of refunds, disputes and fee adjustments). See docs/money.md.
import { describe, expect, it } from "vitest";
import type { AnalyticsStats } from "../../../shared/analytics";
import type { EarningsStats } from "../../../shared/earnings";
import { call, checkout, contentForm, deliver, eventFor, postForm, postJson, row, signIn } from "../support/helpers";

async function saleOf(email: string) {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price: "10", accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  const item = await res.json<{ id: string }>();
  const { paymentIntent } = await checkout(item.id);
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const purchase = (await row<{ id: string; creator_id: string }>(
    "select id, creator_id from purchases where payment_intent_id = ?",
    paymentIntent,
  ))!;
  return { cookie, itemId: item.id, purchaseId: purchase.id, userId: purchase.creator_id };
}

/** What the dashboard shows, and what the ledger says, in dollars. */
async function figures(cookie: string, userId: string, itemId: string) {
  const [analytics, stats, ledger] = await Promise.all([
    call("/api/analytics/stats?days=7", { cookie }).then((r) => r.json<AnalyticsStats>()),
    call("/api/earnings/stats", { cookie }).then((r) => r.json<EarningsStats>()),
    row<{ c: number }>(
      "select coalesce(sum(amount_cents), 0) as c from ledger_entries where user_id = ? and account = 'creator' and kind in ('sale', 'refund', 'dispute', 'fee_adjustment')",
      userId,
    ),
  ]);
  return {
    revenue: analytics.totals.revenue,
    byDay: Math.round(analytics.byDay.reduce((s, d) => s + d.revenue, 0) * 100) / 100,
    item: analytics.items.find((i) => i.contentId === itemId)?.revenue,
    totalEarnings: stats.totalEarnings,
    ledger: ledger!.c / 100,
  };
}

describe("analytics revenue and total earnings", () => {
  it("a sale then a partial refund, then the rest: both net the refund the same way, as the ledger does", async () => {
    const { cookie, itemId, purchaseId, userId } = await saleOf("figures-agree@example.com");
    expect(await figures(cookie, userId, itemId)).toEqual({
      revenue: 8,
      byDay: 8,
      item: 8,
      totalEarnings: 8,
      ledger: 8,
    });

    const partial = await postJson(
      `/api/sales/${purchaseId}/refund`,
      { amountCents: 400, reason: "requested_by_customer" },
      cookie,
    );
    expect(partial.status).toBe(200);
    // $8.00 share less the share of $4 refunded ($3.20).
    expect(await figures(cookie, userId, itemId)).toEqual({
      revenue: 4.8,
      byDay: 4.8,
      item: 4.8,
      totalEarnings: 4.8,
      ledger: 4.8,
    });

    const rest = await postJson(`/api/sales/${purchaseId}/refund`, { reason: "requested_by_customer" }, cookie);
    expect(rest.status).toBe(200);
    expect(await figures(cookie, userId, itemId)).toEqual({
      revenue: 0,
      byDay: 0,
      item: 0,
      totalEarnings: 0,
      ledger: 0,
    });
  });
});
