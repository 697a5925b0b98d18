// Rollups for the creator dashboard: derived data, never a source of truth. SQLite triggers on
// ledger_entries and purchases (migrations/0038_rollups.sql) keep them in the statement that writes
// the rows they sum, so they cannot drift; worker/services/rollups.ts rebuilds and compares them.
// What each row sums, the triggers and the indexes: docs/money.md ("Rollups").
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// The creator's own ledger rows (account 'creator') summed per UTC day of created_at, item ('' for
// rows without one, e.g. payouts) and kind.
export const ledgerDaily = sqliteTable(
  "ledger_daily",
  {
    userId: text("user_id").notNull(),
    day: text("day").notNull(),
    contentId: text("content_id").notNull(),
    kind: text("kind").notNull(),
    cents: integer("cents").notNull().default(0),
    entries: integer("entries").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day, t.contentId, t.kind] })],
);

// A creator's purchases per item and UTC day. Checkouts (distinct browsers: buyer_key_hash, or the
// row when it has none) and paid checkouts count on the day the checkout started (created_at) and
// leave out funnel steps and order bumps; unlocks (status 'paid') count there too. Sales (paid,
// refunded or disputed), paywall sales, bump sales and funnel-step sales count on the day paid (paid_at).
export const salesDaily = sqliteTable(
  "sales_daily",
  {
    creatorId: text("creator_id").notNull(),
    day: text("day").notNull(),
    contentId: text("content_id").notNull(),
    checkouts: integer("checkouts").notNull().default(0),
    paidCheckouts: integer("paid_checkouts").notNull().default(0),
    unlocks: integer("unlocks").notNull().default(0),
    sales: integer("sales").notNull().default(0),
    directSales: integer("direct_sales").notNull().default(0),
    bumpSales: integer("bump_sales").notNull().default(0),
    upsellSales: integer("upsell_sales").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.creatorId, t.day, t.contentId] })],
);
