// Each change of a paid order's email, kept for good (limits and support read it).
// Behaviour: docs/payments.md ("Changing a purchase's email").
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const purchaseEmailChanges = sqliteTable(
  "purchase_email_changes",
  {
    id: text("id").primaryKey(),
    purchaseId: text("purchase_id").notNull(),
    creatorId: text("creator_id").notNull(),
    oldEmail: text("old_email"),
    newEmail: text("new_email").notNull(),
    /** 'browser' (the browser that paid) or 'library' (signed in as the order's email). */
    changedBy: text("changed_by", { enum: ["browser", "library"] }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    index("purchase_email_changes_purchase").on(t.purchaseId),
    index("purchase_email_changes_creator").on(t.creatorId, t.createdAt),
  ],
);
