// A creator's funnel by day and by item: paywall views (content_views_daily), checkouts started
// (browsers that started one that day: a buyer who starts again with a code or the order bump ticked
// is one checkout), sales (purchases paid), revenue (the creator's share in the ledger, net of refunds,
// disputes and fee adjustments on the day each was booked: the rows Total Earnings sums), and
// after the sale the funnel's step: offers shown to the item's buyers and upsells they accepted and paid.
// An upsell's sale and revenue belong to the row of the item it sold (upsell-only items have rows
// too), so the rows add up to the totals; its offer and acceptance count on the item that led to it.
// Conversion is paywall sales over paywall views: a sale through an upsell had no view, so it is
// not in the rate; nor is an order bump's (it counts on its own item's row, like an upsell's, and
// its take rate on the item whose checkout offered it). An item's row also says how many of its own
// checkouts were paid (never more than were started) and its sales as a bump or a funnel step apart.
// Every query is bounded by the creator and the date range and read through an index.
import { sql } from "drizzle-orm";
import type { AnalyticsDay, AnalyticsItem, AnalyticsStats } from "../../shared/analytics";
import type { Db } from "../db/client";
import { EARNING_KINDS_SQL } from "./balances";

const DAY_MS = 24 * 60 * 60 * 1000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const rate = (sales: number, views: number) => (views > 0 ? Math.round((sales / views) * 10000) / 100 : 0);

export async function analyticsStats(
  db: Db,
  userId: string,
  opts: { days: number; contentId?: string },
  now = Date.now(),
): Promise<AnalyticsStats> {
  const today = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), new Date(now).getUTCDate());
  const fromMs = today - (opts.days - 1) * DAY_MS;
  const fromDay = dayOf(fromMs);
  const item = opts.contentId ? sql`and c.id = ${opts.contentId}` : sql``;
  const itemP = opts.contentId ? sql`and p.content_id = ${opts.contentId}` : sql``;

  // One row per (item, day, measure); the creator's items are the only ones joined.
  // k, b, f: the item's row only (paid checkouts, sales as an order bump, sales as a funnel step).
  type Row = {
    content_id: string;
    day: string;
    measure: "v" | "c" | "s" | "d" | "r" | "o" | "u" | "k" | "b" | "f";
    n: number;
  };
  // D1 allows at most 5 terms in a compound SELECT: paywall sales and revenue are a second statement,
  // and the funnel's offers a third, read from the creator's funnels through their steps (indexed).
  const [sold, revenue, offered, codes, recovered, bumps] = await Promise.all([
    db.all<Row>(sql`
    select c.id as content_id, v.day as day, 'v' as measure, v.views as n
      from content c join content_views_daily v on v.content_id = c.id
      where c.user_id = ${userId} and v.day >= ${fromDay} ${item}
    union all
    select p.content_id, strftime('%Y-%m-%d', p.created_at / 1000, 'unixepoch'), 'c', count(distinct coalesce(p.buyer_key_hash, p.id))
      from purchases p where p.creator_id = ${userId} and p.created_at >= ${fromMs} and p.funnel_step_id is null and p.bump_of is null ${itemP}
      group by 1, 2
    union all
    select p.content_id, strftime('%Y-%m-%d', p.created_at / 1000, 'unixepoch'), 'k', count(distinct coalesce(p.buyer_key_hash, p.id))
      from purchases p where p.creator_id = ${userId} and p.created_at >= ${fromMs} and p.funnel_step_id is null and p.bump_of is null
        and p.status in ('paid', 'refunded', 'disputed') ${itemP}
      group by 1, 2
    union all
    select p.content_id, strftime('%Y-%m-%d', p.paid_at / 1000, 'unixepoch'), 's', count(*)
      from purchases p where p.creator_id = ${userId} and p.paid_at >= ${fromMs} and p.status in ('paid', 'refunded', 'disputed') ${itemP}
      group by 1, 2
  `),
    db.all<Row>(sql`
    select p.content_id, strftime('%Y-%m-%d', p.paid_at / 1000, 'unixepoch') as day, 'd' as measure, count(*) as n
      from purchases p where p.creator_id = ${userId} and p.paid_at >= ${fromMs} and p.status in ('paid', 'refunded', 'disputed') and p.funnel_step_id is null and p.bump_of is null ${itemP}
      group by 1, 2
    union all
    select p.content_id, strftime('%Y-%m-%d', p.paid_at / 1000, 'unixepoch'), case when p.bump_of is not null then 'b' else 'f' end, count(*)
      from purchases p where p.creator_id = ${userId} and p.paid_at >= ${fromMs} and p.status in ('paid', 'refunded', 'disputed')
        and (p.funnel_step_id is not null or p.bump_of is not null) ${itemP}
      group by 1, 2, 3
    union all
    select p.content_id, strftime('%Y-%m-%d', l.created_at / 1000, 'unixepoch'), 'r', sum(l.amount_cents)
      from ledger_entries l join purchases p on p.id = l.purchase_id
      where l.user_id = ${userId} and l.account = 'creator' and l.kind in ${EARNING_KINDS_SQL} and l.created_at >= ${fromMs} ${itemP}
      group by 1, 2
  `),
    db.all<Row>(sql`
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
      group by 1, 2
  `),
    // Sales with a discount code: how many, what they brought and what the code took off the list price.
    db.all<{ code: string; sales: number; revenue_cents: number; discount_cents: number }>(sql`
    select d.code, count(*) as sales, sum(p.amount_cents) as revenue_cents, sum(p.discount_cents) as discount_cents
      from purchases p join discount_codes d on d.id = p.discount_code_id
      where p.creator_id = ${userId} and p.paid_at >= ${fromMs} and p.status in ('paid', 'disputed') ${itemP}
      group by d.code order by sales desc, d.code
  `),
    // Sales that came back through a checkout reminder's link (worker/services/purchases/recovery.ts).
    db.all<{ sales: number; revenue_cents: number | null }>(sql`
    select count(*) as sales, sum(p.amount_cents) as revenue_cents from purchases p
      where p.creator_id = ${userId} and p.recovered_from is not null and p.paid_at >= ${fromMs} and p.status in ('paid', 'disputed') ${itemP}
  `),
    // The order bump's take rate: of an item's paywall sales whose checkout offered its bump, those that took it.
    db.all<{ content_id: string; offered: number; taken: number }>(sql`
    select p.content_id, count(*) as offered, sum(exists (select 1 from purchases b where b.bump_of = p.id)) as taken from purchases p
      where p.creator_id = ${userId} and p.paid_at >= ${fromMs} and p.status in ('paid', 'refunded', 'disputed') and p.bump_offered = 1 ${itemP}
      group by p.content_id
  `),
  ]);
  const rows = [...sold, ...revenue, ...offered];
  const titles = await db.all<{ id: string; title: string }>(sql`
    select id, title from content c where c.user_id = ${userId} and c.deleted_at is null ${item}
  `);

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
