// A creator's money as the dashboard shows it, computed from the append-only ledger.
import { and, count, desc, eq, inArray, isNull, sum } from "drizzle-orm";
import type { Db } from "../db/client";
import { content, ledgerEntries, payouts, purchases } from "../db/schema";

const dollars = (cents: unknown) => Number(cents ?? 0) / 100;

export async function earningsStats(db: Db, userId: string) {
  const [balance, earned, pending, items, unlocks] = await db.batch([
    db
      .select({ cents: sum(ledgerEntries.amountCents) })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.userId, userId), eq(ledgerEntries.account, "creator"))),
    // Earnings are sales net of refunds and disputes; payouts move money, they don't change earnings.
    db
      .select({ cents: sum(ledgerEntries.amountCents) })
      .from(ledgerEntries)
      .where(
        and(
          eq(ledgerEntries.userId, userId),
          eq(ledgerEntries.account, "creator"),
          inArray(ledgerEntries.kind, ["sale", "refund", "dispute"]),
        ),
      ),
    db
      .select({ cents: sum(payouts.amountCents) })
      .from(payouts)
      .where(and(eq(payouts.userId, userId), inArray(payouts.status, ["pending", "processing"]))),
    db
      .select({ n: count() })
      .from(content)
      .where(and(eq(content.userId, userId), isNull(content.deletedAt), eq(content.isUpsell, false))),
    db
      .select({ n: count() })
      .from(purchases)
      .where(and(eq(purchases.creatorId, userId), eq(purchases.status, "paid"))),
  ]);
  return {
    availableBalance: dollars(balance[0]?.cents),
    totalEarnings: dollars(earned[0]?.cents),
    pendingPayouts: dollars(pending[0]?.cents),
    contentCount: items[0]?.n ?? 0,
    totalUnlocks: unlocks[0]?.n ?? 0,
  };
}

const SALE_STATUS = { paid: "completed", refunded: "refunded", disputed: "disputed" } as const;

/** The creator's sales, newest first. Checkouts that never paid are not sales and are left out. */
export async function creatorSales(db: Db, userId: string, limit = 500) {
  const rows = await db
    .select({
      id: purchases.id,
      buyerEmail: purchases.buyerEmail,
      productName: content.title,
      amountCents: purchases.amountCents,
      createdAt: purchases.paidAt,
      status: purchases.status,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .where(and(eq(purchases.creatorId, userId), inArray(purchases.status, ["paid", "refunded", "disputed"])))
    .orderBy(desc(purchases.paidAt))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    buyerEmail: r.buyerEmail,
    productName: r.productName,
    amount: r.amountCents / 100,
    createdAt: r.createdAt?.toISOString() ?? null,
    status: SALE_STATUS[r.status as keyof typeof SALE_STATUS] ?? r.status,
  }));
}
