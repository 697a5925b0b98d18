DROP INDEX `ledger_purchase`;--> statement-breakpoint
CREATE INDEX `ledger_purchase` ON `ledger_entries` (`purchase_id`,`account`,`kind`,`amount_cents`);--> statement-breakpoint
DROP INDEX `purchases_content`;--> statement-breakpoint
CREATE INDEX `purchases_content` ON `purchases` (`content_id`,`status`,`id`);