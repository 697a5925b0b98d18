CREATE TABLE `buyer_customers` (
	`buyer_key_hash` text PRIMARY KEY NOT NULL,
	`stripe_customer_id` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
ALTER TABLE `login_tokens` ADD `browser_hash` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `buyer_key_hash` text;--> statement-breakpoint
CREATE INDEX `purchases_buyer_key` ON `purchases` (`buyer_key_hash`,`content_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `content_file_key_unique` ON `content` (`file_key`);