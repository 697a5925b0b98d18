-- Sales tax and VAT (docs/tax.md): each purchase's tax and evidence, tax invoices numbered in
-- sequence, Stripe's tax transactions for our payments, the reversals we ask Stripe for, the
-- creator's choice of tax-inclusive prices, and the tax part of what a buyer paid.
CREATE TABLE `purchase_taxes` (
	`purchase_id` text PRIMARY KEY NOT NULL,
	`calculation_id` text,
	`country` text,
	`region` text,
	`postal_code` text,
	`tax_type` text,
	`rate_percent` text,
	`taxability_reason` text,
	`inclusive` integer NOT NULL,
	`net_cents` integer NOT NULL,
	`tax_cents` integer NOT NULL,
	`vat_id` text,
	`vat_id_type` text,
	`evidence` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`purchase_id`) REFERENCES `purchases`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `purchase_taxes_place` ON `purchase_taxes` (`country`,`region`);--> statement-breakpoint
CREATE TABLE `tax_invoices` (
	`number` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`purchase_id` text NOT NULL,
	`issued_at` integer NOT NULL,
	FOREIGN KEY (`purchase_id`) REFERENCES `purchases`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tax_invoices_purchase_id_unique` ON `tax_invoices` (`purchase_id`);--> statement-breakpoint
CREATE TABLE `tax_reversal_requests` (
	`idempotency_key` text PRIMARY KEY NOT NULL,
	`purchase_id` text NOT NULL,
	`payment_intent_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`tax_transaction_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `tax_reversal_requests_status` ON `tax_reversal_requests` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `tax_transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`purchase_id` text NOT NULL,
	`payment_intent_id` text,
	`type` text NOT NULL,
	`reference` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`tax_cents` integer NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tax_transactions_reference_unique` ON `tax_transactions` (`reference`);--> statement-breakpoint
CREATE INDEX `tax_transactions_purchase` ON `tax_transactions` (`purchase_id`);--> statement-breakpoint
CREATE INDEX `tax_transactions_created` ON `tax_transactions` (`created_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `tax_behavior` text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE `purchases` ADD `tax_cents` integer DEFAULT 0 NOT NULL;