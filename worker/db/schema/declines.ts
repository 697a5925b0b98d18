// Card testing and receipt abuse: declines by card, email and client address; the server-side
// confirms that tie a checkout to its client; cheap purchases' receipts. See docs/security.md.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

const ms = (name: string) => integer(name, { mode: "timestamp_ms" }).notNull();

// One row per decline Stripe reported (the confirm's 402 or payment_intent.payment_failed): keyed by
// the failed Charge, or `{payment intent}:{payment method}` for a failure without one, so both paths
// and a repeated event count once.
export const cardDeclines = sqliteTable(
  "card_declines",
  {
    id: text("id").primaryKey(),
    paymentIntentId: text("payment_intent_id").notNull(),
    fingerprint: text("fingerprint"),
    email: text("email"),
    // HMAC of the client's address (CF-Connecting-IP), never the address itself.
    clientHash: text("client_hash"),
    createdAt: ms("created_at"),
  },
  (t) => [
    index("card_declines_fingerprint").on(t.fingerprint, t.createdAt).where(sql`fingerprint is not null`),
    index("card_declines_email").on(t.email, t.createdAt).where(sql`email is not null`),
    index("card_declines_client").on(t.clientHash, t.createdAt).where(sql`client_hash is not null`),
  ],
);

// Each ConfirmationToken the server confirmed a checkout with, and who sent it.
export const checkoutConfirms = sqliteTable(
  "checkout_confirms",
  {
    confirmationToken: text("confirmation_token").primaryKey(),
    paymentIntentId: text("payment_intent_id").notNull(),
    fingerprint: text("fingerprint"),
    email: text("email"),
    clientHash: text("client_hash"),
    createdAt: ms("created_at"),
    // When Stripe answered (paid, declined, refused): until then the confirm counts toward the limits.
    answeredAt: integer("answered_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("checkout_confirms_intent").on(t.paymentIntentId, t.createdAt),
    index("checkout_confirms_client").on(t.clientHash, t.createdAt).where(sql`client_hash is not null`),
    index("checkout_confirms_fingerprint").on(t.fingerprint, t.createdAt).where(sql`fingerprint is not null`),
    index("checkout_confirms_email").on(t.email, t.createdAt).where(sql`email is not null`),
  ],
);

// The receipt of a purchase under CHEAP_RECEIPT_CENTS, written with it: the cap reads these.
export const cheapReceipts = sqliteTable(
  "cheap_receipts",
  {
    purchaseId: text("purchase_id").primaryKey(),
    creatorId: text("creator_id").notNull(),
    email: text("email").notNull(),
    fingerprint: text("fingerprint"),
    clientHash: text("client_hash"),
    buyerKeyHash: text("buyer_key_hash"),
    createdAt: ms("created_at"),
  },
  (t) => [
    index("cheap_receipts_creator").on(t.creatorId, t.createdAt),
    index("cheap_receipts_client").on(t.clientHash, t.createdAt).where(sql`client_hash is not null`),
    index("cheap_receipts_fingerprint").on(t.fingerprint, t.createdAt).where(sql`fingerprint is not null`),
    index("cheap_receipts_buyer").on(t.buyerKeyHash, t.createdAt).where(sql`buyer_key_hash is not null`),
  ],
);
