CREATE TABLE `payout_skips` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`period_year` integer NOT NULL,
	`period_month` integer NOT NULL,
	`reason` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payout_skips_user_period` ON `payout_skips` (`user_id`,`period_year`,`period_month`);--> statement-breakpoint
DROP INDEX `payouts_user_period`;--> statement-breakpoint
ALTER TABLE `payouts` ADD `kind` text DEFAULT 'monthly' NOT NULL;--> statement-breakpoint
ALTER TABLE `payouts` ADD `reference` text;--> statement-breakpoint
CREATE UNIQUE INDEX `payouts_open_withdrawal` ON `payouts` (`user_id`) WHERE kind = 'withdrawal' and status in ('pending', 'processing');--> statement-breakpoint
CREATE UNIQUE INDEX `payouts_user_period` ON `payouts` (`user_id`,`period_year`,`period_month`) WHERE status <> 'failed' and kind = 'monthly';--> statement-breakpoint
ALTER TABLE `payout_settings` ADD `held_at` integer;--> statement-breakpoint
ALTER TABLE `payout_settings` ADD `held_reason` text;