CREATE TABLE `email_unsubscribes` (
	`email` text PRIMARY KEY NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
ALTER TABLE `content` ADD `checkout_reminders` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `purchases` ADD `recovered_from` text;