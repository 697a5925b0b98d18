// A creator's funnel by day and by item: paywall views (content_views_daily), checkouts started
// (browsers that started one that day: a buyer who starts again with a code or the order bump ticked
// is one checkout), sales (purchases paid), revenue (the creator's share in the ledger, net of refunds,
// disputes and fee adjustments on the day each was booked: the rows Total Earnings sums), and
// after the sale the funnel's step: offers shown to the item's buyers and upsells they accepted and paid.
// An upsell's sale and revenue belong to the row of the item it sold (upsell-only items have rows
// too), so the rows add up to the totals; its offer and acceptance count on the item that led to it.
// Conversion is paywall sales over paywall views: a sale through an upsell had no view, so it is
// not in the rate; nor is an order bump's. Each row's own paid checkouts and bump and step sales
// apart, and every query's bounds and index: docs/money.md and docs/funnels.md.
import { sql } from "drizzle-orm";
import type { AnalyticsDay, AnalyticsItem, AnalyticsStats } from "../../shared/analytics";
import type { Db } from "../db/client";
import { EARNING_KINDS_SQL } from "./balances";

const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const rate = (sales: number, views: number) => (views > 0 ? Math.round((sales / views) * 10000) / 100 : 0);

type Row = {
  content_id: string;
  day: string;
  measure: "v" | "c" | "s" | "d" | "r" | "o" | "u" | "k" | "b" | "f";
  n: number;
};

/**
 * The statements behind `analyticsStats`, by name (GET /dev/explain prints their plans). Checkouts,
 * sales and revenue come from the rollups (sales_daily, ledger_daily: a row per item and day), so
 * their cost does not grow with the creator's sales; codes, recovered sales and bump offers read
 * partial indexes that hold only those few purchases.
 */
export function analyticsQueries(userId: string, opts: { days: number; contentId?: string }, now = Date.now()) {
  const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
  const fromMs = today - (opts.days - 1) * DAY_MS;
  const fromDay = dayOf(fromMs);
  const item = opts.contentId ? sql`and c.id = ${opts.contentId}` : sql``;
  const itemP = opts.contentId ? sql`and p.content_id = ${opts.contentId}` : sql``;
  const itemR = opts.contentId ? sql`and content_id = ${opts.contentId}` : sql``;
  return {
    today,
    fromMs,
    fromDay,
    queries: {
      views: sql`
    select c.id as content_id, v.day as day, v.views as n
      from content c join content_views_daily v on v.content_id = c.id
      where c.user_id = ${userId} and v.day >= ${fromDay} ${item}`,
      // k, b, f: the item's row only (paid checkouts, sales as an order bump, sales as a funnel step).
      sales: sql`
    select content_id, day, checkouts as c, paid_checkouts as k, sales as s, direct_sales as d, bump_sales as b, upsell_sales as f
      from sales_daily where creator_id = ${userId} and day >= ${fromDay} ${itemR}`,
      revenue: sql`
    select content_id, day, sum(cents) as n from ledger_daily
      where user_id = ${userId} and day >= ${fromDay} and kind in ${EARNING_KINDS_SQL} ${itemR}
      group by 1, 2`,
      // The funnel's offers, read from the creator's funnels through their steps (indexed).
      offered: sql`
    select p.content_id, strftime('%Y-%m-%d', o.created_at / 1000, 'unixepoch') as day, 'o' as measure, count(*) as n
      from funnels f join funnel_steps s on s.funnel_id = f.id join funnel_offers o on o.step_id = s.id
      join purchases p on p.id = o.parent_purchase_id
      where f.user_id = ${userId} and o.created_at >= ${fromMs} ${itemP}
      group by 1, 2
    union all
    select p.content_id, strftime('%Y-%m-%d', u.paid_at / 1000, 'unixepoch'), 'u', count(*)
      from funnels f join funnel_steps s on s.funnel_id = f.id join funnel_offers o on o.step_id = s.id
      join purchases p on p.id = o.parent_purchase_id join purchases u on u.id = o.purchase_id
      where f.user_id = ${userId} and u.status in ('paid', 'refunded', 'disputed') and u.paid_at >= ${fromMs} ${itemP}
      group by 1, 2`,
      // Sales with a discount code: how many, what they brought and what the code took off the list price.
      codes: sql`
    select d.code, count(*) as sales, sum(p.amount_cents) as revenue_cents, sum(p.discount_cents) as discount_cents
      from purchases p join discount_codes d on d.id = p.discount_code_id
      where p.creator_id = ${userId} and p.discount_code_id is not null and p.paid_at >= ${fromMs} and p.status in ('paid', 'disputed') ${itemP}
      group by d.code order by sales desc, d.code`,
      // Sales that came back through a checkout reminder's link (worker/services/purchases/recovery.ts).
      recovered: sql`
    select count(*) as sales, sum(p.amount_cents) as revenue_cents from purchases p
      where p.creator_id = ${userId} and p.recovered_from is not null and p.paid_at >= ${fromMs} and p.status in ('paid', 'disputed') ${itemP}`,
      // The order bump's take rate: of an item's paywall sales whose checkout offered its bump, those that took it.
      bumps: sql`
    select p.content_id, count(*) as offered, sum(exists (select 1 from purchases b where b.bump_of = p.id)) as taken from purchases p
      where p.creator_id = ${userId} and p.bump_offered = 1 and p.paid_at >= ${fromMs} and p.status in ('paid', 'refunded', 'disputed') ${itemP}
      group by p.content_id`,
      titles: sql`
    select id, title from content c where c.user_id = ${userId} and c.deleted_at is null ${item}`,
    },
  };
}

export async function analyticsStats(
  db: Db,
  userId: string,
  opts: { days: number; contentId?: string },
  now = Date.now(),
): Promise<AnalyticsStats> {
  const { today, fromMs, fromDay, queries: q } = analyticsQueries(userId, opts, now);
  type SalesRow = { content_id: string; day: string } & Record<"c" | "k" | "s" | "d" | "b" | "f", number>;
  const [views, sales, revenue, offered, codes, recovered, bumps, titles] = await Promise.all([
    db.all<{ content_id: string; day: string; n: number }>(q.views),
    db.all<SalesRow>(q.sales),
    db.all<{ content_id: string; day: string; n: number }>(q.revenue),
    db.all<Row>(q.offered),
    db.all<{ code: string; sales: number; revenue_cents: number; discount_cents: number }>(q.codes),
    db.all<{ sales: number; revenue_cents: number | null }>(q.recovered),
    db.all<{ content_id: string; offered: number; taken: number }>(q.bumps),
    db.all<{ id: string; title: string }>(q.titles),
  ]);
  const rows: Row[] = [
    ...views.map((v) => ({ ...v, measure: "v" as const })),
    ...sales.flatMap((r) =>
      (["c", "k", "s", "d", "b", "f"] as const)
        .filter((m) => Number(r[m]) !== 0)
        .map((m) => ({ content_id: r.content_id, day: r.day, measure: m, n: Number(r[m]) })),
    ),
    ...revenue.map((r) => ({ ...r, measure: "r" as const })),
    ...offered,
  ];

  const byDay = new Map<string, AnalyticsDay>();
  for (let t = fromMs; t <= today; t += DAY_MS)
    byDay.set(dayOf(t), { date: dayOf(t), views: 0, checkouts: 0, sales: 0, revenue: 0, offers: 0, upsells: 0 });
  const byItem = new Map<string, AnalyticsItem>(
    titles.map((t) => [
      t.id,
      {
        contentId: t.id,
        title: t.title,
        views: 0,
        checkouts: 0,
        sales: 0,
        conversion: 0,
        revenue: 0,
        offers: 0,
        upsells: 0,
        paidCheckouts: 0,
        bumpSales: 0,
        upsellSales: 0,
        bumpOffered: 0,
        bumpTaken: 0,
        bumpTakeRate: 0,
      },
    ]),
  );
  for (const b of bumps) {
    const it = byItem.get(b.content_id);
    if (it)
      Object.assign(it, {
        bumpOffered: Number(b.offered),
        bumpTaken: Number(b.taken),
        bumpTakeRate: rate(Number(b.taken), Number(b.offered)),
      });
  }
  const field = { v: "views", c: "checkouts", s: "sales", r: "revenue", o: "offers", u: "upsells" } as const;
  // Paywall sales (those that had a view), per item and in all: the numerator of conversion.
  const direct = new Map<string, number>();
  let directTotal = 0;
  for (const r of rows) {
    if (r.measure === "d") {
      direct.set(r.content_id, (direct.get(r.content_id) ?? 0) + Number(r.n));
      if (byDay.has(r.day)) directTotal += Number(r.n);
      continue;
    }
    if (r.measure === "k" || r.measure === "b" || r.measure === "f") {
      const it = byItem.get(r.content_id);
      const own = ({ k: "paidCheckouts", b: "bumpSales", f: "upsellSales" } as const)[r.measure];
      if (it) it[own] += Number(r.n);
      continue;
    }
    const key = field[r.measure];
    const value = key === "revenue" ? Number(r.n) / 100 : Number(r.n);
    const d = byDay.get(r.day);
    if (d) d[key] += value;
    const it = byItem.get(r.content_id);
    if (it) it[key] += value;
  }
  const days = [...byDay.values()].map((d) => ({ ...d, revenue: Math.round(d.revenue * 100) / 100 }));
  const totals = days.reduce(
    (t, d) => ({
      views: t.views + d.views,
      checkouts: t.checkouts + d.checkouts,
      sales: t.sales + d.sales,
      revenue: t.revenue + d.revenue,
      offers: t.offers + d.offers,
      upsells: t.upsells + d.upsells,
    }),
    { views: 0, checkouts: 0, sales: 0, revenue: 0, offers: 0, upsells: 0 },
  );
  return {
    days: opts.days,
    from: fromDay,
    totals: { ...totals, revenue: Math.round(totals.revenue * 100) / 100, conversion: rate(directTotal, totals.views) },
    byDay: days,
    items: [...byItem.values()].map((i) => ({
      ...i,
      revenue: Math.round(i.revenue * 100) / 100,
      conversion: rate(direct.get(i.contentId) ?? 0, i.views),
    })),
    codes: codes.map((c) => ({
      code: c.code,
      sales: Number(c.sales),
      revenue: Number(c.revenue_cents) / 100,
      discountGiven: Number(c.discount_cents) / 100,
    })),
    recovered: { sales: Number(recovered[0]?.sales ?? 0), revenue: Number(recovered[0]?.revenue_cents ?? 0) / 100 },
  };
}
