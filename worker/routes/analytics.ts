// The signed-in creator's analytics (views, checkouts started, sales, conversion, revenue).
import { Hono } from "hono";
import { analyticsQuerySchema } from "../../shared/schemas";
import { requireUser, type AppEnv } from "../lib/context";
import { validate } from "../lib/validate";
import { analyticsStats } from "../services/analytics";

export const analyticsRoutes = new Hono<AppEnv>().get("/analytics/stats", requireUser, validate("query", analyticsQuerySchema), async (c) =>
  c.json(await analyticsStats(c.var.db, c.var.userId, c.req.valid("query"))),
);
