DROP INDEX `purchases_creator_status`;--> statement-breakpoint
CREATE INDEX `purchases_creator_status` ON `purchases` (`creator_id`,`status`,`content_id`);--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `content_id` text;--> statement-breakpoint
CREATE INDEX `ledger_user_content` ON `ledger_entries` (`user_id`,`account`,`content_id`,`kind`,`amount_cents`);