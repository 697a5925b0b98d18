// Funnels: upsell and downsell steps after a purchase, the offers shown to buyers, and A/B tests of
// those offers. See docs/funnels.md.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns";
import { users } from "./accounts";
import { content } from "./content";
import { purchases } from "./purchases";

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
    // OFFER_TRANSITIONS in worker/services/upsells/offer-state.ts; "shown" is the offered state.
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
    // The A/B test this offer was shown under and the buyer's variant (worker/services/funnels/ab-tests.ts).
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

// A/B tests of funnel offers: variant A is the step as it is; B replaces its title,
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
