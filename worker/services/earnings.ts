// A creator's money as the dashboard shows it, computed from the append-only ledger.
import { and, count, desc, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { content, purchases } from "../db/schema";
import { creatorBalance } from "./balances";

const dollars = (cents: unknown) => Number(cents ?? 0) / 100;

export async function earningsStats(db: Db, userId: string, now = Date.now()) {
  const [balance, [items, unlocks]] = await Promise.all([
    creatorBalance(db, userId, now),
    db.batch([
      db
        .select({ n: count() })
        .from(content)
        .where(and(eq(content.userId, userId), isNull(content.deletedAt), eq(content.isUpsell, false))),
      db
        .select({ n: count() })
        .from(purchases)
        .where(and(eq(purchases.creatorId, userId), eq(purchases.status, "paid"))),
    ]),
  ]);
  return {
    availableBalance: dollars(balance.availableCents),
    totalEarnings: dollars(balance.totalEarningsCents),
    pendingPayouts: dollars(balance.pendingPayoutCents),
    contentCount: items[0]?.n ?? 0,
    totalUnlocks: unlocks[0]?.n ?? 0,
    onHold: dollars(balance.onHoldCents),
    paidOut: dollars(balance.paidOutCents),
    carriedNegative: dollars(balance.carriedNegativeCents),
    nextReleaseAt: balance.nextReleaseAt?.toISOString() ?? null,
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
