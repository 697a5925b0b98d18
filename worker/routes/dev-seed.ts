// Local-only: seeds a creator with many sales for `npm run bench` (dashboard calls at 100, 100,000
// and 1,000,000 sales, 250,000 a call: dev/bench-dashboard.mjs), and a checkout's tax and invoice for
// the browser tests (as checkout and payment write them; docs/tax.md). Mounted under /dev, which
// answers 404 unless APP_ENV=development.
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../middleware/context";
import { notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import { validate } from "../lib/validate";

const seedSchema = z.strictObject({
  userId: z.string().min(1).max(40),
  sales: z.number().int().min(1).max(250_000),
  days: z.number().int().min(1).max(3650).default(730),
  // More sales for an item seeded before (the creator's own): a large creator is seeded in chunks.
  itemId: z.string().min(1).max(40).optional(),
});

const taxSeedSchema = z.strictObject({
  paymentIntent: z.string().regex(/^pi_[A-Za-z0-9_]{1,100}$/),
  country: z.string().regex(/^[A-Z]{2}$/),
  ratePercent: z.string().regex(/^\d{1,2}(\.\d{1,4})?$/),
});

export const devSeedRoutes = new Hono<AppEnv>()
  // A pending checkout taxed at `ratePercent`, tax included in its price, and its order's invoice issued.
  .post("/seed-tax-invoice", validate("json", taxSeedSchema), async (c) => {
    const { paymentIntent, country, ratePercent } = c.req.valid("json");
    const p = await c.env.DB.prepare(
      "select id, amount_cents from purchases where payment_intent_id = ? and status = 'pending'",
    )
      .bind(paymentIntent)
      .first<{ id: string; amount_cents: number }>();
    if (!p) throw notFound("No such pending checkout");
    const rate = Number(ratePercent);
    const tax = Math.round((p.amount_cents * rate) / (100 + rate));
    const evidence = JSON.stringify({
      edge: { country, region: null, postalCode: null },
      billing: null,
      cardCountry: null,
      decidedBy: "edge",
    });
    await c.env.DB.batch([
      c.env.DB.prepare("update purchases set tax_cents = ? where id = ?").bind(tax, p.id),
      c.env.DB.prepare(
        `insert or replace into purchase_taxes (purchase_id, country, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence)
         values (?, ?, 'vat', ?, 'standard_rated', 1, ?, ?, ?)`,
      ).bind(p.id, country, ratePercent, p.amount_cents - tax, tax, evidence),
      c.env.DB.prepare("insert or ignore into tax_invoices (purchase_id, issued_at) values (?, ?)").bind(
        p.id,
        Date.now(),
      ),
    ]);
    const invoice = await c.env.DB.prepare("select number from tax_invoices where purchase_id = ?")
      .bind(p.id)
      .first<{ number: number }>();
    return c.json({ purchaseId: p.id, number: invoice?.number ?? null });
  })
  .post("/seed-sales", validate("json", seedSchema), async (c) => {
    const { userId, sales, days, itemId: more } = c.req.valid("json");
    // The rows name the creator (a foreign key): an unknown one is a 404, not a failed batch.
    if (!(await c.env.DB.prepare("select 1 from users where id = ?").bind(userId).first()))
      throw notFound("No such user");
    if (
      more &&
      !(await c.env.DB.prepare("select 1 from content where id = ? and user_id = ?").bind(more, userId).first())
    )
      throw notFound("No such item");
    const tag = newId(8);
    const itemId = more ?? `bench${tag}`;
    const now = Date.now();
    const span = days * 86_400_000;
    // Sales spread evenly over `days` up to now, as a paid checkout leaves them: the purchase (its
    // browser's key, paid), the creator's and the platform's ledger rows; every 20th is refunded
    // (status and both refund rows). The rollups follow through their triggers, as for any sale.
    // Views: 5 per sale per day.
    const seq = `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)`;
    const at = `(?2 - ?3 + (i * ?3) / ?1)`;
    const ledger = (key: string, account: string, user: string, kind: string, cents: string, when: string, only = "") =>
      c.env.DB.prepare(
        `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id, created_at)
         ${seq} select '${key}:' || ?4 || '_' || i || ':${account}', '${account}', ${user}, '${kind}', ${cents}, ?4 || '_' || i, ?5, ${when} from n ${only}`,
      ).bind(sales, now, span, tag, itemId, userId);
    await c.env.DB.batch([
      ...(more
        ? []
        : [
            c.env.DB.prepare(
              "insert into content (id, user_id, title, price_cents, access_type, link_url) values (?, ?, 'Bench item', 1000, 'link', 'https://example.com')",
            ).bind(itemId, userId),
          ]),
      c.env.DB.prepare(
        `insert into purchases (id, content_id, creator_id, buyer_email, buyer_key_hash, amount_cents, status, paid_at, created_at)
         ${seq} select ?4 || '_' || i, ?5, ?6, 'buyer' || i || '@example.com', 'key' || ?4 || i, 1000,
           case when i % 20 = 0 then 'refunded' else 'paid' end, ${at}, ${at} from n`,
      ).bind(sales, now, span, tag, itemId, userId),
      ledger("sale", "creator", "?6", "sale", "800", at),
      ledger("sale", "platform", "nullif(?6, ?6)", "platform_fee", "200", at),
      ledger("refund", "creator", "?6", "refund", "-800", `min(${at} + 3600000, ?2)`, "where i % 20 = 0"),
      ledger("refund", "platform", "nullif(?6, ?6)", "refund", "-200", `min(${at} + 3600000, ?2)`, "where i % 20 = 0"),
      c.env.DB.prepare(
        `insert into content_views_daily (content_id, day, views)
         with recursive d(k) as (select 0 union all select k + 1 from d where k < ?1 - 1)
         select ?2, strftime('%Y-%m-%d', (?3 - k * 86400000) / 1000, 'unixepoch'), max(1, cast(5 * ?4 / ?1 as integer)) from d where 1
         on conflict (content_id, day) do update set views = views + excluded.views`,
      ).bind(days, itemId, now, sales),
    ]);
    return c.json({ itemId, sales });
  });
