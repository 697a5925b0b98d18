// Money: the append-only ledger (balances are sums over it, never stored), where a creator's payouts
// go, the payouts themselves, and the admin's audit. See docs/money.md.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./accounts";

// Append-only. A creator's balance is the sum of their entries; a retried write is a no-op
// because every entry carries a unique idempotency key.
export const ledgerEntries = sqliteTable(
  "ledger_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    idempotencyKey: text("idempotency_key").notNull().unique(),
    // "tax": sales tax and VAT collected for the tax authorities, never a creator's or ApeWall's income.
    account: text("account", { enum: ["creator", "platform", "tax"] }).notNull(),
    userId: text("user_id").references(() => users.id),
    kind: text("kind", {
      enum: [
        "sale",
        "platform_fee",
        "refund",
        "dispute",
        "payout",
        "payout_reversal",
        "subscription",
        "fee_adjustment",
        "reserve",
        "reserve_posted",
        "reserve_voided",
        "stripe_fee",
        "dispute_fee",
        "tax",
      ],
    }).notNull(),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull().default("usd"),
    purchaseId: text("purchase_id"),
    // The item sold, on sale, fee and reversal rows (null on payout rows): the content list sums an
    // item's earnings from the creator's own index range instead of joining every purchase.
    contentId: text("content_id"),
    payoutId: text("payout_id"),
    createdAt: createdAt(),
  },
  (t) => [
    // Covering index for every per-creator figure (worker/services/balances.ts): sums by kind and
    // the recent-sales range that is still on hold read the index only, never the table.
    index("ledger_user_kind_created").on(t.userId, t.account, t.kind, t.createdAt, t.amountCents),
    index("ledger_user_content").on(t.userId, t.account, t.contentId, t.kind, t.amountCents),
    // Covers the per-item earnings sum (and reversals of one purchase) without reading the table.
    index("ledger_purchase").on(t.purchaseId, t.account, t.kind, t.amountCents),
    index("ledger_payout").on(t.payoutId),
  ],
);

export const payoutSettings = sqliteTable("payout_settings", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  // The creator's manual method (paid by hand by the admin) and its account's email. 'bank' is kept
  // only for rows written before bank payouts went through Connect alone: it counts as not set up.
  method: text("method", { enum: ["paypal", "wise", "bank", "zelle", "venmo", "cashapp"] }),
  email: text("email"),
  // Where payouts go when both are possible: the connected bank ('bank', also when null) or the
  // manual method ('manual'). Either falls back to the other when it cannot be paid.
  payoutDefault: text("payout_default", { enum: ["bank", "manual"] }),
  stripeAccountId: text("stripe_account_id").unique(),
  connectDetailsSubmitted: integer("connect_details_submitted", { mode: "boolean" }).notNull().default(false),
  // Stripe's word (account.updated, or the account re-read): the account can receive transfers.
  connectPayoutsEnabled: integer("connect_payouts_enabled", { mode: "boolean" }).notNull().default(false),
  // The admin held this creator's payouts (the run skips them, with the reason on their timeline)
  // until released; null when not held.
  heldAt: integer("held_at", { mode: "timestamp_ms" }),
  heldReason: text("held_reason"),
  updatedAt: createdAt(),
});

// Every change of where a creator's payouts go (services/payout-destination.ts), written in the
// batch of the change: `field` is `manual_method` (method and email) or `default`; the values are
// written out in full ("paypal old@example.com", "bank"); `ip` is the request's CF-Connecting-IP.
export const payoutDestinationEvents = sqliteTable(
  "payout_destination_events",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    field: text("field", { enum: ["manual_method", "default", "bank"] }).notNull(),
    oldValue: text("old_value"),
    newValue: text("new_value").notNull(),
    ip: text("ip"),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("payout_destination_events_user").on(t.userId, t.at)],
);

export const payouts = sqliteTable(
  "payouts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    // 'monthly': the run's payout for its period; 'withdrawal': the creator's "Withdraw now" (its
    // period is the month it was asked for; at most one open at a time).
    kind: text("kind", { enum: ["monthly", "withdrawal"] })
      .notNull()
      .default("monthly"),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull().default("usd"),
    method: text("method").notNull(),
    email: text("email"),
    status: text("status", { enum: ["pending", "processing", "paid", "failed"] })
      .notNull()
      .default("pending"),
    periodYear: integer("period_year").notNull(),
    periodMonth: integer("period_month").notNull(),
    notes: text("notes"),
    stripeTransferId: text("stripe_transfer_id"),
    // Set when the payout is paid by a Stripe Transfer to this connected account (taken from the
    // creator's settings when the payout is prepared); null for the methods the admin pays by hand.
    stripeAccountId: text("stripe_account_id"),
    createdAt: createdAt(),
    processedAt: integer("processed_at", { mode: "timestamp_ms" }),
    // The transfer attempt: Stripe's Idempotency-Key is the payout id (attempt 0), then `{id}:{n}`.
    // It moves on only after Stripe answered an attempt with an error it keeps under that key
    // (e.g. balance_insufficient): that key can never make a transfer, and a retry needs a new one.
    sendAttempt: integer("send_attempt").notNull().default(0),
    // A transient Stripe error left the payout processing: when it is tried again, and why.
    nextRetryAt: integer("next_retry_at", { mode: "timestamp_ms" }),
    lastError: text("last_error"),
    // Why the latest attempt is waiting, as a code: Stripe's error code (e.g. `balance_insufficient`:
    // the platform's available balance is short), its type when it has no code (`api_error`,
    // `rate_limit_error`), `no_answer`, or `held` (the admin held the creator). The creator's words and
    // the admin's reason are made from it (delay.ts `payoutDelay`).
    retryCode: text("retry_code"),
    // Why a payout failed, for the admin (Stripe's code and message); `notes` says it to the creator.
    failureCode: text("failure_code"),
    failureDetail: text("failure_detail"),
    // What the admin recorded when marking a manual payout paid (e.g. the PayPal transaction id).
    reference: text("reference"),
  },
  (t) => [
    // At most one live monthly payout per creator and period. A failed payout gave its money back
    // and leaves the index, so the period can be prepared again for that creator (a retry).
    uniqueIndex("payouts_user_period")
      .on(t.userId, t.periodYear, t.periodMonth)
      .where(sql`status <> 'failed' and kind = 'monthly'`),
    // At most one open withdrawal per creator: two presses at once make one.
    uniqueIndex("payouts_open_withdrawal")
      .on(t.userId)
      .where(sql`kind = 'withdrawal' and status in ('pending', 'processing')`),
    index("payouts_period").on(t.periodYear, t.periodMonth, t.id),
    index("payouts_status").on(t.status),
    // A creator's payouts newest first (payout history, the money timeline).
    index("payouts_user_created").on(t.userId, t.createdAt),
  ],
);

// A creator the monthly run did not pay for a period, and why: the run writes it (with the email that
// tells them, in the same batch) once per creator and period; the timeline shows it.
export const payoutSkips = sqliteTable(
  "payout_skips",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    periodYear: integer("period_year").notNull(),
    periodMonth: integer("period_month").notNull(),
    reason: text("reason", { enum: ["below_minimum", "not_set_up", "held"] }).notNull(),
    // The creator's available balance when the run skipped them: it carries over to the next run.
    amountCents: integer("amount_cents").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("payout_skips_user_period").on(t.userId, t.periodYear, t.periodMonth)],
);

// Every admin action that moves money (and every scheduled payout run): who, what, when, period.
export const adminAudit = sqliteTable(
  "admin_audit",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    // Null for the Cron Trigger.
    actorUserId: text("actor_user_id").references(() => users.id, { onDelete: "set null" }),
    actorEmail: text("actor_email"),
    action: text("action").notNull(),
    periodYear: integer("period_year"),
    periodMonth: integer("period_month"),
    detail: text("detail"),
    createdAt: createdAt(),
  },
  (t) => [index("admin_audit_created").on(t.createdAt)],
);
