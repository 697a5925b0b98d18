-- Card testing (docs/security.md "Card testing"): the declines Stripe reported, counted per card
-- fingerprint, buyer email and client address over the last hour; the server-side confirms that
-- name a checkout's client; the cheap purchases' receipts, at most one address per payer a day.
CREATE TABLE `card_declines` (
	`id` text PRIMARY KEY NOT NULL,
	`payment_intent_id` text NOT NULL,
	`fingerprint` text,
	`email` text,
	`client_hash` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `card_declines_fingerprint` ON `card_declines` (`fingerprint`,`created_at`) WHERE fingerprint is not null;--> statement-breakpoint
CREATE INDEX `card_declines_email` ON `card_declines` (`email`,`created_at`) WHERE email is not null;--> statement-breakpoint
CREATE INDEX `card_declines_client` ON `card_declines` (`client_hash`,`created_at`) WHERE client_hash is not null;--> statement-breakpoint
CREATE TABLE `checkout_confirms` (
	`confirmation_token` text PRIMARY KEY NOT NULL,
	`payment_intent_id` text NOT NULL,
	`fingerprint` text,
	`email` text,
	`client_hash` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `checkout_confirms_intent` ON `checkout_confirms` (`payment_intent_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `cheap_receipts` (
	`purchase_id` text PRIMARY KEY NOT NULL,
	`creator_id` text NOT NULL,
	`email` text NOT NULL,
	`fingerprint` text,
	`client_hash` text,
	`buyer_key_hash` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `cheap_receipts_creator` ON `cheap_receipts` (`creator_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `cheap_receipts_client` ON `cheap_receipts` (`client_hash`,`created_at`) WHERE client_hash is not null;--> statement-breakpoint
CREATE INDEX `cheap_receipts_fingerprint` ON `cheap_receipts` (`fingerprint`,`created_at`) WHERE fingerprint is not null;--> statement-breakpoint
CREATE INDEX `cheap_receipts_buyer` ON `cheap_receipts` (`buyer_key_hash`,`created_at`) WHERE buyer_key_hash is not null;
