// Local-only (mounted under /dev, 404 unless APP_ENV=development): the dashboard's rollups checked and
// rebuilt (worker/services/rollups.ts), and the EXPLAIN QUERY PLAN of every statement behind the
// creator's dashboard calls, which `npm run bench` prints (dev/bench-dashboard.mjs). docs/money.md "Rollups".
import { type SQL, sql } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { createDb } from "../db/client";
import type { AppEnv } from "../middleware/context";
import { validate } from "../lib/validate";
import { analyticsQueries } from "../services/analytics";
import { creatorBalanceSql } from "../services/balances";
import { creatorContentQueries } from "../services/content";
import { creatorSalesQuery, moneyTimelineQuery, payoutHistoryQuery } from "../services/earnings";
import { LATEST_RECEIPTS_SQL } from "../services/mail/receipts-delivered";
import { compareRollups, rebuildRollups } from "../services/rollups";

const userSchema = z.strictObject({ userId: z.string().min(1).max(40) });
const rebuildSchema = z.strictObject({ userId: z.string().min(1).max(40).optional() });

type PlanRow = { id: number; parent: number; detail: string };

/** SQLite's plan rows as indented lines (a child two spaces under its parent). */
function planLines(rows: PlanRow[]): string[] {
  const depth = new Map<number, number>([[0, -1]]);
  return rows.map((r) => {
    const d = (depth.get(r.parent) ?? -1) + 1;
    depth.set(r.id, d);
    return `${"  ".repeat(d)}${r.detail}`;
  });
}

export const devRollupRoutes = new Hono<AppEnv>()
  .get("/rollups/compare", validate("query", userSchema), async (c) =>
    c.json({ differences: await compareRollups(c.env.DB, c.req.valid("query").userId) }),
  )
  .post("/rollups/rebuild", validate("json", rebuildSchema), async (c) => {
    const { userId } = c.req.valid("json");
    await rebuildRollups(c.env.DB, userId);
    return c.json({ differences: await compareRollups(c.env.DB, userId) });
  })
  .get("/explain", validate("query", userSchema), async (c) => {
    const { userId } = c.req.valid("query");
    const db = createDb(c.env.DB);
    const now = Date.now();
    // A deep page: the cursor of a sale made about 700 days ago.
    const deep = { limit: 50, cursor: `${now - 700 * 86_400_000}.zzzz` };
    const drizzled: [string, { toSQL(): { sql: string; params: unknown[] } }][] = [
      ["creator/sales?limit=50", creatorSalesQuery(db, userId, { limit: 50 })],
      ["creator/sales?limit=50&cursor=(deep)", creatorSalesQuery(db, userId, deep)],
      ["earnings/timeline?limit=50", moneyTimelineQuery(db, userId, { limit: 50 })],
      ["earnings/timeline?limit=50&cursor=(deep)", moneyTimelineQuery(db, userId, deep)],
      ["payout/history", payoutHistoryQuery(db, userId)],
      ...creatorContentQueries(db, userId).map(
        (q, i) => [`content: ${["items", "unlocks", "earnings"][i]}`, q] as [string, typeof q],
      ),
    ];
    const raw: [string, SQL][] = [
      ["earnings/stats + payout/next: balance", creatorBalanceSql(userId, now)],
      ...Object.entries(analyticsQueries(userId, { days: 90 }, now).queries).map(
        ([name, q]) => [`analytics/stats?days=90: ${name}`, q] as [string, SQL],
      ),
    ];
    const queries: { name: string; plan: string[] }[] = [];
    const receipts = await c.env.DB.prepare(`explain query plan ${LATEST_RECEIPTS_SQL}`)
      .bind(JSON.stringify(["a", "b"]), userId)
      .all<PlanRow>();
    queries.push({ name: "creator/sales: receipts of the page's sales", plan: planLines(receipts.results) });
    for (const [name, q] of raw)
      queries.push({ name, plan: planLines(await db.all<PlanRow>(sql`explain query plan ${q}`)) });
    for (const [name, q] of drizzled) {
      const { sql: text, params } = q.toSQL();
      const { results } = await c.env.DB.prepare(`explain query plan ${text}`)
        .bind(...params)
        .all<PlanRow>();
      queries.push({ name, plan: planLines(results) });
    }
    return c.json({ queries });
  });
