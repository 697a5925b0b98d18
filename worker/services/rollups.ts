// The dashboard's rollups (ledger_daily, sales_daily) recomputed from their source rows: `rebuildRollups`
// writes them again for one creator or all, `compareRollups` lists every row where the rollup and the
// recomputation differ (nothing: they agree). The triggers that maintain them are in
// migrations/0038_rollups.sql; what each row sums: docs/money.md ("Rollups").

const day = (column: string) => `strftime('%Y-%m-%d', ${column} / 1000, 'unixepoch')`;
const PAID_LIKE = "('paid', 'refunded', 'disputed')";

/** The creator's ledger rows per (user, day, item, kind), as ledger_daily should hold them. */
const ledgerSql = (only: string) => `
  select user_id, ${day("created_at")} as day, coalesce(content_id, '') as content_id, kind,
         sum(amount_cents) as cents, count(*) as entries
  from ledger_entries where account = 'creator' and user_id is not null ${only}
  group by 1, 2, 3, 4`;

/** Purchases per (creator, day, item), as sales_daily should hold them. */
const salesSql = (only: string) => `
  with x as (
    select creator_id, ${day("created_at")} as day, content_id,
           count(distinct case when funnel_step_id is null and bump_of is null then coalesce(buyer_key_hash, id) end) as checkouts,
           count(distinct case when funnel_step_id is null and bump_of is null and status in ${PAID_LIKE} then coalesce(buyer_key_hash, id) end) as paid_checkouts,
           sum(status = 'paid') as unlocks, 0 as sales, 0 as direct_sales, 0 as bump_sales, 0 as upsell_sales
    from purchases where 1 ${only} group by 1, 2, 3
    union all
    select creator_id, ${day("paid_at")}, content_id, 0, 0, 0, count(*),
           sum(funnel_step_id is null and bump_of is null), sum(bump_of is not null),
           sum(funnel_step_id is not null and bump_of is null)
    from purchases where paid_at is not null and status in ${PAID_LIKE} ${only} group by 1, 2, 3
  )
  select creator_id, day, content_id, sum(checkouts) as checkouts, sum(paid_checkouts) as paid_checkouts,
         sum(unlocks) as unlocks, sum(sales) as sales, sum(direct_sales) as direct_sales,
         sum(bump_sales) as bump_sales, sum(upsell_sales) as upsell_sales
  from x group by 1, 2, 3`;

const SALES_MEASURES = [
  "checkouts",
  "paid_checkouts",
  "unlocks",
  "sales",
  "direct_sales",
  "bump_sales",
  "upsell_sales",
] as const;

/** Writes both rollups again from the ledger and the purchases, for one creator or (no id) all, in one batch. */
export async function rebuildRollups(d1: D1Database, userId?: string): Promise<void> {
  const by = (column: string) => (userId ? `and ${column} = ?1` : "");
  const bind = (s: D1PreparedStatement) => (userId ? s.bind(userId) : s);
  await d1.batch([
    bind(d1.prepare(`delete from ledger_daily where 1 ${by("user_id")}`)),
    bind(
      d1.prepare(
        `insert into ledger_daily (user_id, day, content_id, kind, cents, entries) ${ledgerSql(by("user_id"))}`,
      ),
    ),
    bind(d1.prepare(`delete from sales_daily where 1 ${by("creator_id")}`)),
    bind(
      d1.prepare(
        `insert into sales_daily (creator_id, day, content_id, ${SALES_MEASURES.join(", ")}) ${salesSql(by("creator_id"))}`,
      ),
    ),
  ]);
}

export type RollupDifference = {
  table: "ledger_daily" | "sales_daily";
  userId: string;
  day: string;
  contentId: string;
  /** The ledger kind (ledger_daily) or the measure (sales_daily) that differs. */
  measure: string;
  rollup: number;
  recomputed: number;
};

/** Every rollup figure that differs from its recomputation (rows of zeros count as absent), for one creator or all. */
export async function compareRollups(d1: D1Database, userId?: string): Promise<RollupDifference[]> {
  const by = (column: string) => (userId ? `and ${column} = ?1` : "");
  const bind = (s: D1PreparedStatement) => (userId ? s.bind(userId) : s);
  const ledger = bind(
    d1.prepare(`
      with d as (
        select user_id, day, content_id, kind, cents, entries, 0 as want_cents, 0 as want_entries from ledger_daily where 1 ${by("user_id")}
        union all
        select user_id, day, content_id, kind, 0, 0, cents, entries from (${ledgerSql(by("user_id"))})
      )
      select user_id, day, content_id, kind, sum(cents) as cents, sum(entries) as entries,
             sum(want_cents) as want_cents, sum(want_entries) as want_entries
      from d group by 1, 2, 3, 4
      having sum(cents) <> sum(want_cents) or sum(entries) <> sum(want_entries)
      order by 1, 2, 3, 4 limit 500`),
  );
  const have = SALES_MEASURES.map((m) => `${m}, 0 as want_${m}`).join(", ");
  const want = SALES_MEASURES.map((m) => `0, ${m}`).join(", ");
  const sums = SALES_MEASURES.map((m) => `sum(${m}) as ${m}, sum(want_${m}) as want_${m}`).join(", ");
  const sales = bind(
    d1.prepare(`
      with d as (
        select creator_id, day, content_id, ${have} from sales_daily where 1 ${by("creator_id")}
        union all
        select creator_id, day, content_id, ${want} from (${salesSql(by("creator_id"))})
      )
      select creator_id, day, content_id, ${sums} from d group by 1, 2, 3
      having ${SALES_MEASURES.map((m) => `sum(${m}) <> sum(want_${m})`).join(" or ")}
      order by 1, 2, 3 limit 500`),
  );
  const [l, s] = await d1.batch<Record<string, string | number>>([ledger, sales]);
  const out: RollupDifference[] = [];
  for (const r of l?.results ?? []) {
    const base = { table: "ledger_daily" as const, userId: String(r.user_id), day: String(r.day) };
    const key = { ...base, contentId: String(r.content_id) };
    if (r.cents !== r.want_cents)
      out.push({ ...key, measure: `${r.kind}:cents`, rollup: Number(r.cents), recomputed: Number(r.want_cents) });
    if (r.entries !== r.want_entries)
      out.push({ ...key, measure: `${r.kind}:entries`, rollup: Number(r.entries), recomputed: Number(r.want_entries) });
  }
  for (const r of s?.results ?? []) {
    for (const m of SALES_MEASURES)
      if (r[m] !== r[`want_${m}`])
        out.push({
          table: "sales_daily",
          userId: String(r.creator_id),
          day: String(r.day),
          contentId: String(r.content_id),
          measure: m,
          rollup: Number(r[m]),
          recomputed: Number(r[`want_${m}`]),
        });
  }
  return out;
}
