// GET /api/analytics/stats: views, checkouts started, sales, conversion and revenue by day and item.
import { describe, expect, it } from "vitest";
import type { AnalyticsStats } from "../../../shared/analytics";
import { call, checkout, contentForm, deliver, env, eventFor, postForm, signIn } from "../support/helpers";

const today = () => new Date().toISOString().slice(0, 10);

describe("analytics", () => {
  it("counts a creator's views, checkouts, sales and revenue by day and by item, and nobody else's", async () => {
    const cookie = await signIn("analytics@example.com");
    const make = async (title: string) =>
      (
        await (
          await postForm(
            "/api/content",
            contentForm({ title, price: "10", accessType: "link", linkUrl: "https://example.com/a" }),
            cookie,
          )
        ).json<{ id: string }>()
      ).id;
    const a = await make("Alpha");
    const b = await make("Beta");
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    await env.DB.batch([
      env.DB.prepare(
        "insert into content_views_daily (content_id, day, views) values (?, ?, 4), (?, ?, 6), (?, ?, 2)",
      ).bind(a, today(), a, tenDaysAgo, b, today()),
    ]);
    const { paymentIntent } = await checkout(a);
    await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    await checkout(a, { card: "none" }); // started, never paid

    const week = await (await call("/api/analytics/stats?days=7", { cookie })).json<AnalyticsStats>();
    expect(week.byDay).toHaveLength(7);
    expect(week.byDay[6]).toEqual({
      date: today(),
      views: 6,
      checkouts: 2,
      sales: 1,
      revenue: 8,
      offers: 0,
      upsells: 0,
    });
    expect(week.totals).toEqual({
      views: 6,
      checkouts: 2,
      sales: 1,
      conversion: 16.67,
      revenue: 8,
      offers: 0,
      upsells: 0,
    });
    const alpha = week.items.find((i) => i.contentId === a);
    expect(alpha).toEqual({
      contentId: a,
      title: "Alpha",
      views: 4,
      checkouts: 2,
      sales: 1,
      conversion: 25,
      revenue: 8,
      offers: 0,
      upsells: 0,
      paidCheckouts: 1,
      bumpSales: 0,
      upsellSales: 0,
      bumpOffered: 0,
      bumpTaken: 0,
      bumpTakeRate: 0,
    });
    expect(week.items.find((i) => i.contentId === b)).toMatchObject({
      views: 2,
      checkouts: 0,
      sales: 0,
      conversion: 0,
    });

    // 30 days reaches the older views.
    const month = await (await call("/api/analytics/stats?days=30", { cookie })).json<AnalyticsStats>();
    expect(month.totals.views).toBe(12);
    expect(month.byDay.find((d) => d.date === tenDaysAgo)?.views).toBe(6);
    // One item only.
    const onlyB = await (await call(`/api/analytics/stats?days=30&contentId=${b}`, { cookie })).json<AnalyticsStats>();
    expect(onlyB.totals).toMatchObject({ views: 2, checkouts: 0, sales: 0 });
    expect(onlyB.items.map((i) => i.contentId)).toEqual([b]);

    // Another creator asking about this creator's item sees nothing of it.
    const other = await signIn("analytics-other@example.com");
    const theirs = await (
      await call(`/api/analytics/stats?days=30&contentId=${a}`, { cookie: other })
    ).json<AnalyticsStats>();
    expect(theirs.totals).toEqual({
      views: 0,
      checkouts: 0,
      sales: 0,
      conversion: 0,
      revenue: 0,
      offers: 0,
      upsells: 0,
    });
    expect(theirs.items).toEqual([]);

    expect((await call("/api/analytics/stats?days=12", { cookie })).status).toBe(400);
    expect((await call("/api/analytics/stats")).status).toBe(401);
  });
});
