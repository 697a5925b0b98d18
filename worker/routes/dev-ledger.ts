// Local-only (mounted under /dev, 404 unless APP_ENV=development): moves a sale's ledger rows into
// the past, as if it had been made `days` ago, so the 7-day hold can be tried without waiting a week.
// Browser tests and local trials use it; nothing in production can reach it.
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../middleware/context";
import { validate } from "../lib/validate";

const DAY = 24 * 60 * 60 * 1000;

export const devLedgerRoutes = new Hono<AppEnv>().post(
  "/ledger/age-sale",
  validate("json", z.strictObject({ purchaseId: z.string().min(1).max(64), days: z.number().int().min(1).max(400) })),
  async (c) => {
    const { purchaseId, days } = c.req.valid("json");
    // The rows themselves, counted from RETURNING: D1's `changes` also counts the rollups' trigger
    // writes (docs/money.md, "Rollups").
    const { results } = await c.env.DB.prepare(
      "update ledger_entries set created_at = created_at - ? where purchase_id = ? and kind in ('sale', 'platform_fee', 'tax') returning id",
    )
      .bind(days * DAY, purchaseId)
      .all();
    return c.json({ moved: results.length });
  },
);
