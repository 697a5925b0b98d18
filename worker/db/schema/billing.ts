// The creator's Pro plan: its Stripe subscriptions and the paid periods that give a 0% platform fee.
// See docs/money.md.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./accounts";

export const subscriptions = sqliteTable(
  "subscriptions",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    status: text("status").notNull(),
    currentPeriodEnd: integer("current_period_end", { mode: "timestamp_ms" }),
    cancelAtPeriodEnd: integer("cancel_at_period_end", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("subscriptions_user").on(t.userId)],
);

// Paid Pro periods, one per paid subscription invoice (Stripe's word: invoice.paid, re-read). A
// sale is booked at 0% fee when its payment falls inside one of its creator's paid periods; a
// subscription that ends early cuts its periods at the end.
export const proPeriods = sqliteTable(
  "pro_periods",
  {
    invoiceId: text("invoice_id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    subscriptionId: text("subscription_id").notNull(),
    startsAt: integer("starts_at", { mode: "timestamp_ms" }).notNull(),
    endsAt: integer("ends_at", { mode: "timestamp_ms" }).notNull(),
    // Set when Stripe took the invoice's money back (fully refunded, or a chargeback lost): the
    // period then gives no 0% fee, and its sales' fee is re-booked (fee_adjustment ledger rows).
    voidedAt: integer("voided_at", { mode: "timestamp_ms" }),
    voidReason: text("void_reason", { enum: ["refund", "dispute"] }),
    // When a chargeback of the invoice opened (Stripe withdrew its funds): from then on the period
    // gives no 0% fee, whatever the outcome; cleared if the dispute is won.
    disputedAt: integer("disputed_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("pro_periods_user").on(t.userId, t.startsAt), index("pro_periods_subscription").on(t.subscriptionId)],
);
