// The dashboard's figures as they were computed before the rollups, straight from the ledger and the
// purchases (the statements worker/services/balances.ts and analytics.ts ran then): the reference the
// rollup-backed answers must equal (docs/money.md "Rollups").
import { env } from "../support/helpers";

const HOLD_MS = 7 * 24 * 60 * 60 * 1000;
const EARNING = "('sale', 'refund', 'dispute', 'fee_adjustment')";
const PAID_LIKE = "('paid', 'refunded', 'disputed')";

/** creatorBalance's figures (cents) as of `at`, from the whole ledger. */
export async function ledgerBalance(userId: string, at: number) {
  const r = await env.DB.prepare(`
    with totals as (
      select sum(amount_cents) as net, sum(case when kind in ${EARNING} then amount_cents end) as earned
      from ledger_entries where user_id = ?1 and account = 'creator' and created_at <= ?2
    )
    select totals.net as net, totals.earned as earned,
      (select sum(amount_cents) from ledger_entries where account = 'creator' and created_at <= ?2 and purchase_id in (
        select purchase_id from ledger_entries where user_id = ?1 and account = 'creator' and kind = 'sale' and created_at > ?3 and created_at <= ?2)) as held,
      (select min(created_at) from ledger_entries
        where user_id = ?1 and account = 'creator' and kind = 'sale' and created_at > ?3 and created_at <= ?2) as oldest_held,
      (select -sum(amount_cents) from ledger_entries
        where user_id = ?1 and account = 'creator' and kind in ('reserve', 'reserve_posted', 'reserve_voided') and created_at <= ?2 and purchase_id not in (
          select purchase_id from ledger_entries where user_id = ?1 and account = 'creator' and kind = 'sale' and created_at > ?3 and created_at <= ?2)) as reserved,
      (select -sum(l.amount_cents) from ledger_entries l join payouts p on p.id = l.payout_id
        where l.user_id = ?1 and l.account = 'creator' and l.kind = 'payout' and l.created_at <= ?2 and p.status in ('pending', 'processing')) as pending,
      (select -sum(l.amount_cents) from ledger_entries l join payouts p on p.id = l.payout_id
        where l.user_id = ?1 and l.account = 'creator' and l.kind = 'payout' and l.created_at <= ?2 and p.status = 'paid') as paid_out
    from totals`)
    .bind(userId, at, at - HOLD_MS)
    .first<Record<string, number | null>>();
  const onHold = Math.max(0, Number(r?.held ?? 0));
  const remainder = Number(r?.net ?? 0) - onHold;
  return {
    availableCents: Math.max(0, remainder),
    onHoldCents: onHold,
    reservedCents: Number(r?.reserved ?? 0),
    pendingPayoutCents: Number(r?.pending ?? 0),
    paidOutCents: Number(r?.paid_out ?? 0),
    totalEarningsCents: Number(r?.earned ?? 0),
    carriedNegativeCents: Math.max(0, -remainder),
    nextReleaseAt: r?.oldest_held ? new Date(Number(r.oldest_held) + HOLD_MS) : null,
  };
}

/** Paid purchases and earnings (cents) per item, as the content list summed them. */
export async function itemFigures(userId: string) {
  const unlocks = await env.DB.prepare(
    "select content_id, count(*) as n from purchases where creator_id = ? and status = 'paid' group by 1",
  )
    .bind(userId)
    .all<{ content_id: string; n: number }>();
  const earned = await env.DB.prepare(
    `select content_id, sum(amount_cents) as cents from ledger_entries where user_id = ? and account = 'creator' and kind in ${EARNING} group by 1`,
  )
    .bind(userId)
    .all<{ content_id: string; cents: number }>();
  return {
    unlocks: new Map(unlocks.results.map((u) => [u.content_id, u.n])),
    earned: new Map(earned.results.map((e) => [e.content_id, e.cents])),
  };
}

export type Measure = "c" | "k" | "s" | "d" | "b" | "f" | "r";

/** Analytics' per-item, per-day measures since `fromMs` (checkouts, paid checkouts, sales, paywall, bump and step sales, revenue in cents). */
export async function analyticsMeasures(userId: string, fromMs: number) {
  const day = (c: string) => `strftime('%Y-%m-%d', ${c} / 1000, 'unixepoch')`;
  const { results } = await env.DB.prepare(`
    select p.content_id, ${day("p.created_at")} as day, 'c' as measure, count(distinct coalesce(p.buyer_key_hash, p.id)) as n
      from purchases p where p.creator_id = ?1 and p.created_at >= ?2 and p.funnel_step_id is null and p.bump_of is null group by 1, 2
    union all
    select p.content_id, ${day("p.created_at")}, 'k', count(distinct coalesce(p.buyer_key_hash, p.id))
      from purchases p where p.creator_id = ?1 and p.created_at >= ?2 and p.funnel_step_id is null and p.bump_of is null
        and p.status in ${PAID_LIKE} group by 1, 2
    union all
    select p.content_id, ${day("p.paid_at")}, 's', count(*)
      from purchases p where p.creator_id = ?1 and p.paid_at >= ?2 and p.status in ${PAID_LIKE} group by 1, 2
    union all
    select p.content_id, ${day("p.paid_at")}, 'd', count(*)
      from purchases p where p.creator_id = ?1 and p.paid_at >= ?2 and p.status in ${PAID_LIKE} and p.funnel_step_id is null and p.bump_of is null group by 1, 2
    union all
    select p.content_id, ${day("l.created_at")}, 'r', sum(l.amount_cents)
      from ledger_entries l join purchases p on p.id = l.purchase_id
      where l.user_id = ?1 and l.account = 'creator' and l.kind in ${EARNING} and l.created_at >= ?2 group by 1, 2`)
    .bind(userId, fromMs)
    .all<{ content_id: string; day: string; measure: Measure; n: number }>();
  const more = await env.DB.prepare(`
    select p.content_id, ${day("p.paid_at")} as day, case when p.bump_of is not null then 'b' else 'f' end as measure, count(*) as n
      from purchases p where p.creator_id = ?1 and p.paid_at >= ?2 and p.status in ${PAID_LIKE}
        and (p.funnel_step_id is not null or p.bump_of is not null) group by 1, 2, 3`)
    .bind(userId, fromMs)
    .all<{ content_id: string; day: string; measure: Measure; n: number }>();
  return [...results, ...more.results].filter((r) => Number(r.n) !== 0);
}
