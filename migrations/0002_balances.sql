DROP INDEX `ledger_user`;--> statement-breakpoint
CREATE INDEX `ledger_user_kind_created` ON `ledger_entries` (`user_id`,`account`,`kind`,`created_at`,`amount_cents`);--> statement-breakpoint
CREATE INDEX `ledger_payout` ON `ledger_entries` (`payout_id`);