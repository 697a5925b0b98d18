-- Every email handed to the mail provider, by the provider's message id, with what it was and where
-- its delivery stands; and the provider's delivery events, each recorded once by its id.
-- Behaviour: docs/payments.md ("Receipts and emails").
CREATE TABLE `mail_deliveries` (
	`message_id` text PRIMARY KEY NOT NULL,
	`dedupe_key` text NOT NULL,
	`template` text NOT NULL,
	`to_email` text NOT NULL,
	`purchase_id` text,
	`state` text DEFAULT 'sent' NOT NULL,
	`bounce_reason` text,
	`sent_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_deliveries_purchase` ON `mail_deliveries` (`purchase_id`,`sent_at`) WHERE purchase_id is not null;
--> statement-breakpoint
CREATE TABLE `mail_events` (
	`id` text PRIMARY KEY NOT NULL,
	`message_id` text NOT NULL,
	`type` text NOT NULL,
	`occurred_at` integer,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `mail_deliveries_other_sent` ON `mail_deliveries` (`sent_at`) WHERE purchase_id is null;
--> statement-breakpoint
CREATE INDEX `mail_events_received` ON `mail_events` (`received_at`);
