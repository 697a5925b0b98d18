// Sales and what comes with them: purchases, the buyer's saved Customer, Stripe events handled once,
// creators' refund requests, license keys, and discount codes. See docs/payments.md and
// docs/checkout-and-codes.md.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./accounts";
import { content } from "./content";

export const purchases = sqliteTable(
  "purchases",
  {
    id: text("id").primaryKey(),
    contentId: text("content_id")
      .notNull()
      .references(() => content.id),
    creatorId: text("creator_id")
      .notNull()
      .references(() => users.id),
    buyerEmail: text("buyer_email"),
    /** What the buyer pays, tax included (gross). */
    amountCents: integer("amount_cents").notNull(),
    /** Of which tax (sales tax, VAT, GST) ApeWall collects and owes; net = amount - tax (docs/tax.md). */
    taxCents: integer("tax_cents").notNull().default(0),
    currency: text("currency").notNull().default("usd"),
    status: text("status", { enum: ["pending", "paid", "failed", "refunded", "disputed"] })
      .notNull()
      .default("pending"),
    paymentIntentId: text("payment_intent_id").unique(),
    stripeCustomerId: text("stripe_customer_id"),
    // Unused: access tokens are derived (HMAC of the purchase id), so nothing secret is stored.
    accessTokenHash: text("access_token_hash").unique(),
    // SHA-256 of the paying browser's key (the aw_buyer cookie): only that browser may claim the
    // purchase before it holds the access link.
    buyerKeyHash: text("buyer_key_hash"),
    funnelStepId: text("funnel_step_id"),
    parentPurchaseId: text("parent_purchase_id"),
    // The discount code the checkout was started with, and what it took off the list price (cents).
    discountCodeId: text("discount_code_id"),
    discountCents: integer("discount_cents").notNull().default(0),
    // The abandoned checkout whose reminder email brought the buyer back (worker/services/purchases/recovery.ts).
    recoveredFrom: text("recovered_from"),
    // An order bump's purchase: the main purchase it was paid with (one PaymentIntent for both, which
    // stays on the main purchase: payment_intent_id is null here).
    bumpOf: text("bump_of"),
    // The checkout offered an order bump (ticked or not): the denominator of the item's bump take rate.
    bumpOffered: integer("bump_offered", { mode: "boolean" }).notNull().default(false),
    // The buyer ticked "Don't send me a reminder" at checkout (worker/services/purchases/recovery.ts).
    noReminder: integer("no_reminder", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    paidAt: integer("paid_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    // Since when its PaymentIntent is `processing` (a payment that settles later): paid-pending, not
    // abandoned and not to be bought again; null again if that payment fails
    // (worker/services/purchases/processing.ts).
    processingSince: integer("processing_since", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("purchases_creator_created").on(t.creatorId, t.createdAt),
    // The sales tab and the money timeline page newest-first by paid_at (cursor: paid_at, id).
    index("purchases_creator_paid").on(t.creatorId, t.paidAt, t.id),
    // Counting a creator's paid sales (total unlocks) reads this index only.
    index("purchases_creator_status").on(t.creatorId, t.status, t.contentId),
    // Covers the content list's per-item unlock count and its join to the item's ledger rows.
    index("purchases_content").on(t.contentId, t.status, t.id),
    index("purchases_bump_of").on(t.bumpOf),
    index("purchases_buyer_key").on(t.buyerKeyHash, t.contentId),
    // A code's uses: its paid sales (worker/services/discounts.ts).
    index("purchases_discount_code").on(t.discountCodeId, t.status),
    // "Lost your access?" finds a buyer's purchases by email.
    index("purchases_buyer_email").on(t.buyerEmail, t.status),
    // Analytics' sales with a code, recovered sales and checkouts that offered a bump, over a range
    // of paid_at: partial, so they hold only those few rows (docs/money.md "Rollups").
    index("purchases_creator_code_paid").on(t.creatorId, t.paidAt).where(sql`discount_code_id is not null`),
    index("purchases_creator_recovered_paid").on(t.creatorId, t.paidAt).where(sql`recovered_from is not null`),
    index("purchases_creator_bump_offered_paid").on(t.creatorId, t.paidAt).where(sql`bump_offered = 1`),
  ],
);

// One payment-provider Customer per paying browser (its aw_buyer key), so a card saved at checkout
// can pay a one-click upsell from that browser. Not per email: a typed-in email is unverified.
export const buyerCustomers = sqliteTable("buyer_customers", {
  buyerKeyHash: text("buyer_key_hash").primaryKey(),
  stripeCustomerId: text("stripe_customer_id").notNull(),
  createdAt: createdAt(),
});

// Each payment-provider webhook event is handled once.
export const webhookEvents = sqliteTable("webhook_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: createdAt(),
  processedAt: integer("processed_at", { mode: "timestamp_ms" }),
});

// A creator's request to refund a sale (worker/services/refunds/creator-refunds.ts). Written before Stripe is
// asked, so its id is the Refund's Idempotency-Key: a double press, or two at once, is one row and
// one Refund. `request_key` is unique per purchase (the dialog's key, or the refundable amount seen).
// The status is Stripe's word about the Refund (kept by every refund event); the ledger and access
// follow from Stripe's refunds like any refund, never from this row.
export const refundRequests = sqliteTable(
  "refund_requests",
  {
    id: text("id").primaryKey(),
    purchaseId: text("purchase_id")
      .notNull()
      .references(() => purchases.id),
    creatorId: text("creator_id")
      .notNull()
      .references(() => users.id),
    requestKey: text("request_key").notNull(),
    amountCents: integer("amount_cents").notNull(),
    reason: text("reason", { enum: ["requested_by_customer", "duplicate", "fraudulent", "other"] }).notNull(),
    note: text("note"),
    // requested (Stripe not yet answered), then the Refund's status: pending, requires_action,
    // succeeded, failed, canceled; refused when Stripe refused to make it.
    status: text("status").notNull().default("requested"),
    stripeRefundId: text("stripe_refund_id").unique(),
    error: text("error"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("refund_requests_key").on(t.purchaseId, t.requestKey)],
);

// One license key per purchase of an item that issues them, written in fulfil's batch (unique
// purchase_id: a repeated webhook writes none). Its status is derived (worker/services/licenses.ts
// `licenseStatus`) from disabled_at and the purchase's state, never stored.
export const licenseKeys = sqliteTable(
  "license_keys",
  {
    id: text("id").primaryKey(),
    key: text("key").notNull().unique(),
    purchaseId: text("purchase_id")
      .notNull()
      .unique()
      .references(() => purchases.id),
    contentId: text("content_id")
      .notNull()
      .references(() => content.id),
    // The creator who sold it: every creator query is owner-checked on this column.
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    disabledAt: integer("disabled_at", { mode: "timestamp_ms" }),
    disabledReason: text("disabled_reason"),
    createdAt: createdAt(),
  },
  (t) => [index("license_keys_user").on(t.userId, t.createdAt)],
);

// One row per machine (instance) a key was activated on; the count is the number of rows.
export const licenseActivations = sqliteTable(
  "license_activations",
  {
    licenseId: text("license_id")
      .notNull()
      .references(() => licenseKeys.id),
    instance: text("instance").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.licenseId, t.instance] })],
);

// Discount codes: a creator's code for one item or all theirs, percent or fixed, with an
// optional expiry and use limits. `code` is kept upper-case: unique per creator, matched whatever
// case the buyer types. Never edited in place (a changed discount is a new code); archived ends it.
export const discountCodes = sqliteTable(
  "discount_codes",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    code: text("code").notNull(),
    kind: text("kind", { enum: ["percent", "fixed"] }).notNull(),
    percentOff: integer("percent_off"),
    amountOffCents: integer("amount_off_cents"),
    // null: every item of the creator's.
    contentId: text("content_id").references(() => content.id),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    maxUses: integer("max_uses"),
    maxUsesPerBuyer: integer("max_uses_per_buyer"),
    archivedAt: integer("archived_at", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("discount_codes_user_code").on(t.userId, t.code)],
);

// One row per checkout started with a code, written by one conditional INSERT that counts the
// code's uses inside it (worker/services/discounts.ts `reserveUse`), so concurrent checkouts cannot
// pass the limit. Whether a row is a use is derived, never stored: its purchase is paid or disputed,
// or its checkout is younger than DISCOUNT_HOLD_MINUTES; a refunded sale frees its use.
export const discountRedemptions = sqliteTable(
  "discount_redemptions",
  {
    id: text("id").primaryKey(),
    codeId: text("code_id")
      .notNull()
      .references(() => discountCodes.id),
    purchaseId: text("purchase_id").notNull().unique(),
    // The buyer's email when the checkout gave one, else `browser:{hash of the buyer cookie}`.
    buyer: text("buyer").notNull(),
    // SHA-256 of the checkout's browser key: a browser holds at most a few uses of a code at a time.
    browser: text("browser"),
    createdAt: createdAt(),
  },
  (t) => [
    index("discount_redemptions_code").on(t.codeId, t.buyer),
    index("discount_redemptions_browser").on(t.codeId, t.browser),
  ],
);
