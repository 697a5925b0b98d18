// Card testing: the client address that started each checkout (an HMAC, never the address), so a
// decline made straight at Stripe with the client secret still counts for it. See docs/security.md.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const checkoutStarts = sqliteTable(
  "checkout_starts",
  {
    paymentIntentId: text("payment_intent_id").primaryKey(),
    clientHash: text("client_hash"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [index("checkout_starts_created").on(t.createdAt)],
);
