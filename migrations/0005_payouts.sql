CREATE TABLE `admin_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`actor_user_id` text,
	`actor_email` text,
	`action` text NOT NULL,
	`period_year` integer,
	`period_month` integer,
	`detail` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`actor_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `admin_audit_created` ON `admin_audit` (`created_at`);--> statement-breakpoint
DROP INDEX `payouts_user_period`;--> statement-breakpoint
ALTER TABLE `payouts` ADD `stripe_account_id` text;--> statement-breakpoint
CREATE INDEX `payouts_period` ON `payouts` (`period_year`,`period_month`,`id`);--> statement-breakpoint
CREATE INDEX `payouts_status` ON `payouts` (`status`);--> statement-breakpoint
CREATE UNIQUE INDEX `payouts_user_period` ON `payouts` (`user_id`,`period_year`,`period_month`) WHERE status <> 'failed';