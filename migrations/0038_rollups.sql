-- Rollups for the creator dashboard (docs/money.md "Rollups"): per-day sums of the creator's ledger rows and
-- purchases, kept by triggers in the statement that writes their source rows, filled here from the rows
-- that exist; and the indexes the dashboard's plans asked for.
CREATE TABLE `ledger_daily` (
	`user_id` text NOT NULL,
	`day` text NOT NULL,
	`content_id` text NOT NULL,
	`kind` text NOT NULL,
	`cents` integer DEFAULT 0 NOT NULL,
	`entries` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `day`, `content_id`, `kind`)
);
--> statement-breakpoint
CREATE TABLE `sales_daily` (
	`creator_id` text NOT NULL,
	`day` text NOT NULL,
	`content_id` text NOT NULL,
	`checkouts` integer DEFAULT 0 NOT NULL,
	`paid_checkouts` integer DEFAULT 0 NOT NULL,
	`unlocks` integer DEFAULT 0 NOT NULL,
	`sales` integer DEFAULT 0 NOT NULL,
	`direct_sales` integer DEFAULT 0 NOT NULL,
	`bump_sales` integer DEFAULT 0 NOT NULL,
	`upsell_sales` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`creator_id`, `day`, `content_id`)
);
--> statement-breakpoint
CREATE INDEX `payouts_user_created` ON `payouts` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `purchases_creator_code_paid` ON `purchases` (`creator_id`,`paid_at`) WHERE discount_code_id is not null;--> statement-breakpoint
CREATE INDEX `purchases_creator_recovered_paid` ON `purchases` (`creator_id`,`paid_at`) WHERE recovered_from is not null;--> statement-breakpoint
CREATE INDEX `purchases_creator_bump_offered_paid` ON `purchases` (`creator_id`,`paid_at`) WHERE bump_offered = 1;--> statement-breakpoint
insert into ledger_daily (user_id, day, content_id, kind, cents, entries) 
  select user_id, strftime('%Y-%m-%d', created_at / 1000, 'unixepoch') as day, coalesce(content_id, '') as content_id, kind,
         sum(amount_cents) as cents, count(*) as entries
  from ledger_entries where account = 'creator' and user_id is not null 
  group by 1, 2, 3, 4;
--> statement-breakpoint
insert into sales_daily (creator_id, day, content_id, checkouts, paid_checkouts, unlocks, sales, direct_sales, bump_sales, upsell_sales) 
  with x as (
    select creator_id, strftime('%Y-%m-%d', created_at / 1000, 'unixepoch') as day, content_id,
           count(distinct case when funnel_step_id is null and bump_of is null then coalesce(buyer_key_hash, id) end) as checkouts,
           count(distinct case when funnel_step_id is null and bump_of is null and status in ('paid', 'refunded', 'disputed') then coalesce(buyer_key_hash, id) end) as paid_checkouts,
           sum(status = 'paid') as unlocks, 0 as sales, 0 as direct_sales, 0 as bump_sales, 0 as upsell_sales
    from purchases where 1  group by 1, 2, 3
    union all
    select creator_id, strftime('%Y-%m-%d', paid_at / 1000, 'unixepoch'), content_id, 0, 0, 0, count(*),
           sum(funnel_step_id is null and bump_of is null), sum(bump_of is not null),
           sum(funnel_step_id is not null and bump_of is null)
    from purchases where paid_at is not null and status in ('paid', 'refunded', 'disputed')  group by 1, 2, 3
  )
  select creator_id, day, content_id, sum(checkouts) as checkouts, sum(paid_checkouts) as paid_checkouts,
         sum(unlocks) as unlocks, sum(sales) as sales, sum(direct_sales) as direct_sales,
         sum(bump_sales) as bump_sales, sum(upsell_sales) as upsell_sales
  from x group by 1, 2, 3;
--> statement-breakpoint
-- Triggers: each rollup row changes in the statement that inserts, updates or deletes the row it
-- sums, only for rows really written (an insert skipped by ON CONFLICT DO NOTHING fires nothing).
-- A row's share is taken off (OLD, negated) and put back (NEW). A checkout counts once per browser
-- and day: a row adds one only when no other row of its browser, item and day is there.
CREATE TRIGGER ledger_daily_insert AFTER INSERT ON ledger_entries WHEN NEW.account = 'creator' AND NEW.user_id IS NOT NULL BEGIN
  INSERT INTO ledger_daily (user_id, day, content_id, kind, cents, entries)
  SELECT NEW.user_id, strftime('%Y-%m-%d', NEW.created_at / 1000, 'unixepoch'), coalesce(NEW.content_id, ''), NEW.kind, NEW.amount_cents, 1
  WHERE NEW.account = 'creator' AND NEW.user_id IS NOT NULL
  ON CONFLICT (user_id, day, content_id, kind) DO UPDATE SET cents = cents + excluded.cents, entries = entries + excluded.entries;
END;
--> statement-breakpoint
CREATE TRIGGER ledger_daily_update AFTER UPDATE OF account, user_id, kind, amount_cents, content_id, created_at ON ledger_entries BEGIN
  INSERT INTO ledger_daily (user_id, day, content_id, kind, cents, entries)
  SELECT OLD.user_id, strftime('%Y-%m-%d', OLD.created_at / 1000, 'unixepoch'), coalesce(OLD.content_id, ''), OLD.kind, -OLD.amount_cents, -1
  WHERE OLD.account = 'creator' AND OLD.user_id IS NOT NULL
  ON CONFLICT (user_id, day, content_id, kind) DO UPDATE SET cents = cents + excluded.cents, entries = entries + excluded.entries;
  INSERT INTO ledger_daily (user_id, day, content_id, kind, cents, entries)
  SELECT NEW.user_id, strftime('%Y-%m-%d', NEW.created_at / 1000, 'unixepoch'), coalesce(NEW.content_id, ''), NEW.kind, NEW.amount_cents, 1
  WHERE NEW.account = 'creator' AND NEW.user_id IS NOT NULL
  ON CONFLICT (user_id, day, content_id, kind) DO UPDATE SET cents = cents + excluded.cents, entries = entries + excluded.entries;
END;
--> statement-breakpoint
CREATE TRIGGER ledger_daily_delete AFTER DELETE ON ledger_entries WHEN OLD.account = 'creator' AND OLD.user_id IS NOT NULL BEGIN
  INSERT INTO ledger_daily (user_id, day, content_id, kind, cents, entries)
  SELECT OLD.user_id, strftime('%Y-%m-%d', OLD.created_at / 1000, 'unixepoch'), coalesce(OLD.content_id, ''), OLD.kind, -OLD.amount_cents, -1
  WHERE OLD.account = 'creator' AND OLD.user_id IS NOT NULL
  ON CONFLICT (user_id, day, content_id, kind) DO UPDATE SET cents = cents + excluded.cents, entries = entries + excluded.entries;
END;
--> statement-breakpoint
CREATE TRIGGER sales_daily_insert AFTER INSERT ON purchases BEGIN
  INSERT INTO sales_daily (creator_id, day, content_id, checkouts, paid_checkouts, unlocks)
  SELECT NEW.creator_id, strftime('%Y-%m-%d', NEW.created_at / 1000, 'unixepoch'), NEW.content_id,
    (NEW.funnel_step_id IS NULL AND NEW.bump_of IS NULL AND (NEW.buyer_key_hash IS NULL OR NOT EXISTS (SELECT 1 FROM purchases q WHERE q.buyer_key_hash = NEW.buyer_key_hash AND q.content_id = NEW.content_id AND q.creator_id = NEW.creator_id AND q.id <> NEW.id AND q.funnel_step_id IS NULL AND q.bump_of IS NULL AND strftime('%Y-%m-%d', q.created_at / 1000, 'unixepoch') = strftime('%Y-%m-%d', NEW.created_at / 1000, 'unixepoch')))),
    (NEW.funnel_step_id IS NULL AND NEW.bump_of IS NULL AND NEW.status IN ('paid', 'refunded', 'disputed') AND (NEW.buyer_key_hash IS NULL OR NOT EXISTS (SELECT 1 FROM purchases q WHERE q.buyer_key_hash = NEW.buyer_key_hash AND q.content_id = NEW.content_id AND q.creator_id = NEW.creator_id AND q.id <> NEW.id AND q.funnel_step_id IS NULL AND q.bump_of IS NULL AND q.status IN ('paid', 'refunded', 'disputed') AND strftime('%Y-%m-%d', q.created_at / 1000, 'unixepoch') = strftime('%Y-%m-%d', NEW.created_at / 1000, 'unixepoch')))),
    (NEW.status = 'paid')
  WHERE 1
  ON CONFLICT (creator_id, day, content_id) DO UPDATE SET checkouts = checkouts + excluded.checkouts,
    paid_checkouts = paid_checkouts + excluded.paid_checkouts, unlocks = unlocks + excluded.unlocks;
  INSERT INTO sales_daily (creator_id, day, content_id, sales, direct_sales, bump_sales, upsell_sales)
  SELECT NEW.creator_id, strftime('%Y-%m-%d', NEW.paid_at / 1000, 'unixepoch'), NEW.content_id, 1, (NEW.funnel_step_id IS NULL AND NEW.bump_of IS NULL),
    (NEW.bump_of IS NOT NULL), (NEW.funnel_step_id IS NOT NULL AND NEW.bump_of IS NULL)
  WHERE NEW.paid_at IS NOT NULL AND NEW.status IN ('paid', 'refunded', 'disputed')
  ON CONFLICT (creator_id, day, content_id) DO UPDATE SET sales = sales + excluded.sales,
    direct_sales = direct_sales + excluded.direct_sales, bump_sales = bump_sales + excluded.bump_sales,
    upsell_sales = upsell_sales + excluded.upsell_sales;
END;
--> statement-breakpoint
CREATE TRIGGER sales_daily_update AFTER UPDATE OF status, paid_at, created_at, content_id, creator_id, buyer_key_hash, funnel_step_id, bump_of ON purchases BEGIN
  INSERT INTO sales_daily (creator_id, day, content_id, checkouts, paid_checkouts, unlocks)
  SELECT OLD.creator_id, strftime('%Y-%m-%d', OLD.created_at / 1000, 'unixepoch'), OLD.content_id,
    -(OLD.funnel_step_id IS NULL AND OLD.bump_of IS NULL AND (OLD.buyer_key_hash IS NULL OR NOT EXISTS (SELECT 1 FROM purchases q WHERE q.buyer_key_hash = OLD.buyer_key_hash AND q.content_id = OLD.content_id AND q.creator_id = OLD.creator_id AND q.id <> OLD.id AND q.funnel_step_id IS NULL AND q.bump_of IS NULL AND strftime('%Y-%m-%d', q.created_at / 1000, 'unixepoch') = strftime('%Y-%m-%d', OLD.created_at / 1000, 'unixepoch')))),
    -(OLD.funnel_step_id IS NULL AND OLD.bump_of IS NULL AND OLD.status IN ('paid', 'refunded', 'disputed') AND (OLD.buyer_key_hash IS NULL OR NOT EXISTS (SELECT 1 FROM purchases q WHERE q.buyer_key_hash = OLD.buyer_key_hash AND q.content_id = OLD.content_id AND q.creator_id = OLD.creator_id AND q.id <> OLD.id AND q.funnel_step_id IS NULL AND q.bump_of IS NULL AND q.status IN ('paid', 'refunded', 'disputed') AND strftime('%Y-%m-%d', q.created_at / 1000, 'unixepoch') = strftime('%Y-%m-%d', OLD.created_at / 1000, 'unixepoch')))),
    -(OLD.status = 'paid')
  WHERE 1
  ON CONFLICT (creator_id, day, content_id) DO UPDATE SET checkouts = checkouts + excluded.checkouts,
    paid_checkouts = paid_checkouts + excluded.paid_checkouts, unlocks = unlocks + excluded.unlocks;
  INSERT INTO sales_daily (creator_id, day, content_id, sales, direct_sales, bump_sales, upsell_sales)
  SELECT OLD.creator_id, strftime('%Y-%m-%d', OLD.paid_at / 1000, 'unixepoch'), OLD.content_id, -1, -(OLD.funnel_step_id IS NULL AND OLD.bump_of IS NULL),
    -(OLD.bump_of IS NOT NULL), -(OLD.funnel_step_id IS NOT NULL AND OLD.bump_of IS NULL)
  WHERE OLD.paid_at IS NOT NULL AND OLD.status IN ('paid', 'refunded', 'disputed')
  ON CONFLICT (creator_id, day, content_id) DO UPDATE SET sales = sales + excluded.sales,
    direct_sales = direct_sales + excluded.direct_sales, bump_sales = bump_sales + excluded.bump_sales,
    upsell_sales = upsell_sales + excluded.upsell_sales;
  INSERT INTO sales_daily (creator_id, day, content_id, checkouts, paid_checkouts, unlocks)
  SELECT NEW.creator_id, strftime('%Y-%m-%d', NEW.created_at / 1000, 'unixepoch'), NEW.content_id,
    (NEW.funnel_step_id IS NULL AND NEW.bump_of IS NULL AND (NEW.buyer_key_hash IS NULL OR NOT EXISTS (SELECT 1 FROM purchases q WHERE q.buyer_key_hash = NEW.buyer_key_hash AND q.content_id = NEW.content_id AND q.creator_id = NEW.creator_id AND q.id <> NEW.id AND q.funnel_step_id IS NULL AND q.bump_of IS NULL AND strftime('%Y-%m-%d', q.created_at / 1000, 'unixepoch') = strftime('%Y-%m-%d', NEW.created_at / 1000, 'unixepoch')))),
    (NEW.funnel_step_id IS NULL AND NEW.bump_of IS NULL AND NEW.status IN ('paid', 'refunded', 'disputed') AND (NEW.buyer_key_hash IS NULL OR NOT EXISTS (SELECT 1 FROM purchases q WHERE q.buyer_key_hash = NEW.buyer_key_hash AND q.content_id = NEW.content_id AND q.creator_id = NEW.creator_id AND q.id <> NEW.id AND q.funnel_step_id IS NULL AND q.bump_of IS NULL AND q.status IN ('paid', 'refunded', 'disputed') AND strftime('%Y-%m-%d', q.created_at / 1000, 'unixepoch') = strftime('%Y-%m-%d', NEW.created_at / 1000, 'unixepoch')))),
    (NEW.status = 'paid')
  WHERE 1
  ON CONFLICT (creator_id, day, content_id) DO UPDATE SET checkouts = checkouts + excluded.checkouts,
    paid_checkouts = paid_checkouts + excluded.paid_checkouts, unlocks = unlocks + excluded.unlocks;
  INSERT INTO sales_daily (creator_id, day, content_id, sales, direct_sales, bump_sales, upsell_sales)
  SELECT NEW.creator_id, strftime('%Y-%m-%d', NEW.paid_at / 1000, 'unixepoch'), NEW.content_id, 1, (NEW.funnel_step_id IS NULL AND NEW.bump_of IS NULL),
    (NEW.bump_of IS NOT NULL), (NEW.funnel_step_id IS NOT NULL AND NEW.bump_of IS NULL)
  WHERE NEW.paid_at IS NOT NULL AND NEW.status IN ('paid', 'refunded', 'disputed')
  ON CONFLICT (creator_id, day, content_id) DO UPDATE SET sales = sales + excluded.sales,
    direct_sales = direct_sales + excluded.direct_sales, bump_sales = bump_sales + excluded.bump_sales,
    upsell_sales = upsell_sales + excluded.upsell_sales;
END;
--> statement-breakpoint
CREATE TRIGGER sales_daily_delete AFTER DELETE ON purchases BEGIN
  INSERT INTO sales_daily (creator_id, day, content_id, checkouts, paid_checkouts, unlocks)
  SELECT OLD.creator_id, strftime('%Y-%m-%d', OLD.created_at / 1000, 'unixepoch'), OLD.content_id,
    -(OLD.funnel_step_id IS NULL AND OLD.bump_of IS NULL AND (OLD.buyer_key_hash IS NULL OR NOT EXISTS (SELECT 1 FROM purchases q WHERE q.buyer_key_hash = OLD.buyer_key_hash AND q.content_id = OLD.content_id AND q.creator_id = OLD.creator_id AND q.id <> OLD.id AND q.funnel_step_id IS NULL AND q.bump_of IS NULL AND strftime('%Y-%m-%d', q.created_at / 1000, 'unixepoch') = strftime('%Y-%m-%d', OLD.created_at / 1000, 'unixepoch')))),
    -(OLD.funnel_step_id IS NULL AND OLD.bump_of IS NULL AND OLD.status IN ('paid', 'refunded', 'disputed') AND (OLD.buyer_key_hash IS NULL OR NOT EXISTS (SELECT 1 FROM purchases q WHERE q.buyer_key_hash = OLD.buyer_key_hash AND q.content_id = OLD.content_id AND q.creator_id = OLD.creator_id AND q.id <> OLD.id AND q.funnel_step_id IS NULL AND q.bump_of IS NULL AND q.status IN ('paid', 'refunded', 'disputed') AND strftime('%Y-%m-%d', q.created_at / 1000, 'unixepoch') = strftime('%Y-%m-%d', OLD.created_at / 1000, 'unixepoch')))),
    -(OLD.status = 'paid')
  WHERE 1
  ON CONFLICT (creator_id, day, content_id) DO UPDATE SET checkouts = checkouts + excluded.checkouts,
    paid_checkouts = paid_checkouts + excluded.paid_checkouts, unlocks = unlocks + excluded.unlocks;
  INSERT INTO sales_daily (creator_id, day, content_id, sales, direct_sales, bump_sales, upsell_sales)
  SELECT OLD.creator_id, strftime('%Y-%m-%d', OLD.paid_at / 1000, 'unixepoch'), OLD.content_id, -1, -(OLD.funnel_step_id IS NULL AND OLD.bump_of IS NULL),
    -(OLD.bump_of IS NOT NULL), -(OLD.funnel_step_id IS NOT NULL AND OLD.bump_of IS NULL)
  WHERE OLD.paid_at IS NOT NULL AND OLD.status IN ('paid', 'refunded', 'disputed')
  ON CONFLICT (creator_id, day, content_id) DO UPDATE SET sales = sales + excluded.sales,
    direct_sales = direct_sales + excluded.direct_sales, bump_sales = bump_sales + excluded.bump_sales,
    upsell_sales = upsell_sales + excluded.upsell_sales;
END;
