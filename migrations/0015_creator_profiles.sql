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
CREATE UNIQUE INDEX `creator_profiles_avatar_id_unique` ON `creator_profiles` (`avatar_id`);