// What the admin reads: the payout summary, creator rows for a month, monthly reports, the payout
// CSV (streamed) and the feedback inbox; and the 'Fix Missing Emails' repair. Every money figure is
// a sum over the append-only ledger (per-creator figures through balances.ts).
import { and, desc, eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import {
  adminRowStatus,
  FIX_EMAILS_PAGE,
  payoutRowStatus,
  type AdminCreatorPayoutRow,
  type AdminFeedbackItem,
  type FixPurchaseEmailsResult,
  type MonthlyReport,
} from "../../shared/admin";
import { MIN_PAYOUT_CENTS } from "../../shared/payouts";
import type { Db } from "../db/client";
import { adminAudit, feedback, payouts } from "../db/schema";
import { availableBalances } from "./balances";
import { destinationOf, type Actor, type Period } from "./payouts";

const dollars = (cents: unknown) => Number(cents ?? 0) / 100;
const REVENUE_KINDS = "('sale', 'platform_fee', 'refund', 'dispute', 'fee_adjustment')";

/** Spec §3 admin payout summary; each figure is one ledger sum. */
export async function payoutSummary(db: Db) {
  const [r] = await db.all<Record<string, number | null>>(
    sql.raw(`
    select
      (select sum(amount_cents) from ledger_entries where kind in ${REVENUE_KINDS}) as revenue,
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
  const [people, balances, periodPayouts] = await Promise.all([
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
  ]);
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
      }),
      payoutSetUp: !!dest,
      held: u.held_at !== null ? { at: new Date(Number(u.held_at)).toISOString(), reason: u.held_reason } : null,
      payout: p
        ? {
            id: p.id,
            amount: dollars(p.amountCents),
            status: p.status,
            method: p.method,
            byTransfer: p.stripeAccountId !== null,
            notes: p.failureCode ? `${p.failureCode}: ${p.failureDetail ?? ""}` : p.notes,
            reference: p.reference,
            nextRetryAt: iso(p.nextRetryAt),
            lastError: p.lastError,
          }
        : null,
    };
  });
  return rows.sort((a, b) => b.availableBalance - a.availableBalance || a.email.localeCompare(b.email));
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
      from ledger_entries where kind in ${REVENUE_KINDS.slice(0, -1)}, 'stripe_fee', 'dispute_fee') group by ym
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
    if (!r)
      byKey.set(
        key,
        (r = {
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
        }),
      );
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

// ---- CSV ----

export const CSV_COLUMNS = [
  "payout_id",
  "creator_id",
  "creator_name",
  "creator_email",
  "method",
  "payout_email",
  "amount",
  "currency",
  "status",
  "stripe_transfer_id",
  "stripe_account_id",
  "created_at",
  "processed_at",
  "notes",
] as const;

/**
 * A cell a spreadsheet could run as a formula: one starting with = + - @ (or their full-width forms
 * ＝ ＋ － ＠, which some spreadsheets read as the ASCII ones), also after leading blanks, a BOM or a
 * no-break space; and one starting with a tab, CR or LF, a BOM or a no-break space at all.
 */
const FORMULA_START = /^[\t\r\n\uFEFF\u00A0\u3000]|^[\s\uFEFF\u00A0\u3000]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * One CSV cell. A cell a spreadsheet would run as a formula (FORMULA_START) is prefixed with '
 * (OWASP's advice); cells with a comma, quote or line break are quoted.
 */
export function csvCell(value: unknown): string {
  let s = value === null || value === undefined ? "" : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const CSV_PAGE = 500;

/**
 * The CSV's status column, one per payout: the payout's own status (pending, processing, paid,
 * failed), except that a transfer Stripe has not settled and that waits for a retry reads
 * 'retrying', as the admin list says (payoutRowStatus).
 */
const csvStatus = (r: Record<string, unknown>) =>
  payoutRowStatus({ status: r.status as never, nextRetryAt: r.next_retry_at, lastError: r.last_error }) === "Retrying"
    ? "retrying"
    : String(r.status);

/**
 * The period's payouts as CSV, read page by page (keyset on payouts_period) as the client reads the
 * stream, and how many rows it holds (the route sends it as CSV_ROW_COUNT_HEADER).
 *
 * A download must never look complete when it is not. The rows are those that existed when the
 * export began (created_at up to then), so the count and the pages agree even while a run prepares
 * more. A page that fails to read (a D1 error after the first page) errors the stream: the body
 * ends without its last chunk and the client's read fails; the admin page also compares the rows it
 * received with the count and refuses to save a short file. A stream that ends with fewer rows than
 * counted (a row gone, which payouts never are) errors too rather than closing.
 */
export async function payoutsCsvExport(
  db: Db,
  period: Period,
  opts: { pageSize?: number; now?: number } = {},
): Promise<{ rowCount: number; stream: ReadableStream<Uint8Array> }> {
  const pageSize = opts.pageSize ?? CSV_PAGE;
  const asOf = opts.now ?? Date.now();
  const [counted] = await db.all<{ n: number }>(sql`
    select count(*) as n from payouts p join users u on u.id = p.user_id
    where p.period_year = ${period.year} and p.period_month = ${period.month} and p.created_at <= ${asOf}
  `);
  const rowCount = Number(counted?.n ?? 0);
  const encoder = new TextEncoder();
  let after = "";
  let headerSent = false;
  let written = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n`));
          return;
        }
        let page: Record<string, unknown>[];
        try {
          page = await db.all<Record<string, unknown>>(sql`
          select p.id, p.user_id, trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')) as name, u.email as creator_email,
                 p.method, p.email, p.amount_cents, p.currency, p.status, p.next_retry_at, p.last_error, p.stripe_transfer_id, p.stripe_account_id, p.created_at, p.processed_at, p.notes
          from payouts p join users u on u.id = p.user_id
          where p.period_year = ${period.year} and p.period_month = ${period.month} and p.created_at <= ${asOf} and p.id > ${after}
          order by p.id limit ${pageSize}
        `);
        } catch (err) {
          console.error("payout CSV: a page failed to read; the download is cut off, not ended", {
            period,
            written,
            rowCount,
            error: err instanceof Error ? err.message : String(err),
          });
          controller.error(err);
          return;
        }
        if (!page.length) {
          if (written === rowCount) return controller.close();
          const err = new Error(`payout CSV ended after ${written} of ${rowCount} rows`);
          console.error(err.message, { period });
          return controller.error(err);
        }
        written += page.length;
        after = String(page[page.length - 1].id);
        const iso = (ms: unknown) => (ms === null || ms === undefined ? "" : new Date(Number(ms)).toISOString());
        const text = page
          .map((r) =>
            [
              r.id,
              r.user_id,
              r.name,
              r.creator_email,
              r.method,
              r.email,
              (Number(r.amount_cents) / 100).toFixed(2),
              r.currency,
              csvStatus(r),
              r.stripe_transfer_id,
              r.stripe_account_id,
              iso(r.created_at),
              iso(r.processed_at),
              r.notes,
            ]
              .map(csvCell)
              .join(","),
          )
          .join("\r\n");
        controller.enqueue(encoder.encode(`${text}\r\n`));
      },
    },
    { highWaterMark: 0 },
  );
  return { rowCount, stream };
}

export const csvFileName = (p: Period) => `payouts-${p.year}-${String(p.month).padStart(2, "0")}.csv`;

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

// ---- Fix Missing Emails ----

/**
 * Paid purchases without a buyer email get it from Stripe: the charge's billing details, else its
 * receipt email, else the PaymentIntent's receipt email. Only empty emails are written.
 *
 * One call looks at FIX_EMAILS_PAGE purchases, oldest first, after the cursor `after` (a Worker may
 * make only so many subrequests, and each purchase may ask Stripe twice), and answers where to go on
 * from and how many remain. Purchases Stripe has no email for are passed over, not retried forever.
 */
export async function fixPurchaseEmails(
  deps: { db: Db; d1: D1Database; stripe: Stripe },
  actor: Actor,
  after?: string,
): Promise<FixPurchaseEmailsResult> {
  const missingWhere =
    "status = 'paid' and (buyer_email is null or buyer_email = '') and payment_intent_id is not null";
  const [afterAt, afterId] = after
    ? [Number(after.slice(0, after.indexOf("."))), after.slice(after.indexOf(".") + 1)]
    : [-1, ""];
  const missing = await deps.d1
    .prepare(
      `select id, payment_intent_id, created_at from purchases where ${missingWhere} and (created_at, id) > (?, ?) order by created_at, id limit ?`,
    )
    .bind(afterAt, afterId, FIX_EMAILS_PAGE)
    .all<{ id: string; payment_intent_id: string; created_at: number }>();
  let fixed = 0;
  for (const p of missing.results) {
    try {
      const intent = await deps.stripe.paymentIntents.retrieve(p.payment_intent_id);
      const chargeId = typeof intent.latest_charge === "string" ? intent.latest_charge : intent.latest_charge?.id;
      const charge = chargeId ? await deps.stripe.charges.retrieve(chargeId) : null;
      const email = (charge?.billing_details?.email || charge?.receipt_email || intent.receipt_email || "")
        .trim()
        .toLowerCase();
      if (!email) continue;
      const updated = await deps.d1
        .prepare(
          "update purchases set buyer_email = ? where id = ? and (buyer_email is null or buyer_email = '') returning id",
        )
        .bind(email, p.id)
        .all();
      fixed += updated.results.length;
    } catch (err) {
      console.warn("could not fix the email of purchase", p.id, err instanceof Error ? err.message : err);
    }
  }
  const last = missing.results.at(-1);
  const next = last ? `${last.created_at}.${last.id}` : null;
  const remaining = last
    ? ((
        await deps.d1
          .prepare(`select count(*) as n from purchases where ${missingWhere} and (created_at, id) > (?, ?)`)
          .bind(last.created_at, last.id)
          .first<{ n: number }>()
      )?.n ?? 0)
    : 0;
  const total = missing.results.length;
  await deps.db.insert(adminAudit).values({
    actorUserId: actor.userId,
    actorEmail: actor.email,
    action: "fix-purchase-emails",
    detail: JSON.stringify({ fixed, total, remaining, after: after ?? null }),
  });
  return { fixed, total, remaining, next: remaining > 0 ? next : null };
}
