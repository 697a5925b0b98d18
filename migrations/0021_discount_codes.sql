CREATE TABLE `discount_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`code` text NOT NULL,
	`kind` text NOT NULL,
	`percent_off` integer,
	`amount_off_cents` integer,
	`content_id` text,
	`expires_at` integer,
	`max_uses` integer,
	`max_uses_per_buyer` integer,
	`archived_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`content_id`) REFERENCES `content`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `discount_codes_user_code` ON `discount_codes` (`user_id`,`code`);--> statement-breakpoint
CREATE TABLE `discount_redemptions` (
	`id` text PRIMARY KEY NOT NULL,
	`code_id` text NOT NULL,
	`purchase_id` text NOT NULL,
	`buyer` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`code_id`) REFERENCES `discount_codes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `discount_redemptions_purchase_id_unique` ON `discount_redemptions` (`purchase_id`);--> statement-breakpoint
CREATE INDEX `discount_redemptions_code` ON `discount_redemptions` (`code_id`,`buyer`);--> statement-breakpoint
ALTER TABLE `purchases` ADD `discount_code_id` text;--> statement-breakpoint
ALTER TABLE `purchases` ADD `discount_cents` integer DEFAULT 0 NOT NULL;