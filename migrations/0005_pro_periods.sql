CREATE TABLE `pro_periods` (
	`invoice_id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`starts_at` integer NOT NULL,
	`ends_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `pro_periods_user` ON `pro_periods` (`user_id`,`starts_at`);--> statement-breakpoint
CREATE INDEX `pro_periods_subscription` ON `pro_periods` (`subscription_id`);