CREATE TABLE `library_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `library_tokens_email_created` ON `library_tokens` (`email`,`created_at`);--> statement-breakpoint
-- The library finds an address's purchases case-insensitively (worker/services/library/purchases.ts);
-- an expression index, which drizzle's schema cannot declare, so written here by hand.
CREATE INDEX `purchases_buyer_email_lower` ON `purchases` (lower(`buyer_email`),`status`);
