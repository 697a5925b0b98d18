// Email: the transactional outbox, the record of every email sent, and addresses that unsubscribed
// from checkout reminders. See docs/operations.md.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";

// Every email the app sends, keyed so that a redelivered queue message sends nothing twice.
export const emailsSent = sqliteTable("emails_sent", {
  dedupeKey: text("dedupe_key").primaryKey(),
  toEmail: text("to_email").notNull(),
  kind: text("kind").notNull(),
  subject: text("subject").notNull(),
  status: text("status", { enum: ["sending", "sent"] })
    .notNull()
    .default("sending"),
  // Set when a consumer takes the message; a stale claim (crashed consumer) may be taken over.
  claimedAt: integer("claimed_at", { mode: "timestamp_ms" }).notNull(),
  providerMessageId: text("provider_message_id"),
  createdAt: createdAt(),
  sentAt: integer("sent_at", { mode: "timestamp_ms" }),
});

// The transactional outbox: every email job is written here in the same D1 batch as the change that
// causes it, then handed to the EMAILS queue. Rows the queue never delivered (a failed send, a message
// that ran out of retries) are handed over again by the sweep (worker/services/mail/email-outbox.ts).
export const outboxEmails = sqliteTable(
  "outbox_emails",
  {
    // The job's dedupe key: one row per email, also the mail API's Idempotency-Key.
    id: text("id").primaryKey(),
    job: text("job").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    // Last hand-over to the queue; the sweep hands a row over again when this is old.
    enqueuedAt: integer("enqueued_at", { mode: "timestamp_ms" }),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    sentAt: integer("sent_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("outbox_emails_unsent").on(t.enqueuedAt).where(sql`sent_at is null`)],
);

// Addresses that asked for no more checkout reminders (worker/services/purchases/recovery.ts): honoured for good.
// Receipts and access emails still go: they are what the buyer paid for.
export const emailUnsubscribes = sqliteTable("email_unsubscribes", {
  email: text("email").primaryKey(),
  createdAt: createdAt(),
});
