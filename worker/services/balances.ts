// The one place that computes a creator's money, from the append-only ledger and nothing else:
// on hold, reserved (two-phase `reserve` rows), available (`availableRemainderSql`, which every mover
// takes inside its own statement), in payouts and paid out; available is never shown below zero.
// Behaviour: docs/money.md ("Balances", "Creator figures", "Reservations").
import { type SQL, sql } from "drizzle-orm";
import { SALE_HOLD_DAYS } from "../../shared/payouts";
import type { Db } from "../db/client";
import { ledgerEntries } from "../db/schema";

const DAY_MS = 24 * 60 * 60 * 1000;
export const SALE_HOLD_MS = SALE_HOLD_DAYS * DAY_MS;

export type CreatorBalance = {
  /** What the next payout may take: released sales net of reversals and payouts, never below zero. */
  availableCents: number;
  /** Sales (net of their reversals and reservations) still inside the hold. */
  onHoldCents: number;
  /** Money on its way out of available (refunds at Stripe, open inquiries), not yet posted or voided. */
  reservedCents: number;
  /** Money in payouts that are prepared (pending) or being sent (processing). */
  pendingPayoutCents: number;
  paidOutCents: number;
  /** Sales net of refunds and disputes, ever. Payouts move money; they do not change earnings. */
  totalEarningsCents: number;
  /** When reversals exceed what is available, the shortfall carried into future sales. */
  carriedNegativeCents: number;
  /** When the oldest sale still on hold becomes available (null when nothing is on hold). */
  nextReleaseAt: Date | null;
};

const int = (v: unknown) => Number(v ?? 0);

/** The ledger kinds that make a creator's earnings: sales net of refunds, disputes and fee adjustments (analytics' revenue too). */
export const EARNING_KINDS_SQL = sql.raw("('sale', 'refund', 'dispute', 'fee_adjustment')");

/** The ledger kinds of a reservation and its closing row: not earnings, not a payout, only not available. */
const RESERVATION_KINDS = ["reserve", "reserve_posted", "reserve_voided"] as const;
const RESERVATION_KINDS_SQL = sql.raw(`(${RESERVATION_KINDS.map((k) => `'${k}'`).join(", ")})`);

/** Every ledger kind but a sale: what a sale's refunds, disputes, fees and reservations are booked as. */
const AFTER_SALE_KINDS_SQL = sql.raw(
  `(${ledgerEntries.kind.enumValues
    .filter((k) => k !== "sale")
    .map((k) => `'${k}'`)
    .join(", ")})`,
);
const ALL_KINDS_SQL = sql.raw(`(${ledgerEntries.kind.enumValues.map((k) => `'${k}'`).join(", ")})`);

/**
 * The creator's figures as of `now` (entries written after `now` are not counted), for the dashboard:
 * the dashboard's read-only figures, never a mover's (movers compute available in their own statement,
 * `availableRemainderSql`). The statement's parts and their plans are `creatorBalanceSql`.
 */
export async function creatorBalance(db: Db, userId: string, now: Date | number = Date.now()): Promise<CreatorBalance> {
  const [r] = await db.all<Record<string, number | null>>(creatorBalanceSql(userId, +now));
  const onHold = Math.max(0, int(r?.held));
  const remainder = int(r?.net) - onHold;
  return {
    availableCents: Math.max(0, remainder),
    onHoldCents: onHold,
    reservedCents: int(r?.reserved),
    pendingPayoutCents: int(r?.pending),
    paidOutCents: int(r?.paid_out),
    totalEarningsCents: int(r?.earned),
    carriedNegativeCents: Math.max(0, -remainder),
    nextReleaseAt: r?.oldest_held ? new Date(int(r.oldest_held) + SALE_HOLD_MS) : null,
  };
}

/**
 * The one statement behind `creatorBalance`. Its cost does not grow with the creator's sales:
 * - net and earned: the days before `at`'s UTC day from the rollup ledger_daily (a row per day, item
 *   and kind), plus that day's own rows up to `at` from the ledger (index ledger_user_kind_created);
 * - on hold: the sales of the last SALE_HOLD_DAYS (an index range), plus the later rows (refunds,
 *   disputes, fees, reservations) written since the hold began on a sale still in it: a sale's
 *   later rows are never dated before the sale itself;
 * - reserved, pending and paid out: the creator's few reservation and payout rows.
 */
export function creatorBalanceSql(userId: string, at: number) {
  const cutoff = at - SALE_HOLD_MS;
  const dayStart = at - (((at % DAY_MS) + DAY_MS) % DAY_MS);
  const day = new Date(dayStart).toISOString().slice(0, 10);
  const saleInHold = (purchase: SQL) => sql`exists (select 1 from ledger_entries s
        where s.purchase_id = ${purchase} and s.account = 'creator' and s.kind = 'sale' and s.created_at > ${cutoff} and s.created_at <= ${at})`;
  return sql`
    with past as (
      select sum(cents) as net, sum(case when kind in ${EARNING_KINDS_SQL} then cents end) as earned
      from ledger_daily where user_id = ${userId} and day < ${day}
    ),
    today as (
      select sum(amount_cents) as net, sum(case when kind in ${EARNING_KINDS_SQL} then amount_cents end) as earned
      from ledger_entries where user_id = ${userId} and account = 'creator' and kind in ${ALL_KINDS_SQL}
        and created_at >= ${dayStart} and created_at <= ${at}
    )
    select
      coalesce(past.net, 0) + coalesce(today.net, 0) as net,
      coalesce(past.earned, 0) + coalesce(today.earned, 0) as earned,
      coalesce((select sum(amount_cents) from ledger_entries
        where user_id = ${userId} and account = 'creator' and kind = 'sale' and created_at > ${cutoff} and created_at <= ${at}), 0)
      + coalesce((select sum(r.amount_cents) from ledger_entries r
        where r.user_id = ${userId} and r.account = 'creator' and r.kind in ${AFTER_SALE_KINDS_SQL}
          and r.created_at > ${cutoff} and r.created_at <= ${at} and ${saleInHold(sql`r.purchase_id`)}), 0) as held,
      (select min(created_at) from ledger_entries
        where user_id = ${userId} and account = 'creator' and kind = 'sale' and created_at > ${cutoff} and created_at <= ${at}) as oldest_held,
      (select -sum(r.amount_cents) from ledger_entries r
        where r.user_id = ${userId} and r.account = 'creator' and r.kind in ${RESERVATION_KINDS_SQL} and r.created_at <= ${at}
          and not ${saleInHold(sql`r.purchase_id`)}) as reserved,
      (select -sum(l.amount_cents) from ledger_entries l join payouts p on p.id = l.payout_id
        where l.user_id = ${userId} and l.account = 'creator' and l.kind = 'payout' and l.created_at <= ${at} and p.status in ('pending', 'processing')) as pending,
      (select -sum(l.amount_cents) from ledger_entries l join payouts p on p.id = l.payout_id
        where l.user_id = ${userId} and l.account = 'creator' and l.kind = 'payout' and l.created_at <= ${at} and p.status = 'paid') as paid_out
    from past, today
  `;
}

export type AvailableRow = { userId: string; availableCents: number; carriedNegativeCents: number };

/**
 * Every creator's available balance as of `now`, in one aggregate statement (for the payout run).
 * `minCents` leaves out creators below it (e.g. MIN_PAYOUT_CENTS); `userIds` narrows to some
 * creators. Rows are ordered by user id.
 */
export async function availableBalances(
  db: Db,
  now: Date | number = Date.now(),
  opts: { minCents?: number; userIds?: string[] } = {},
): Promise<AvailableRow[]> {
  const at = +now;
  const cutoff = at - SALE_HOLD_MS;
  const only = opts.userIds
    ? opts.userIds.length
      ? sql`and user_id in (${sql.join(
          opts.userIds.map((id) => sql`${id}`),
          sql`, `,
        )})`
      : sql`and 0`
    : sql``;
  const onlyS = opts.userIds
    ? opts.userIds.length
      ? sql`and s.user_id in (${sql.join(
          opts.userIds.map((id) => sql`${id}`),
          sql`, `,
        )})`
      : sql`and 0`
    : sql``;
  const rows = await db.all<{ user_id: string; remainder: number }>(sql`
    with net as (
      select user_id, sum(amount_cents) as cents from ledger_entries
      where account = 'creator' and user_id is not null and created_at <= ${at} ${only}
      group by user_id
    ),
    held as (
      select user_id, sum(amount_cents) as cents from ledger_entries
      where account = 'creator' and created_at <= ${at} and purchase_id in (
        select purchase_id from ledger_entries s
        where s.account = 'creator' and s.kind = 'sale' and s.created_at > ${cutoff} and s.created_at <= ${at} ${onlyS})
      group by user_id
    )
    select net.user_id, net.cents - max(0, coalesce(held.cents, 0)) as remainder
    from net left join held on held.user_id = net.user_id
    where net.cents - max(0, coalesce(held.cents, 0)) >= ${opts.minCents ?? Number.MIN_SAFE_INTEGER}
    order by net.user_id
  `);
  return rows.map((r) => ({
    userId: r.user_id,
    availableCents: Math.max(0, int(r.remainder)),
    carriedNegativeCents: Math.max(0, -int(r.remainder)),
  }));
}

/**
 * The same remainder as `availableBalances` (net minus what is still on hold; negative when a
 * shortfall is carried) for one creator, as SQL text for a raw D1 statement, so that a write can
 * compute the amount it takes inside the statement that takes it (the payout run). The arguments
 * are the statement's placeholders (e.g. "?2") for the user id, `now` and `now - SALE_HOLD_MS`.
 */
export function availableRemainderSql(user: string, at: string, cutoff: string): string {
  return `(
    coalesce((select sum(amount_cents) from ledger_entries
      where user_id = ${user} and account = 'creator' and created_at <= ${at}), 0)
    - max(0, coalesce((select sum(amount_cents) from ledger_entries
      where user_id = ${user} and account = 'creator' and created_at <= ${at} and purchase_id in (
        select purchase_id from ledger_entries s
        where s.user_id = ${user} and s.account = 'creator' and s.kind = 'sale' and s.created_at > ${cutoff} and s.created_at <= ${at})), 0))
  )`;
}

// ---- reservations: money on its way, held back before it moves ----

/** SQL for the creator's share of `cents` of the purchase row `p`, pro rata of its creator rows, as `reverseSale` books it. */
export const creatorShareSql = (p: string, cents: string) =>
  `cast(round(${cents} * 1.0 * coalesce((select sum(amount_cents) from ledger_entries where purchase_id = ${p}.id and account = 'creator' and kind in ('sale', 'fee_adjustment')), 0) / ${p}.amount_cents) as integer)`;

/**
 * SQL for the creator's available remainder (negative: below zero) once one more reservation of
 * `share` cents on `purchase` is counted: every row of theirs, whatever its date (a payout prepared
 * for a later clock included), and the hold as of `cutoff`. A reservation on a sale still on hold
 * comes out of the hold first, as its refund will. Arguments are placeholders or SQL expressions.
 */
export function availableAfterSql(user: string, cutoff: string, purchase: string, share: string): string {
  const heldSales = `select purchase_id from ledger_entries s where s.user_id = ${user} and s.account = 'creator' and s.kind = 'sale' and s.created_at > ${cutoff}`;
  return `(
    coalesce((select sum(amount_cents) from ledger_entries where user_id = ${user} and account = 'creator'), 0) - ${share}
    - max(0, coalesce((select sum(amount_cents) from ledger_entries where user_id = ${user} and account = 'creator' and purchase_id in (${heldSales})), 0)
             - (case when ${purchase} in (${heldSales}) then ${share} else 0 end))
  )`;
}

export type Reservation = {
  /** Names what is on its way: `refund-request:{id}`, `refund:{re}`, `inquiry:{dp}`. Keys `reserve:{ref}` and `release:{ref}`. */
  ref: string;
  purchaseId: string;
  /** Of the sale's amount (what the buyer gets back); the reservation is the creator's share of it. */
  cents: number;
  now: number;
};

/**
 * A D1 statement that reserves the creator's share of `r.cents` of the sale, once per ref. With
 * `guard` (SQL over `p`, the purchase, and `share`, this reservation), only where it holds, in the
 * same statement: the creator refund's overdraft limit on available, the sale's own remainder.
 * `changes` is 1 when it reserved.
 */
export function reserve(
  d1: D1Database,
  r: Reservation,
  guard?: { sql: string; binds: unknown[] },
): D1PreparedStatement {
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, purchase_id, content_id, created_at)
       select 'reserve:' || ?1, 'creator', p.creator_id, 'reserve', -p.share, p.currency, p.id, p.content_id, ?4
       from (select p.*, ${creatorShareSql("p", "?3")} as share from purchases p where p.id = ?2 and p.amount_cents > 0) p
       where p.share > 0 and not exists (select 1 from ledger_entries where idempotency_key = 'release:' || ?1)
         ${guard ? `and (${guard.sql})` : ""}
       on conflict (idempotency_key) do nothing`,
    )
    .bind(r.ref, r.purchaseId, r.cents, r.now, ...(guard?.binds ?? []));
}

/**
 * A D1 statement that closes reservations, once each: `posted` when their money moved (the row that
 * moved it is written in the same batch, before this one), `voided` when it did not. `refs` is SQL
 * selecting the refs to close (with its binds after `?1` = now, `?2` = how).
 */
export function release(
  d1: D1Database,
  refsSql: string,
  binds: readonly unknown[],
  how: "posted" | "voided",
  now: number,
): D1PreparedStatement {
  return d1
    .prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, purchase_id, content_id, created_at)
       select 'release:' || substr(l.idempotency_key, 9), 'creator', l.user_id, 'reserve_' || ?2, -l.amount_cents, l.currency, l.purchase_id, l.content_id, ?1
       from ledger_entries l where l.idempotency_key in (select 'reserve:' || ref from (${refsSql}))
       on conflict (idempotency_key) do nothing`,
    )
    .bind(now, how, ...binds);
}
