ALTER TABLE `payout_settings` ADD `payout_default` text;--> statement-breakpoint
ALTER TABLE `payouts` ADD `send_attempt` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `payouts` ADD `next_retry_at` integer;--> statement-breakpoint
ALTER TABLE `payouts` ADD `last_error` text;--> statement-breakpoint
ALTER TABLE `payouts` ADD `failure_code` text;--> statement-breakpoint
ALTER TABLE `payouts` ADD `failure_detail` text;