// The signed-in creator's analytics (views, checkouts started, sales, conversion, revenue).
import { Hono } from "hono";
import { analyticsQuerySchema, analyticsStatsSchema } from "../../shared/analytics";
import { requireUser, type AppEnv } from "../middleware/context";
import { validate } from "../lib/validate";
import { analyticsStats } from "../services/analytics";
import { doc } from "../openapi/describe";

export const analyticsRoutes = new Hono<AppEnv>().get(
  "/analytics/stats",
  doc({
    tag: "Analytics",
    summary: "Views, checkouts, sales and revenue by day and by item",
    access: "creator",
    ok: analyticsStatsSchema,
  }),
  requireUser,
  validate("query", analyticsQuerySchema),
  async (c) => c.json(await analyticsStats(c.var.db, c.var.userId, c.req.valid("query"))),
);
