// The whole product's data model. Money is integer cents with a currency column; balances are sums
// over the append-only ledger, never stored. Ids that leave the server are random, not row numbers.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" }).notNull().default(sql`(unixepoch('subsec') * 1000)`);

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  firstName: text("first_name"),
  lastName: text("last_name"),
  plan: text("plan", { enum: ["free", "pro"] })
    .notNull()
    .default("free"),
  stripeCustomerId: text("stripe_customer_id"),
  createdAt: createdAt(),
});

// What buyers see of a creator (the paywall, checkout, receipts): a table of its own, not columns on
// users, so the account (sign-in, plan, Stripe customer) and the public face change apart, and a
// creator who never filled it in has no row. `avatar_id` is random per upload: the avatar's URL
// (/api/avatars/{id}) changes with the image, so it can be cached for good.
export const creatorProfiles = sqliteTable("creator_profiles", {
  userId: text("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  displayName: text("display_name"),
  bio: text("bio"),
  supportEmail: text("support_email"),
  avatarId: text("avatar_id").unique(),
  avatarType: text("avatar_type"),
  // "Email me when I make a sale" in /settings (issue 17): on unless the creator turns it off.
  emailOnSale: integer("email_on_sale", { mode: "boolean" }).notNull().default(true),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

export const oauthAccounts = sqliteTable(
  "oauth_accounts",
  {
    provider: text("provider", { enum: ["google", "github"] }).notNull(),
    providerUserId: text("provider_user_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.providerUserId] }), index("oauth_accounts_user").on(t.userId)],
);

// One-time sign-in links. Only the SHA-256 of the token is stored; `used_at` is set by a single
// conditional UPDATE so a link can be redeemed once even under concurrent clicks.
export const loginTokens = sqliteTable("login_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  email: text("email").notNull(),
  returnTo: text("return_to").notNull().default("/"),
  // SHA-256 of the requesting browser's aw_login cookie: that browser signs in on opening the link;
  // any other (a mail scanner, someone else's browser) is first asked to confirm.
  browserHash: text("browser_hash"),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  usedAt: integer("used_at", { mode: "timestamp_ms" }),
  createdAt: createdAt(),
});

// Multipart uploads to R2 in flight. The object key is chosen by the server.
export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    objectKey: text("object_key").notNull().unique(),
    r2UploadId: text("r2_upload_id"),
    fileName: text("file_name").notNull(),
    contentType: text("content_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    partSize: integer("part_size").notNull(),
    partCount: integer("part_count").notNull(),
    // The state machine is TRANSITIONS in worker/services/uploads.ts.
    status: text("status", { enum: ["uploading", "completing", "completed", "aborted", "removed"] })
      .notNull()
      .default("uploading"),
    createdAt: createdAt(),
    completedAt: integer("completed_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("uploads_user").on(t.userId), index("uploads_status_created").on(t.status, t.createdAt)],
);

export const uploadParts = sqliteTable(
  "upload_parts",
  {
    uploadId: text("upload_id")
      .notNull()
      .references(() => uploads.id, { onDelete: "cascade" }),
    partNumber: integer("part_number").notNull(),
    etag: text("etag").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
  },
  (t) => [primaryKey({ columns: [t.uploadId, t.partNumber] })],
);

export const content = sqliteTable(
  "content",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    priceCents: integer("price_cents").notNull(),
    pricingModel: text("pricing_model", { enum: ["fixed", "pay_what_you_want"] })
      .notNull()
      .default("fixed"),
    minimumPriceCents: integer("minimum_price_cents"),
    currency: text("currency").notNull().default("usd"),
    category: text("category").notNull().default("other"),
    accessType: text("access_type", { enum: ["download", "view", "stream", "link"] })
      .notNull()
      .default("download"),
    // Unique: one stored file belongs to one item, so deleting an item can never take another's file.
    fileKey: text("file_key").unique(),
    fileName: text("file_name"),
    fileSize: integer("file_size"),
    fileContentType: text("file_content_type"),
    previewImageKey: text("preview_image_key"),
    previewImageType: text("preview_image_type"),
    // Read from the image's header at publish time, for og:image:width/height.
    previewImageWidth: integer("preview_image_width"),
    previewImageHeight: integer("preview_image_height"),
    linkUrl: text("link_url"),
    textContent: text("text_content"),
    // Upsell offers are content too, but are sold only through a funnel step.
    isUpsell: integer("is_upsell", { mode: "boolean" }).notNull().default(false),
    // Taken off sale by its creator: the paywall says "no longer for sale" and checkout refuses it;
    // buyers keep access. Null while on sale; republishing clears it.
    unpublishedAt: integer("unpublished_at", { mode: "timestamp_ms" }),
    // Each purchase gets a license key (worker/services/licenses.ts); null limit = unlimited activations.
    issueLicenseKeys: integer("issue_license_keys", { mode: "boolean" }).notNull().default(false),
    // One reminder, an hour later, to a buyer who gave an email at checkout and did not pay (issue 19).
    checkoutReminders: integer("checkout_reminders", { mode: "boolean" }).notNull().default(true),
    licenseActivationLimit: integer("license_activation_limit"),
    // The order bump (issue 19): another of the creator's items offered as a checkbox at checkout,
    // at this price; both null when the item has none.
    bumpContentId: text("bump_content_id"),
    bumpPriceCents: integer("bump_price_cents"),
    createdAt: createdAt(),
    // Soft delete: buyers who paid keep access; the item leaves the dashboard and the paywall.
    deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("content_user_created").on(t.userId, t.createdAt)],
);

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
    amountCents: integer("amount_cents").notNull(),
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
    // The abandoned checkout whose reminder email brought the buyer back (worker/services/recovery.ts).
    recoveredFrom: text("recovered_from"),
    // An order bump's purchase: the main purchase it was paid with (one PaymentIntent for both, which
    // stays on the main purchase: payment_intent_id is null here).
    bumpOf: text("bump_of"),
    // The checkout offered an order bump (ticked or not): the denominator of the item's bump take rate.
    bumpOffered: integer("bump_offered", { mode: "boolean" }).notNull().default(false),
    // The buyer ticked "Don't send me a reminder" at checkout (worker/services/recovery.ts).
    noReminder: integer("no_reminder", { mode: "boolean" }).notNull().default(false),
    createdAt: createdAt(),
    paidAt: integer("paid_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    // Since when its PaymentIntent is `processing` (a payment that settles later): paid-pending, not
    // abandoned and not to be bought again; null again if that payment fails
    // (worker/services/payment-processing.ts).
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
  ],
);

// Append-only. A creator's balance is the sum of their entries; a retried write is a no-op
// because every entry carries a unique idempotency key.
export const ledgerEntries = sqliteTable(
  "ledger_entries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    idempotencyKey: text("idempotency_key").notNull().unique(),
    account: text("account", { enum: ["creator", "platform"] }).notNull(),
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

// One payment-provider Customer per paying browser (its aw_buyer key), so a card saved at checkout
// can pay a one-click upsell from that browser. Not per email: a typed-in email is unverified.
export const buyerCustomers = sqliteTable("buyer_customers", {
  buyerKeyHash: text("buyer_key_hash").primaryKey(),
  stripeCustomerId: text("stripe_customer_id").notNull(),
  createdAt: createdAt(),
});

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
  ],
);

// Every admin action that moves money (and every scheduled payout run): who, what, when, period.
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

export const funnels = sqliteTable(
  "funnels",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    testMode: integer("test_mode", { mode: "boolean" }).notNull().default(true),
    createdAt: createdAt(),
  },
  (t) => [index("funnels_user").on(t.userId)],
);

export const funnelSteps = sqliteTable(
  "funnel_steps",
  {
    id: text("id").primaryKey(),
    funnelId: text("funnel_id")
      .notNull()
      .references(() => funnels.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    offerPriceId: text("offer_price_id").notNull(),
    priceCents: integer("price_cents"),
    // The most a tip (pay-what-you-want) step takes, set by its creator; null = TIP_CEILING_MULTIPLE x its minimum.
    maxPriceCents: integer("max_price_cents"),
    ctaText: text("cta_text").notNull().default("Add this to my order"),
    stepType: text("step_type", { enum: ["upsell", "downsell"] })
      .notNull()
      .default("upsell"),
    stepOrder: integer("step_order").notNull(),
    contentId: text("content_id").references(() => content.id),
    createdAt: createdAt(),
  },
  (t) => [index("funnel_steps_funnel").on(t.funnelId, t.stepOrder)],
);

export const funnelProducts = sqliteTable(
  "funnel_products",
  {
    funnelId: text("funnel_id")
      .notNull()
      .references(() => funnels.id, { onDelete: "cascade" }),
    contentId: text("content_id")
      .notNull()
      .references(() => content.id),
  },
  (t) => [primaryKey({ columns: [t.funnelId, t.contentId] })],
);

export const feedback = sqliteTable("feedback", {
  id: text("id").primaryKey(),
  userId: text("user_id").references(() => users.id, { onDelete: "set null" }),
  type: text("type", { enum: ["bug", "feature", "improvement", "general"] }).notNull(),
  subject: text("subject").notNull(),
  message: text("message").notNull(),
  email: text("email"),
  priority: text("priority", { enum: ["low", "medium", "high", "urgent"] })
    .notNull()
    .default("medium"),
  createdAt: createdAt(),
});

// Views counted per item per day (UTC): one upsert per view, no row per view.
export const contentViewsDaily = sqliteTable(
  "content_views_daily",
  {
    contentId: text("content_id")
      .notNull()
      .references(() => content.id),
    day: text("day").notNull(),
    views: integer("views").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.contentId, t.day] })],
);

// Each payment-provider webhook event is handled once.
export const webhookEvents = sqliteTable("webhook_events", {
  id: text("id").primaryKey(),
  type: text("type").notNull(),
  receivedAt: createdAt(),
  processedAt: integer("processed_at", { mode: "timestamp_ms" }),
});

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

// One row per (paid purchase, funnel step) a buyer was offered: shown, then accepted or declined.
// The primary key makes an accept idempotent per purchase and step (a double click charges once);
// `purchase_id` names the upsell's own purchase, created once. Figures per step are counts here.
export const funnelOffers = sqliteTable(
  "funnel_offers",
  {
    parentPurchaseId: text("parent_purchase_id")
      .notNull()
      .references(() => purchases.id),
    stepId: text("step_id").notNull(),
    funnelId: text("funnel_id").notNull(),
    // OFFER_TRANSITIONS in worker/services/upsells.ts; "shown" is the offered state.
    status: text("status", { enum: ["shown", "accepting", "paid", "failed", "declined"] })
      .notNull()
      .default("shown"),
    purchaseId: text("purchase_id").unique(),
    amountCents: integer("amount_cents"),
    // The terms the buyer was last shown (rewritten on every showing while 'shown'); accept charges
    // only under these. A fixed price sets shown_price_cents alone; a tip step also its minimum and
    // ceiling. Null on rows shown before these columns: such an offer must be shown again.
    shownPriceCents: integer("shown_price_cents"),
    shownMinimumCents: integer("shown_minimum_cents"),
    shownMaximumCents: integer("shown_maximum_cents"),
    // The A/B test this offer was shown under and the buyer's variant (worker/services/ab-tests.ts).
    abTestId: text("ab_test_id"),
    variant: text("variant", { enum: ["A", "B"] }),
    createdAt: createdAt(),
    decidedAt: integer("decided_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    primaryKey({ columns: [t.parentPurchaseId, t.stepId] }),
    index("funnel_offers_step").on(t.stepId),
    index("funnel_offers_ab_test").on(t.abTestId, t.variant),
  ],
);

// A creator's request to refund a sale (worker/services/creator-refunds.ts). Written before Stripe is
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

// Creators' outgoing webhook endpoints (worker/services/webhooks.ts). `events` is a JSON array of
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
// (WEBHOOK_DELIVERY_TRANSITIONS). `next_attempt_at` is when the queue should bring it next (also a
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

// Discount codes (issue 19): a creator's code for one item or all theirs, percent or fixed, with an
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

// Addresses that asked for no more checkout reminders (worker/services/recovery.ts): honoured for good.
// Receipts and access emails still go: they are what the buyer paid for.
export const emailUnsubscribes = sqliteTable("email_unsubscribes", {
  email: text("email").primaryKey(),
  createdAt: createdAt(),
});

// A/B tests of funnel offers (issue 19): variant A is the step as it is; B replaces its title,
// description, call to action and (fixed-price steps) price for half the buyers. One running test
// per step (partial unique index). Figures come from funnel_offers rows tagged with the test.
export const funnelAbTests = sqliteTable(
  "funnel_ab_tests",
  {
    id: text("id").primaryKey(),
    stepId: text("step_id")
      .notNull()
      .references(() => funnelSteps.id, { onDelete: "cascade" }),
    funnelId: text("funnel_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    title: text("title").notNull(),
    description: text("description").notNull().default(""),
    ctaText: text("cta_text").notNull(),
    // null: B asks the step's own price.
    priceCents: integer("price_cents"),
    status: text("status", { enum: ["running", "ended"] })
      .notNull()
      .default("running"),
    winner: text("winner", { enum: ["A", "B"] }),
    // Variant A as it was tested (the step's fields when the test ended): 'Make B the step' then
    // writes B onto the step, and later edits change it, but the test's record keeps what A was.
    aTitle: text("a_title"),
    aDescription: text("a_description"),
    aCtaText: text("a_cta_text"),
    aPriceCents: integer("a_price_cents"),
    createdAt: createdAt(),
    endedAt: integer("ended_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    uniqueIndex("funnel_ab_tests_running").on(t.stepId).where(sql`status = 'running'`),
    index("funnel_ab_tests_funnel").on(t.funnelId, t.createdAt),
  ],
);

// Which variant each order (its first purchase) sees: written once, read back, so a buyer stays on it.
export const funnelAbAssignments = sqliteTable(
  "funnel_ab_assignments",
  {
    testId: text("test_id").notNull(),
    rootPurchaseId: text("root_purchase_id").notNull(),
    variant: text("variant", { enum: ["A", "B"] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.testId, t.rootPurchaseId] })],
);
