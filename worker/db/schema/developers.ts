// The creator API: API keys and their audit, outgoing webhook endpoints, deliveries and attempts.
// See docs/api-and-webhooks.md.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./accounts";

// A creator's API keys (worker/services/api-keys.ts). The secret itself is never stored: `hash` is
// its SHA-256, `prefix` its first characters so the creator can tell keys apart in a list. `scopes`
// is a JSON array of API_KEY_SCOPES (shared/developer.ts). A revoked key keeps its row (the audit
// names it); only rows with `revoked_at` null authenticate.
export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    scopes: text("scopes").notNull(),
    prefix: text("prefix").notNull(),
    hash: text("hash").notNull().unique(),
    createdAt: createdAt(),
    lastUsedAt: integer("last_used_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("api_keys_user").on(t.userId, t.revokedAt)],
);

// What happened to each key, written in the same D1 batch as the change (created, revoked) or when
// a key was refused on a route or scope (used_denied). Ids of created/revoked rows are derived from
// the key, so a repeated revoke writes nothing twice.
export const apiKeyEvents = sqliteTable(
  "api_key_events",
  {
    id: text("id").primaryKey(),
    keyId: text("key_id")
      .notNull()
      .references(() => apiKeys.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    action: text("action", { enum: ["created", "revoked", "used", "used_denied"] }).notNull(),
    detail: text("detail"),
    ip: text("ip"),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("api_key_events_user").on(t.userId, t.at)],
);

// Creators' outgoing webhook endpoints (worker/services/webhooks/delivery.ts). `events` is a JSON array of
// WEBHOOK_EVENT_TYPES (shared/webhooks.ts); `secret` is the Standard Webhooks signing secret
// (`whsec_` + base64 of 32 random bytes), shown to its owner on demand, stored encrypted
// (services/webhook-secrets.ts; rows from before hold it in the clear until read). `failing_since` is the first
// failed attempt since the last success: three days of it disables the endpoint.
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    events: text("events").notNull(),
    secret: text("secret").notNull(),
    status: text("status", { enum: ["active", "disabled"] })
      .notNull()
      .default("active"),
    disabledReason: text("disabled_reason"),
    failingSince: integer("failing_since", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [index("webhook_endpoints_user").on(t.userId, t.status)],
);

// One message per endpoint and event, written in the batch of the change that causes it. `id` is the
// Standard Webhooks `webhook-id`, the same on every attempt and resend; (endpoint_id, event_key) is
// unique, so a repeated batch writes nothing. Status: pending → delivered | failed | disabled
// (a resend makes a final row pending again). `next_attempt_at` is when the queue should bring it next (also a
// lease while an attempt runs); the sweep hands over again a pending row long past it.
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    eventKey: text("event_key").notNull(),
    type: text("type").notNull(),
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed", "disabled"] })
      .notNull()
      .default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }).notNull(),
    firstAttemptAt: integer("first_attempt_at", { mode: "timestamp_ms" }),
    lastAttemptAt: integer("last_attempt_at", { mode: "timestamp_ms" }),
    lastStatus: integer("last_status"),
    lastResponseExcerpt: text("last_response_excerpt"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event").on(t.endpointId, t.eventKey),
    index("webhook_deliveries_endpoint").on(t.endpointId, t.createdAt),
    index("webhook_deliveries_due").on(t.nextAttemptAt).where(sql`status = 'pending'`),
    // The daily sweep deletes deliveries (buyers' emails in their payloads) after 30 days.
    index("webhook_deliveries_created").on(t.createdAt),
  ],
);

// A creator's test events and resends (services/webhook-limits.ts): each is one row, written only
// while fewer than WEBHOOK_MANUAL_SENDS_PER_MINUTE were made in the last minute. Kept a day.
export const webhookManualSends = sqliteTable(
  "webhook_manual_sends",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["test", "resend"] }).notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("webhook_manual_sends_user").on(t.userId, t.at)],
);

// Every attempt of a delivery, for the log: the answer's status (null when there was none: `error`
// says why), the first 500 characters of the answer, and how long it took.
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    status: integer("status"),
    error: text("error"),
    responseExcerpt: text("response_excerpt"),
    durationMs: integer("duration_ms").notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("webhook_attempts_delivery").on(t.deliveryId, t.at)],
);
