CREATE TABLE `pro_periods` (
	`invoice_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pro_periods_user` ON `pro_periods` (`user_id`,`starts_at`);--> statement-breakpoint
CREATE INDEX `pro_periods_subscription` ON `pro_periods` (`subscription_id`);--> statement-breakpoint
DROP INDEX `ledger_user`;--> statement-breakpoint
CREATE INDEX `ledger_user_kind_created` ON `ledger_entries` (`user_id`,`account`,`kind`,`created_at`,`amount_cents`);--> statement-breakpoint
CREATE INDEX `ledger_payout` ON `ledger_entries` (`payout_id`);--> statement-breakpoint
ALTER TABLE `payout_settings` ADD `connect_payouts_enabled` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `purchases_creator_paid` ON `purchases` (`creator_id`,`paid_at`,`id`);--> statement-breakpoint
CREATE INDEX `purchases_creator_status` ON `purchases` (`creator_id`,`status`);