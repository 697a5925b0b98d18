-- Card testing (docs/security.md "Card testing"): the client address (an HMAC) that started each
-- checkout, so a decline made straight at Stripe still counts for it; and when Stripe answered each
-- server-side confirm, so confirms still awaiting an answer count toward the limits.
CREATE TABLE `checkout_starts` (
	`payment_intent_id` text PRIMARY KEY NOT NULL,
	`client_hash` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `checkout_starts_created` ON `checkout_starts` (`created_at`);--> statement-breakpoint
ALTER TABLE `checkout_confirms` ADD `answered_at` integer;--> statement-breakpoint
CREATE INDEX `checkout_confirms_client` ON `checkout_confirms` (`client_hash`,`created_at`) WHERE client_hash is not null;--> statement-breakpoint
CREATE INDEX `checkout_confirms_fingerprint` ON `checkout_confirms` (`fingerprint`,`created_at`) WHERE fingerprint is not null;--> statement-breakpoint
CREATE INDEX `checkout_confirms_email` ON `checkout_confirms` (`email`,`created_at`) WHERE email is not null;
