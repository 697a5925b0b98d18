// A creator's money as the dashboard and /settings show it: stats, sales, the money timeline, the
// next payout and payout history. Every figure comes from worker/services/balances.ts (the ledger);
// every query is scoped to the creator's own id.
import { and, count, desc, eq, gt, isNull, lte, sql, sum } from "drizzle-orm";
import { MIN_PAYOUT_CENTS } from "../../shared/payouts";
import type { MoneyState, Sale, TimelineEvent, TimelinePage } from "../../shared/earnings";
import type { NextPayout, PayoutHistoryItem } from "../../shared/payouts";
import type { Db } from "../db/client";
import { content, payoutSettings, payoutSkips, payouts, purchases, salesDaily } from "../db/schema";
import { creatorBalance, SALE_HOLD_MS } from "./balances";
import { saleColumns, saleFromRow } from "./refunds/sale-view";
import { feeAdjustmentReason } from "./ledger";
import { saleTax, taxDetailsColumn } from "./tax/sale-tax-view";
import { payoutDelay } from "./payouts/delay";
import { destinationOf } from "./payouts/destination";
import { PAYOUT_RUN_HOUR_UTC, periodLabel } from "./payouts/period";

const dollars = (cents: unknown) => Number(cents ?? 0) / 100;

export async function earningsStats(db: Db, userId: string, now = Date.now()) {
  const [balance, [items, unlocks]] = await Promise.all([
    creatorBalance(db, userId, now),
    db.batch([
      db
        .select({ n: count() })
        .from(content)
        .where(and(eq(content.userId, userId), isNull(content.deletedAt), eq(content.isUpsell, false))),
      // Paid sales (not refunded, not disputed), from the rollup (docs/money.md "Rollups").
      db
        .select({ n: sum(salesDaily.unlocks) })
        .from(salesDaily)
        .where(eq(salesDaily.creatorId, userId)),
    ]),
  ]);
  return {
    availableBalance: dollars(balance.availableCents),
    totalEarnings: dollars(balance.totalEarningsCents),
    pendingPayouts: dollars(balance.pendingPayoutCents),
    contentCount: items[0]?.n ?? 0,
    totalUnlocks: Number(unlocks[0]?.n ?? 0),
    onHold: dollars(balance.onHoldCents),
    reserved: dollars(balance.reservedCents),
    paidOut: dollars(balance.paidOutCents),
    carriedNegative: dollars(balance.carriedNegativeCents),
    nextReleaseAt: balance.nextReleaseAt?.toISOString() ?? null,
  };
}

type Page = { cursor?: string; limit: number };

/** Rows after the cursor `${paidAtMs}.${id}`, newest first (index purchases_creator_paid). */
function afterCursor(cursor: string | undefined) {
  if (!cursor) return sql`1`;
  const dot = cursor.indexOf(".");
  const at = Number(cursor.slice(0, dot));
  const id = cursor.slice(dot + 1);
  // `paid_at <= at` first: a range SQLite seeks to, where the or alone made it walk every newer sale.
  return sql`${purchases.paidAt} <= ${at} and (${purchases.paidAt} < ${at} or (${purchases.paidAt} = ${at} and ${purchases.id} < ${id}))`;
}

const soldBy = (userId: string) =>
  and(
    eq(purchases.creatorId, userId),
    sql`${purchases.status} in ('paid', 'refunded', 'disputed')`,
    sql`${purchases.paidAt} is not null`,
  );

/** The creator's sales, newest first, one page, with where each one's refunds stand. Checkouts that never paid are not sales. */
export async function creatorSales(db: Db, userId: string, page: Page): Promise<Sale[]> {
  return (await creatorSalesQuery(db, userId, page)).map(saleFromRow);
}

/** The statement behind `creatorSales` (GET /dev/explain prints its plan). */
export function creatorSalesQuery(db: Db, userId: string, page: Page) {
  return db
    .select({
      id: purchases.id,
      buyerEmail: purchases.buyerEmail,
      productName: content.title,
      amountCents: purchases.amountCents,
      createdAt: purchases.paidAt,
      status: purchases.status,
      ...saleColumns,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .where(and(soldBy(userId), afterCursor(page.cursor)))
    .orderBy(desc(purchases.paidAt), desc(purchases.id))
    .limit(page.limit);
}

type PayoutRow = typeof payouts.$inferSelect;

/**
 * Where a sale's share stands. A payout takes everything available when it is prepared, so a sale
 * belongs to the first payout prepared after its hold ended (a failed payout gives its money back,
 * so the next one takes it).
 */
function stateOf(
  sale: { bookedAt: number; netCents: number; reversalKind: string | null },
  payoutsOldestFirst: PayoutRow[],
  now: number,
): MoneyState {
  if (sale.netCents <= 0 && sale.reversalKind)
    return { kind: "reversed", reason: sale.reversalKind === "dispute" ? "dispute" : "refund" };
  const releaseAt = sale.bookedAt + SALE_HOLD_MS;
  if (releaseAt > now) return { kind: "on_hold", until: new Date(releaseAt).toISOString() };
  const payout = payoutsOldestFirst.find((p) => p.status !== "failed" && p.createdAt.getTime() >= releaseAt);
  if (!payout) return { kind: "available" };
  if (payout.status === "paid")
    return { kind: "paid", payoutId: payout.id, paidAt: (payout.processedAt ?? payout.createdAt).toISOString() };
  if (payout.kind === "withdrawal") return { kind: "in_withdrawal", payoutId: payout.id };
  // Named for the month it pays (its period, "October 2026"), as the admin screen, CSV and emails
  // name it; not the month it runs in.
  return {
    kind: "in_payout",
    payoutId: payout.id,
    month: periodLabel({ year: payout.periodYear, month: payout.periodMonth }),
  };
}

/** Each sale with the creator's share and its state, newest first, one page. */
export async function moneyTimeline(db: Db, userId: string, page: Page, now = Date.now()): Promise<TimelinePage> {
  const [rows, userPayouts] = await db.batch([moneyTimelineQuery(db, userId, page), payoutsOldestFirst(db, userId)]);

  const items = rows.slice(0, page.limit).map((r) => {
    const bookedAt = Number(r.bookedAt ?? r.paidAt?.getTime() ?? now);
    const netCents = Number(r.netCents ?? 0);
    return {
      purchaseId: r.id,
      productName: r.productName,
      amount: r.amountCents / 100,
      creatorShare: dollars(r.shareCents),
      tax: saleTax(r.amountCents, r.taxCents, r.taxDetails),
      createdAt: r.paidAt?.toISOString() ?? null,
      state: stateOf({ bookedAt, netCents, reversalKind: r.reversalKind }, userPayouts, now),
      feeAdjustment: r.feeAdjustmentKey
        ? { amount: dollars(r.feeAdjustmentCents), reason: feeAdjustmentReason(r.feeAdjustmentKey) }
        : null,
      refund:
        r.refundCents && r.refundAt ? refundOf(Number(r.refundCents), Number(r.refundAt), bookedAt, userPayouts) : null,
    };
  });
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > page.limit && last ? `${last.createdAt ? Date.parse(last.createdAt) : 0}.${last.purchaseId}` : null;
  // This page's events: after the next page's first sale, up to this page's start (the cursor's time).
  const upTo = page.cursor ? Number(page.cursor.slice(0, page.cursor.indexOf("."))) : null;
  const after = nextCursor ? Number(nextCursor.slice(0, nextCursor.indexOf("."))) : null;
  const inWindow = (at: number) => (upTo === null || at <= upTo) && (after === null || at > after);
  const skips = await db
    .select()
    .from(payoutSkips)
    .where(
      and(
        eq(payoutSkips.userId, userId),
        upTo === null ? undefined : lte(payoutSkips.createdAt, new Date(upTo)),
        after === null ? undefined : gt(payoutSkips.createdAt, new Date(after)),
      ),
    );
  const events: TimelineEvent[] = [
    ...userPayouts.filter((p) => inWindow(p.createdAt.getTime())).map((p) => payoutEvent(p, now)),
    ...skips.map(
      (k): TimelineEvent => ({
        kind: "skip",
        id: k.id,
        month: periodLabel({ year: k.periodYear, month: k.periodMonth }),
        reason: k.reason,
        amount: k.amountCents / 100,
        at: k.createdAt.toISOString(),
      }),
    ),
  ].sort((a, b) => b.at.localeCompare(a.at));
  return { items, events, nextCursor };
}

/** The statement behind a `moneyTimeline` page (GET /dev/explain prints its plan). */
export function moneyTimelineQuery(db: Db, userId: string, page: Page) {
  return db
    .select({
      id: purchases.id,
      productName: content.title,
      amountCents: purchases.amountCents,
      taxCents: purchases.taxCents,
      taxDetails: taxDetailsColumn,
      paidAt: purchases.paidAt,
      // The sale's own ledger row starts the hold; its creator rows net of reversals are the share.
      bookedAt: sql<
        number | null
      >`(select min(created_at) from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind = 'sale')`,
      shareCents: sql<
        number | null
      >`(select sum(amount_cents) from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind = 'sale')`,
      netCents: sql<
        number | null
      >`(select sum(amount_cents) from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind in ('sale', 'refund', 'dispute', 'fee_adjustment'))`,
      feeAdjustmentCents: sql<
        number | null
      >`(select sum(amount_cents) from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind = 'fee_adjustment')`,
      feeAdjustmentKey: sql<
        string | null
      >`(select idempotency_key from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind = 'fee_adjustment' order by id limit 1)`,
      reversalKind: sql<
        string | null
      >`(select kind from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind in ('refund', 'dispute') and amount_cents < 0 order by id desc limit 1)`,
      refundCents: sql<
        number | null
      >`(select sum(amount_cents) from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind = 'refund')`,
      refundAt: sql<
        number | null
      >`(select max(created_at) from ledger_entries where purchase_id = ${purchases.id} and account = 'creator' and kind = 'refund')`,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .where(and(soldBy(userId), afterCursor(page.cursor)))
    .orderBy(desc(purchases.paidAt), desc(purchases.id))
    .limit(page.limit + 1);
}

/** The creator's payouts, oldest first (index payouts_user_created). */
function payoutsOldestFirst(db: Db, userId: string) {
  return db.select().from(payouts).where(eq(payouts.userId, userId)).orderBy(payouts.createdAt);
}

/** A sale's refunds on the timeline: paid out before the refund when a payout (not failed) took the share first. */
function refundOf(cents: number, at: number, bookedAt: number, payoutsOldestFirst: PayoutRow[]) {
  const releaseAt = bookedAt + SALE_HOLD_MS;
  const afterPayout = payoutsOldestFirst.some(
    (p) => p.status !== "failed" && p.createdAt.getTime() >= releaseAt && p.createdAt.getTime() <= at,
  );
  return { amount: dollars(cents), at: new Date(at).toISOString(), afterPayout };
}

/** A payout or withdrawal as a timeline entry: what it took, for which month, where it stands. */
function payoutEvent(p: PayoutRow, now: number): TimelineEvent {
  return {
    kind: "payout",
    id: p.id,
    payoutKind: p.kind,
    month: periodLabel({ year: p.periodYear, month: p.periodMonth }),
    amount: p.amountCents / 100,
    status: p.status,
    at: p.createdAt.toISOString(),
    paidAt: p.status === "paid" && p.processedAt ? p.processedAt.toISOString() : null,
    notes: p.notes,
    delay: delayOf(p, now),
  };
}

/** The creator's view of a waiting transfer (the admin's code stays on the server). */
function delayOf(p: PayoutRow, now: number) {
  const d = payoutDelay(p, now);
  return d && { reason: d.reason, nextTryAt: d.nextTryAt };
}

/**
 * When the next payout is prepared: the monthly run, 02:00 UTC on the 1st. Until 02:00 on the 1st
 * that is today's run; from then on, next month's.
 */
function nextPayoutDate(now: number): Date {
  const d = new Date(now);
  const thisMonths = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1, PAYOUT_RUN_HOUR_UTC);
  return new Date(
    now < thisMonths ? thisMonths : Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1, PAYOUT_RUN_HOUR_UTC),
  );
}

/** The next payout's date and the amount it would take if nothing else happened; or why there is none. */
export async function nextPayout(db: Db, userId: string, now = Date.now()): Promise<NextPayout> {
  const date = nextPayoutDate(now);
  const [atDate, settings] = await Promise.all([
    creatorBalance(db, userId, date),
    db.select().from(payoutSettings).where(eq(payoutSettings.userId, userId)).get(),
  ]);
  // The payout run's own rule: a connected account that can receive transfers, or a method and an email.
  const setUp = destinationOf(settings) !== null;
  const amountCents = atDate.availableCents;
  let reason: NextPayout["reason"] = null;
  // Nowhere to pay: say why. A bank that is connected but that Stripe does not (yet) let us transfer to.
  if (!setUp) reason = settings?.stripeAccountId && settings.connectDetailsSubmitted ? "bank_restricted" : "not_set_up";
  else if (amountCents < MIN_PAYOUT_CENTS)
    // "Below the minimum" only for a positive balance: nothing available (e.g. after a withdrawal) says so.
    reason =
      amountCents + atDate.onHoldCents >= MIN_PAYOUT_CENTS
        ? "on_hold"
        : amountCents <= 0
          ? "nothing_available"
          : "below_minimum";
  return { date: date.toISOString(), amount: dollars(amountCents), reason };
}

export async function payoutHistory(db: Db, userId: string, now = Date.now()): Promise<PayoutHistoryItem[]> {
  return (await payoutHistoryQuery(db, userId)).map((p) => historyItem(p, now));
}

/** The statement behind `payoutHistory` (index payouts_user_created; GET /dev/explain prints its plan). */
export function payoutHistoryQuery(db: Db, userId: string) {
  return db.select().from(payouts).where(eq(payouts.userId, userId)).orderBy(desc(payouts.createdAt)).limit(120);
}

export function historyItem(p: PayoutRow, now = Date.now()): PayoutHistoryItem {
  return {
    id: p.id,
    kind: p.kind,
    amount: p.amountCents / 100,
    payoutMethod: p.method,
    payoutEmail: p.email,
    notes: p.notes,
    createdAt: p.createdAt.toISOString(),
    status: p.status,
    paidAt: p.status === "paid" && p.processedAt ? p.processedAt.toISOString() : null,
    delay: delayOf(p, now),
  };
}
