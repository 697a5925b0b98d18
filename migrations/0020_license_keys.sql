CREATE TABLE `license_activations` (
	`license_id` text NOT NULL,
	`instance` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`license_id`, `instance`),
	FOREIGN KEY (`license_id`) REFERENCES `license_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `license_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`purchase_id` text NOT NULL,
	`content_id` text NOT NULL,
	`user_id` text NOT NULL,
	`disabled_at` integer,
	`disabled_reason` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`purchase_id`) REFERENCES `purchases`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`content_id`) REFERENCES `content`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `license_keys_key_unique` ON `license_keys` (`key`);--> statement-breakpoint
CREATE UNIQUE INDEX `license_keys_purchase_id_unique` ON `license_keys` (`purchase_id`);--> statement-breakpoint
CREATE INDEX `license_keys_user` ON `license_keys` (`user_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `content` ADD `issue_license_keys` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `content` ADD `license_activation_limit` integer;