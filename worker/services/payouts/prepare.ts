// Prepare: the decision of how much each creator is paid for a period. One D1 batch per creator (or
// per chunk of a page) inserts the payout row and its negative 'payout' ledger row, the amount
// computed inside the INSERT from the ledger; the unique indexes make a repeat a no-op, so the step
// is safe to repeat or run at once. A creator not paid gets a payout_skips row and its email.
// Behaviour: docs/money.md ("The monthly payout run").
import { eq } from "drizzle-orm";
import { MIN_PAYOUT_CENTS } from "../../../shared/payouts";
import { payoutSettings } from "../../db/schema";
import { newId } from "../../lib/ids";
import { availableRemainderSql, SALE_HOLD_MS } from "../balances";
import { dispatch } from "../mail/email-outbox";
import type { PayoutDeps, PayoutRow } from "./deps";
import { destinationOf, skipReason, type Destination, type SkipReason } from "./destination";
import { payoutMailInsert, skipMailInsert } from "./notices";
import type { Period } from "./period";

/**
 * The two statements that prepare one creator's payout for `period`, as of `now`. Nothing is
 * written when the creator's available balance at that moment is below the minimum, when a live
 * payout for the period exists (unique index), or when a payout ledger row dated after `now`
 * exists (a concurrent run for another period whose clock is ahead: what it took is not inside our
 * "as of now" sum). The amount is the smaller of the available balance as of `now` and as of the
 * moment the statement runs: a refund, dispute or fee booked after `now` (a late page of a long run,
 * or a step retried hours later) is never paid out as if
 * it had not happened, while money released after `now` waits for the next run. `kind`
 * 'withdrawal' (./withdraw-now.ts) takes the same money by the same rule, so the run and a withdrawal
 * never both take a cent; its unique index is payouts_open_withdrawal instead of payouts_user_period.
 */
export function prepareStatements(
  d1: D1Database,
  payoutId: string,
  userId: string,
  dest: Destination,
  period: Period,
  now: number,
  kind: PayoutRow["kind"] = "monthly",
): D1PreparedStatement[] {
  const wall = Math.max(now, Date.now());
  return [
    d1
      .prepare(
        `insert into payouts (id, user_id, amount_cents, currency, method, email, stripe_account_id, status, period_year, period_month, created_at, kind)
         select ?1, ?2, a.cents, 'usd', ?3, ?4, ?5, 'pending', ?6, ?7, ?8, ?11
         from (select min(${availableRemainderSql("?2", "?8", "?9")}, ${availableRemainderSql("?2", "?12", "?13")}) as cents) a
         where a.cents >= ?10
           and not exists (select 1 from ledger_entries where user_id = ?2 and account = 'creator' and kind = 'payout' and created_at > ?8)
           and not exists (select 1 from payout_settings where user_id = ?2 and held_at is not null)
         on conflict do nothing
         returning id`,
      )
      .bind(
        payoutId,
        userId,
        dest.method,
        dest.email,
        dest.stripeAccountId,
        period.year,
        period.month,
        now,
        now - SALE_HOLD_MS,
        MIN_PAYOUT_CENTS,
        kind,
        wall,
        wall - SALE_HOLD_MS,
      ),
    d1
      .prepare(
        `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, currency, payout_id, created_at)
         select 'payout:' || id, 'creator', user_id, 'payout', -amount_cents, currency, id, created_at from payouts where id = ?1
         on conflict (idempotency_key) do nothing`,
      )
      .bind(payoutId),
  ];
}

/** Prepares one creator's payout for `period` (one D1 batch). Returns the new payout's id, or null when none was created. */
export async function preparePayout(
  deps: PayoutDeps,
  userId: string,
  period: Period,
  now = Date.now(),
): Promise<string | null> {
  const settings = await deps.db.select().from(payoutSettings).where(eq(payoutSettings.userId, userId)).get();
  const dest = destinationOf(settings);
  if (!dest || settings?.heldAt) return null;
  const id = newId();
  const ids = JSON.stringify([id]);
  const [inserted] = await deps.d1.batch([
    ...prepareStatements(deps.d1, id, userId, dest, period, now),
    payoutMailInsert(
      deps,
      "payout-prepared",
      { where: "p.id in (select value from json_each(?5))", binds: [ids] },
      now,
    ),
  ]);
  if (!inserted.results?.length) return null;
  await dispatch(deps.d1, deps.emails, [`payout-prepared:${id}`], now);
  return id;
}

/** Creators per D1 batch in a prepare page: each paid one keeps its own two guarded statements, each skipped one one. */
const PREPARE_CHUNK = 50;

/** Creators one prepare step looks at (one Workflow step: about 25 D1 round trips, see preparePage). */
const PREPARE_PAGE = 500;

type PageRow = {
  user_id: string;
  remainder: number;
  method: string | null;
  email: string | null;
  stripe_account_id: string | null;
  connect_payouts_enabled: number | null;
  payout_default: "bank" | "manual" | null;
  held_at: number | null;
  has_payout: number;
};

/** What one prepare step did: `next` is the last creator looked at (null when the period is done). */
export type PreparePageResult = {
  next: string | null;
  creators: number;
  prepared: number;
  skipped: number;
  d1RoundTrips: number;
};

/**
 * One page of the period's creators (keyset by user id, after `after`): one query reads each
 * creator's available balance as of `now`, their settings and whether the period already has a
 * live payout; then, in batches of PREPARE_CHUNK creators, each due creator gets prepareStatements
 * and each skipped one (skipReason) a payout_skips row, with one outbox statement per batch for the
 * prepared and one for the skipped (keyed by the row that exists, so a step run twice emails once).
 * A creator whose period already has a live payout is left alone. Safe to repeat: every write is
 * guarded by the unique indexes (payouts_user_period, payout_skips_user_period, ledger and outbox keys).
 */
export async function preparePage(
  deps: PayoutDeps,
  period: Period,
  now: number,
  after: string,
  size = PREPARE_PAGE,
): Promise<PreparePageResult> {
  let trips = 1;
  const { results: page } = await deps.d1
    .prepare(
      `with page as (select distinct user_id from ledger_entries where user_id > ?1 and account = 'creator' order by user_id limit ?2),
       net as (select user_id, sum(amount_cents) as cents from ledger_entries
         where account = 'creator' and user_id in (select user_id from page) and created_at <= ?3 group by user_id),
       held as (select user_id, sum(amount_cents) as cents from ledger_entries
         where account = 'creator' and user_id in (select user_id from page) and created_at <= ?3 and purchase_id in (
           select purchase_id from ledger_entries s where s.account = 'creator' and s.kind = 'sale'
             and s.user_id in (select user_id from page) and s.created_at > ?4 and s.created_at <= ?3)
         group by user_id)
       select page.user_id, coalesce(net.cents, 0) - max(0, coalesce(held.cents, 0)) as remainder,
         ps.method, ps.email, ps.stripe_account_id, ps.connect_payouts_enabled, ps.payout_default, ps.held_at,
         exists (select 1 from payouts p where p.user_id = page.user_id and p.kind = 'monthly' and p.period_year = ?5 and p.period_month = ?6 and p.status <> 'failed') as has_payout
       from page left join net on net.user_id = page.user_id left join held on held.user_id = page.user_id
         left join payout_settings ps on ps.user_id = page.user_id
       order by page.user_id`,
    )
    .bind(after, size, now, now - SALE_HOLD_MS, period.year, period.month)
    .all<PageRow>();
  const pay: { id: string; userId: string; dest: Destination }[] = [];
  const skip: { id: string; userId: string; reason: SkipReason; cents: number }[] = [];
  for (const r of page) {
    if (r.has_payout) continue;
    const dest = destinationOf({
      method: r.method as never,
      email: r.email,
      stripeAccountId: r.stripe_account_id,
      connectPayoutsEnabled: !!r.connect_payouts_enabled,
      payoutDefault: r.payout_default,
    });
    const reason = skipReason(r.remainder, dest, r.held_at != null);
    if (reason) skip.push({ id: newId(), userId: r.user_id, reason, cents: r.remainder });
    else if (dest && r.remainder >= MIN_PAYOUT_CENTS) pay.push({ id: newId(), userId: r.user_id, dest });
  }
  const prepared: string[] = [];
  const skipped: string[] = [];
  for (let i = 0; i < Math.max(pay.length, skip.length); i += PREPARE_CHUNK) {
    const payChunk = pay.slice(i, i + PREPARE_CHUNK);
    const skipChunk = skip.slice(i, i + PREPARE_CHUNK);
    const stmts = payChunk.flatMap((t) => prepareStatements(deps.d1, t.id, t.userId, t.dest, period, now));
    if (payChunk.length)
      stmts.push(
        payoutMailInsert(
          deps,
          "payout-prepared",
          { where: "p.id in (select value from json_each(?5))", binds: [JSON.stringify(payChunk.map((t) => t.id))] },
          now,
        ),
      );
    const firstSkip = stmts.length;
    for (const s of skipChunk) {
      stmts.push(
        deps.d1
          .prepare(
            "insert into payout_skips (id, user_id, period_year, period_month, reason, amount_cents, created_at) values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing returning id",
          )
          .bind(s.id, s.userId, period.year, period.month, s.reason, s.cents, now),
      );
    }
    if (skipChunk.length)
      stmts.push(
        skipMailInsert(
          deps,
          skipChunk.map((s) => s.id),
          now,
        ),
      );
    trips++;
    const results = await deps.d1.batch(stmts);
    payChunk.forEach((t, j) => {
      if (results[j * 2].results?.length) prepared.push(t.id);
    });
    skipChunk.forEach((s, j) => {
      if (results[firstSkip + j].results?.length) skipped.push(s.id);
    });
  }
  const mails = [...prepared.map((id) => `payout-prepared:${id}`), ...skipped.map((id) => `payout-skipped:${id}`)];
  await dispatch(deps.d1, deps.emails, mails, now);
  trips += Math.ceil(mails.length / 50) * 2;
  return {
    next: page.length === size ? page[page.length - 1].user_id : null,
    creators: page.length,
    prepared: prepared.length,
    skipped: skipped.length,
    d1RoundTrips: trips,
  };
}
