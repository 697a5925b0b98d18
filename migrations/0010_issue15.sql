CREATE TABLE `outbox_emails` (
	`id` text PRIMARY KEY NOT NULL,
	`job` text NOT NULL,
	`created_at` integer NOT NULL,
	`enqueued_at` integer,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `outbox_emails_unsent` ON `outbox_emails` (`enqueued_at`) WHERE sent_at is null;--> statement-breakpoint
ALTER TABLE `funnel_offers` ADD `shown_price_cents` integer;--> statement-breakpoint
ALTER TABLE `funnel_offers` ADD `shown_minimum_cents` integer;--> statement-breakpoint
ALTER TABLE `funnel_offers` ADD `shown_maximum_cents` integer;--> statement-breakpoint
ALTER TABLE `funnel_steps` ADD `max_price_cents` integer;--> statement-breakpoint
ALTER TABLE `pro_periods` ADD `voided_at` integer;--> statement-breakpoint
ALTER TABLE `pro_periods` ADD `void_reason` text;