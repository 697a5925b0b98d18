// What the admin reads: the payout summary, creator rows for a month, monthly reports and the
// feedback inbox. Every money figure is a sum over the append-only ledger (per-creator figures
// through balances.ts). The payout CSV is ./payouts-csv.ts; the 'Fix Missing Emails' repair is
// ./fix-purchase-emails.ts. See docs/money.md.
import { and, desc, eq, sql } from "drizzle-orm";
import {
  adminRowStatus,
  type AdminCreatorPayoutRow,
  type AdminFeedbackItem,
  type MonthlyReport,
} from "../../shared/admin";
import { MIN_PAYOUT_CENTS } from "../../shared/payouts";
import type { Db } from "../db/client";
import { feedback, payouts } from "../db/schema";
import { availableBalances } from "./balances";
import { payoutDelay } from "./payouts/delay";
import { destinationOf } from "./payouts/destination";
import type { Period } from "./payouts/period";

const dollars = (cents: unknown) => Number(cents ?? 0) / 100;
const REVENUE_KINDS = "('sale', 'platform_fee', 'refund', 'dispute', 'fee_adjustment')";
// Tax collected (account 'tax', and the tax part of each reversal) is no one's revenue: left out of every figure here.
const NOT_TAX = "account <> 'tax'";

/** Spec §3 admin payout summary; each figure is one ledger sum. */
export async function payoutSummary(db: Db) {
  const [r] = await db.all<Record<string, number | null>>(
    sql.raw(`
    select
      (select sum(amount_cents) from ledger_entries where kind in ${REVENUE_KINDS} and ${NOT_TAX}) as revenue,
      (select sum(amount_cents) from ledger_entries where account = 'platform' and kind in ${REVENUE_KINDS}) as commission,
      (select -sum(l.amount_cents) from ledger_entries l join payouts p on p.id = l.payout_id where l.kind = 'payout' and p.status = 'paid') as paid,
      (select -sum(l.amount_cents) from ledger_entries l join payouts p on p.id = l.payout_id where l.kind = 'payout' and p.status in ('pending', 'processing')) as pending,
      (select count(*) from (select user_id from content union select user_id from ledger_entries where account = 'creator')) as creators
  `),
  );
  return {
    totalRevenue: dollars(r?.revenue),
    platformCommission: dollars(r?.commission),
    totalPayouts: dollars(r?.paid),
    creatorCount: Number(r?.creators ?? 0),
    pendingPayouts: dollars(r?.pending),
  };
}

/**
 * One row per creator (anyone with content or ledger entries): spec §3's fields, their monthly
 * payout for `period`, the hold, and the row's status by the one rule (shared/admin.ts
 * adminRowStatus): from the period's payout, the hold, the destination (destinationOf) and what is
 * available now.
 */
export async function creatorPayoutRows(db: Db, period: Period, now = Date.now()): Promise<AdminCreatorPayoutRow[]> {
  const d = new Date(now);
  const monthStart = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const [people, balances, periodPayouts, paidThisMonth] = await Promise.all([
    db.all<{
      id: string;
      email: string;
      first_name: string | null;
      last_name: string | null;
      content_count: number;
      earned: number | null;
      method: string | null;
      payout_email: string | null;
      stripe_account_id: string | null;
      connect_details_submitted: number | null;
      connect_payouts_enabled: number | null;
      payout_default: "bank" | "manual" | null;
      held_at: number | null;
      held_reason: string | null;
    }>(sql`
      with creators as (select user_id from content union select user_id from ledger_entries where account = 'creator' and user_id is not null),
      items as (select user_id, count(*) as n from content where deleted_at is null and is_upsell = 0 group by user_id),
      earned as (select user_id, sum(amount_cents) as cents from ledger_entries where account = 'creator' and kind in ('sale', 'refund', 'dispute', 'fee_adjustment') group by user_id)
      select u.id, u.email, u.first_name, u.last_name, coalesce(items.n, 0) as content_count, earned.cents as earned,
             s.method, s.email as payout_email, s.stripe_account_id, s.connect_details_submitted, s.connect_payouts_enabled, s.payout_default, s.held_at, s.held_reason
      from creators c join users u on u.id = c.user_id
      left join items on items.user_id = u.id
      left join earned on earned.user_id = u.id
      left join payout_settings s on s.user_id = u.id
    `),
    availableBalances(db, now),
    db
      .select()
      .from(payouts)
      .where(
        and(eq(payouts.kind, "monthly"), eq(payouts.periodYear, period.year), eq(payouts.periodMonth, period.month)),
      )
      .orderBy(payouts.createdAt),
    // A payout or withdrawal paid this calendar month: a creator with nothing left reads 'Paid this month'.
    db.all<{ user_id: string; at: number }>(sql`
      select user_id, max(processed_at) as at from payouts where status = 'paid' and processed_at >= ${monthStart} group by user_id
    `),
  ]);
  const paidAt = new Map(paidThisMonth.map((r) => [r.user_id, Number(r.at)]));
  const available = new Map(balances.map((b) => [b.userId, b.availableCents]));
  // The live payout wins over failed attempts of the same period (rows come oldest first).
  const payoutOf = new Map<string, (typeof periodPayouts)[number]>();
  for (const p of periodPayouts) if (p.status !== "failed" || !payoutOf.has(p.userId)) payoutOf.set(p.userId, p);
  const rows = people.map((u): AdminCreatorPayoutRow => {
    const availableCents = available.get(u.id) ?? 0;
    const dest = destinationOf(
      u.method || u.stripe_account_id
        ? {
            method: u.method as never,
            email: u.payout_email,
            stripeAccountId: u.stripe_account_id,
            connectPayoutsEnabled: !!u.connect_payouts_enabled,
            payoutDefault: u.payout_default,
          }
        : undefined,
    );
    const p = payoutOf.get(u.id);
    const iso = (d: Date | null) => (d ? d.toISOString() : null);
    return {
      userId: u.id,
      firstName: u.first_name,
      lastName: u.last_name,
      email: u.email,
      totalEarnings: dollars(u.earned),
      availableBalance: dollars(availableCents),
      // Where the admin pays: the payout's own method and email once it is prepared (what the payout
      // row and the CSV record), the current settings before that.
      payoutMethod: p ? p.method : (dest?.method ?? u.method),
      payoutEmail: p ? p.email : dest ? dest.email : u.payout_email,
      contentCount: Number(u.content_count),
      ...adminRowStatus({
        payout: p ?? null,
        held: u.held_at !== null,
        setUp: !!dest,
        availableCents,
        minCents: MIN_PAYOUT_CENTS,
        paidThisMonth: paidAt.has(u.id),
      }),
      paidThisMonthAt: paidAt.has(u.id) ? new Date(paidAt.get(u.id)!).toISOString() : null,
      payoutSetUp: !!dest,
      held: u.held_at !== null ? { at: new Date(Number(u.held_at)).toISOString(), reason: u.held_reason } : null,
      payout: p
        ? {
            id: p.id,
            amount: dollars(p.amountCents),
            status: p.status,
            method: p.method,
            email: p.email,
            byTransfer: p.stripeAccountId !== null,
            notes: p.status === "failed" ? failureWords(p) : null,
            preparedAt: p.createdAt.toISOString(),
            reference: p.reference,
            nextRetryAt: payoutDelay(p)?.nextTryAt ?? iso(p.nextRetryAt),
            lastError: p.lastError,
          }
        : null,
    };
  });
  return rows.sort((a, b) => b.availableBalance - a.availableBalance || a.email.localeCompare(b.email));
}

/**
 * Why a payout failed, in words for the admin: who marked it failed and why, a reversed transfer, or
 * what Stripe said about the destination (never a bare code like `marked_failed_by_admin: …`).
 */
function failureWords(p: {
  failureCode: string | null;
  failureDetail: string | null;
  notes: string | null;
}): string | null {
  if (p.failureCode === "marked_failed_by_admin") return p.failureDetail ?? p.notes;
  if (p.failureCode === "transfer_reversed")
    return "The transfer was reversed: the money came back from the creator's bank account.";
  if (p.failureCode && p.failureDetail) return `Stripe refused the transfer: ${p.failureDetail}`;
  return p.notes;
}

/** Month by month, newest first: revenue, the platform's share, payouts paid for that month, sales. */
export async function monthlyReports(db: Db, months = 12): Promise<MonthlyReport[]> {
  const [ledger, paid] = await Promise.all([
    db.all<{
      ym: string;
      revenue: number;
      platform: number;
      tx: number;
      gross: number;
      refunds: number;
      disputes: number;
      stripe_fees: number;
      dispute_fees: number;
      below_fee: number;
    }>(
      sql.raw(`
      select strftime('%Y-%m', created_at / 1000, 'unixepoch') as ym,
             sum(case when kind in ${REVENUE_KINDS} then amount_cents else 0 end) as revenue,
             sum(case when account = 'platform' and kind in ${REVENUE_KINDS} then amount_cents else 0 end) as platform,
             sum(case when account = 'creator' and kind = 'sale' then 1 else 0 end) as tx,
             sum(case when kind in ('sale', 'platform_fee') then amount_cents else 0 end) as gross,
             -sum(case when kind = 'refund' then amount_cents else 0 end) as refunds,
             -sum(case when kind = 'dispute' then amount_cents else 0 end) as disputes,
             -sum(case when kind = 'stripe_fee' then amount_cents else 0 end) as stripe_fees,
             -sum(case when kind = 'dispute_fee' then amount_cents else 0 end) as dispute_fees,
             sum(case when kind = 'stripe_fee' and -amount_cents > coalesce((select sum(s.amount_cents) from ledger_entries s
                   where s.kind = 'platform_fee' and s.purchase_id in (select ledger_entries.purchase_id union select id from purchases where bump_of = ledger_entries.purchase_id)), 0)
                 then 1 else 0 end) as below_fee
      from ledger_entries where kind in ${REVENUE_KINDS.slice(0, -1)}, 'stripe_fee', 'dispute_fee') and ${NOT_TAX} group by ym
    `),
    ),
    db.all<{ year: number; month: number; cents: number }>(sql`
      select p.period_year as year, p.period_month as month, -sum(l.amount_cents) as cents
      from ledger_entries l join payouts p on p.id = l.payout_id
      where l.kind = 'payout' and p.status = 'paid' group by p.period_year, p.period_month
    `),
  ]);
  const byKey = new Map<string, MonthlyReport>();
  const at = (year: number, month: number) => {
    const key = `${year}-${String(month).padStart(2, "0")}`;
    let r = byKey.get(key);
    if (!r) {
      r = {
        month,
        year,
        totalRevenue: 0,
        platformEarnings: 0,
        creatorPayouts: 0,
        transactionCount: 0,
        grossSales: 0,
        refunds: 0,
        disputes: 0,
        stripeFees: 0,
        disputeFees: 0,
        platformNet: 0,
        salesBelowFee: 0,
      };
      byKey.set(key, r);
    }
    return r;
  };
  for (const l of ledger) {
    const r = at(Number(l.ym.slice(0, 4)), Number(l.ym.slice(5, 7)));
    r.totalRevenue = dollars(l.revenue);
    r.platformEarnings = dollars(l.platform);
    r.transactionCount = Number(l.tx);
    r.grossSales = dollars(l.gross);
    r.refunds = dollars(l.refunds);
    r.disputes = dollars(l.disputes);
    r.stripeFees = dollars(l.stripe_fees);
    r.disputeFees = dollars(l.dispute_fees);
    r.platformNet = dollars(Number(l.platform) - Number(l.stripe_fees) - Number(l.dispute_fees));
    r.salesBelowFee = Number(l.below_fee);
  }
  for (const p of paid) at(p.year, p.month).creatorPayouts = dollars(p.cents);
  return [...byKey.values()].sort((a, b) => b.year - a.year || b.month - a.month).slice(0, months);
}

// ---- feedback inbox ----

export async function feedbackInbox(
  db: Db,
  filter: { type?: string; priority?: string },
  limit = 200,
): Promise<AdminFeedbackItem[]> {
  const rows = await db
    .select()
    .from(feedback)
    .where(
      and(
        filter.type ? eq(feedback.type, filter.type as never) : undefined,
        filter.priority ? eq(feedback.priority, filter.priority as never) : undefined,
      ),
    )
    .orderBy(desc(feedback.createdAt), desc(feedback.id))
    .limit(limit);
  return rows.map((f) => ({
    id: f.id,
    type: f.type,
    priority: f.priority,
    subject: f.subject,
    message: f.message,
    email: f.email,
    createdAt: f.createdAt.toISOString(),
  }));
}
