// Local-only (mounted under /dev, 404 unless APP_ENV=development): books a paid sale's tax as if
// Stripe Tax had taxed it in `country`/`region` (its purchase_taxes row and the ledger's `tax` row,
// each once), so the admin's tax page can be tried in a browser without a taxed checkout.
import { Hono } from "hono";
import { z } from "zod";
import { notFound } from "../lib/errors";
import { validate } from "../lib/validate";
import type { AppEnv } from "../middleware/context";

const bookSchema = z.strictObject({
  purchaseId: z.string().min(1).max(64),
  country: z.string().regex(/^[A-Z]{2}$/),
  region: z
    .string()
    .regex(/^[A-Z0-9]{1,3}$/)
    .optional(),
  taxType: z.string().min(1).max(40),
  taxCents: z.number().int().min(0).max(10_000_000),
});

export const devTaxRoutes = new Hono<AppEnv>().post("/tax/book-sale", validate("json", bookSchema), async (c) => {
  const b = c.req.valid("json");
  const p = await c.env.DB.prepare("select amount_cents, paid_at from purchases where id = ? and status = 'paid'")
    .bind(b.purchaseId)
    .first<{ amount_cents: number; paid_at: number | null }>();
  if (!p) throw notFound("No such paid purchase");
  const at = p.paid_at ?? Date.now();
  await c.env.DB.batch([
    c.env.DB.prepare(
      "insert into purchase_taxes (purchase_id, country, region, tax_type, taxability_reason, inclusive, net_cents, tax_cents, evidence) values (?, ?, ?, ?, 'standard_rated', 1, ?, ?, '{}') on conflict do nothing",
    ).bind(b.purchaseId, b.country, b.region ?? null, b.taxType, p.amount_cents - b.taxCents, b.taxCents),
    c.env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, kind, amount_cents, purchase_id, created_at) values (?, 'tax', 'tax', ?, ?, ?) on conflict do nothing",
    ).bind(`sale:${b.purchaseId}:tax`, b.taxCents, b.purchaseId, at),
  ]);
  return c.json({ booked: true });
});
