ALTER TABLE `content` ADD `bump_content_id` text;--> statement-breakpoint
ALTER TABLE `content` ADD `bump_price_cents` integer;--> statement-breakpoint
ALTER TABLE `purchases` ADD `bump_of` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `bump_offered` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `purchases_bump_of` ON `purchases` (`bump_of`);