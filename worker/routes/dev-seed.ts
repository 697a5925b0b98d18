// Local-only: seeds a creator with many sales for `npm run bench` (dashboard calls at 100 and
// 100,000 sales). Mounted under /dev, which answers 404 unless APP_ENV=development.
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../middleware/context";
import { notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import { validate } from "../lib/validate";

const seedSchema = z.strictObject({
  userId: z.string().min(1).max(40),
  sales: z.number().int().min(1).max(200_000),
  days: z.number().int().min(1).max(3650).default(730),
});

export const devSeedRoutes = new Hono<AppEnv>().post("/seed-sales", validate("json", seedSchema), async (c) => {
  const { userId, sales, days } = c.req.valid("json");
  // The rows name the creator (a foreign key): an unknown one is a 404, not a failed batch.
  if (!(await c.env.DB.prepare("select 1 from users where id = ?").bind(userId).first()))
    throw notFound("No such user");
  const tag = newId(8);
  const itemId = `bench${tag}`;
  const now = Date.now();
  const span = days * 86_400_000;
  // Sales spread evenly over `days` up to now; every 20th is refunded. Views: 5 per sale per day.
  const seq = `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)`;
  const at = `(?2 - ?3 + (i * ?3) / ?1)`;
  await c.env.DB.batch([
    c.env.DB.prepare(
      "insert into content (id, user_id, title, price_cents, access_type, link_url) values (?, ?, 'Bench item', 1000, 'link', 'https://example.com')",
    ).bind(itemId, userId),
    c.env.DB.prepare(
      `insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, status, paid_at, created_at)
         ${seq} select ?4 || '_' || i, ?5, ?6, 'buyer' || i || '@example.com', 1000, case when i % 20 = 0 then 'refunded' else 'paid' end, ${at}, ${at} from n`,
    ).bind(sales, now, span, tag, itemId, userId),
    c.env.DB.prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id, created_at)
         ${seq} select 'sale:' || ?4 || '_' || i || ':creator', 'creator', ?6, 'sale', 800, ?4 || '_' || i, ?5, ${at} from n`,
    ).bind(sales, now, span, tag, itemId, userId),
    c.env.DB.prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id, created_at)
         ${seq} select 'sale:' || ?4 || '_' || i || ':platform', 'platform', null, 'platform_fee', 200, ?4 || '_' || i, ?5, ${at} from n`,
    ).bind(sales, now, span, tag, itemId),
    c.env.DB.prepare(
      `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id, created_at)
         ${seq} select 'refund:' || ?4 || '_' || i || ':creator', 'creator', ?6, 'refund', -800, ?4 || '_' || i, ?5, ${at} + 3600000 from n where i % 20 = 0`,
    ).bind(sales, now, span, tag, itemId, userId),
    c.env.DB.prepare(
      `insert into content_views_daily (content_id, day, views)
         with recursive d(k) as (select 0 union all select k + 1 from d where k < ?1 - 1)
         select ?2, strftime('%Y-%m-%d', (?3 - k * 86400000) / 1000, 'unixepoch'), max(1, (5 * ?4) / ?1) from d`,
    ).bind(days, itemId, now, sales),
  ]);
  return c.json({ itemId, sales });
});
