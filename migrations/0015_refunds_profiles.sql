CREATE TABLE `creator_profiles` (
	`user_id` text PRIMARY KEY NOT NULL,
	`display_name` text,
	`bio` text,
	`support_email` text,
	`avatar_id` text,
	`avatar_type` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `creator_profiles_avatar_id_unique` ON `creator_profiles` (`avatar_id`);--> statement-breakpoint
CREATE TABLE `refund_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`purchase_id` text NOT NULL,
	`creator_id` text NOT NULL,
	`request_key` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`reason` text NOT NULL,
	`note` text,
	`status` text DEFAULT 'requested' NOT NULL,
	`stripe_refund_id` text,
	`error` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`purchase_id`) REFERENCES `purchases`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`creator_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `refund_requests_stripe_refund_id_unique` ON `refund_requests` (`stripe_refund_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `refund_requests_key` ON `refund_requests` (`purchase_id`,`request_key`);