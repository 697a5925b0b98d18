// What became of each email sent: the provider's message id with what it was (which purchase's
// receipt, to whom) and its delivery state, and the provider's events, each once by its id.
// The states and their one transition table: worker/services/mail/delivery-states.ts; docs/payments.md.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { MAIL_DELIVERY_STATES } from "../../../shared/mail";

export const mailDeliveries = sqliteTable(
  "mail_deliveries",
  {
    // Resend's `id` (its webhooks' `data.email_id`); the dev mailbox's message id locally.
    messageId: text("message_id").primaryKey(),
    // The email job's dedupe key (emails_sent, outbox_emails).
    dedupeKey: text("dedupe_key").notNull(),
    template: text("template").notNull(),
    toEmail: text("to_email").notNull(),
    // The purchase a receipt is about (an order email: the order's first purchase); null for other emails.
    purchaseId: text("purchase_id"),
    state: text("state", { enum: MAIL_DELIVERY_STATES }).notNull().default("sent"),
    bounceReason: text("bounce_reason"),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [
    index("mail_deliveries_purchase").on(t.purchaseId, t.sentAt).where(sql`purchase_id is not null`),
    // The sweep's: emails that are no receipt are kept as long as the outbox keeps sent rows.
    index("mail_deliveries_other_sent").on(t.sentAt).where(sql`purchase_id is null`),
  ],
);

// One row per provider event (Svix's message id): a redelivered event changes nothing.
export const mailEvents = sqliteTable(
  "mail_events",
  {
    id: text("id").primaryKey(),
    messageId: text("message_id").notNull(),
    type: text("type").notNull(),
    occurredAt: integer("occurred_at", { mode: "timestamp_ms" }),
    receivedAt: integer("received_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("mail_events_received").on(t.receivedAt)],
);
