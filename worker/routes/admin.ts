// The admin's API. Every route here is behind requireAdmin, enforced on the server.
import { and, count, countDistinct, eq, sum } from "drizzle-orm";
import { Hono } from "hono";
import { content, ledgerEntries, payouts } from "../db/schema";
import { requireAdmin, type AppEnv } from "../lib/context";

export const adminRoutes = new Hono<AppEnv>()
  .use("/admin/*", requireAdmin)
  .get("/admin/payout-summary", async (c) => {
    const db = c.var.db;
    const [sales, platform, paid, creators, pending] = await db.batch([
      db.select({ cents: sum(ledgerEntries.amountCents) }).from(ledgerEntries).where(eq(ledgerEntries.kind, "sale")),
      db.select({ cents: sum(ledgerEntries.amountCents) }).from(ledgerEntries).where(eq(ledgerEntries.account, "platform")),
      db.select({ cents: sum(payouts.amountCents) }).from(payouts).where(eq(payouts.status, "paid")),
      db.select({ n: countDistinct(content.userId) }).from(content),
      db.select({ n: count() }).from(payouts).where(and(eq(payouts.status, "pending"))),
    ]);
    // Gross revenue is the creators' share of sales plus the platform's fee on them.
    const creatorSales = Number(sales[0]?.cents ?? 0);
    const platformCents = Number(platform[0]?.cents ?? 0);
    return c.json({
      totalRevenue: (creatorSales + platformCents) / 100,
      platformCommission: platformCents / 100,
      totalPayouts: Number(paid[0]?.cents ?? 0) / 100,
      creatorCount: creators[0]?.n ?? 0,
      pendingPayouts: pending[0]?.n ?? 0,
    });
  });
