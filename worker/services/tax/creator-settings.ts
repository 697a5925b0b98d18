// The creator's choice of tax-inclusive prices (users.tax_behavior) and the price the /settings
// preview starts from. docs/tax.md ("Inclusive or exclusive prices", "What the creator sees").
import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { TaxBehavior } from "../../../shared/tax";
import type { TaxSettings } from "../../../shared/tax-settings";
import type { Db } from "../../db/client";
import { content, users } from "../../db/schema";

const DEFAULT_PREVIEW_CENTS = 1000;

export async function taxBehaviorOf(db: Db, userId: string): Promise<TaxBehavior> {
  const row = await db.select({ behavior: users.taxBehavior }).from(users).where(eq(users.id, userId)).get();
  return row?.behavior ?? "auto";
}

/** The saved choice, and the creator's most common price among their live items ($10 with none). */
export async function taxSettings(db: Db, userId: string): Promise<TaxSettings> {
  const [behavior, common] = await Promise.all([
    taxBehaviorOf(db, userId),
    db
      .select({ cents: content.priceCents, n: count() })
      .from(content)
      .where(and(eq(content.userId, userId), isNull(content.deletedAt), eq(content.isUpsell, false)))
      .groupBy(content.priceCents)
      .orderBy(desc(count()), desc(content.priceCents))
      .limit(1)
      .get(),
  ]);
  return { behavior, suggestedPrice: (common?.cents ?? DEFAULT_PREVIEW_CENTS) / 100 };
}

/** Saves the choice for the creator's next checkouts (a checkout already open keeps its calculation). */
export async function saveTaxBehavior(db: Db, userId: string, behavior: TaxBehavior): Promise<TaxSettings> {
  await db.update(users).set({ taxBehavior: behavior }).where(eq(users.id, userId));
  return taxSettings(db, userId);
}
