// The signed-in creator's money: earnings stats and sales. Every query is scoped to c.var.userId.
import { Hono } from "hono";
import { requireUser, type AppEnv } from "../lib/context";
import { creatorSales, earningsStats } from "../services/earnings";

export const creatorRoutes = new Hono<AppEnv>()
  .get("/earnings/stats", requireUser, async (c) => c.json(await earningsStats(c.var.db, c.var.userId)))
  .get("/creator/sales", requireUser, async (c) => c.json(await creatorSales(c.var.db, c.var.userId)));
