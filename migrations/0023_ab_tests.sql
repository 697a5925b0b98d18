CREATE TABLE `funnel_ab_assignments` (
	`test_id` text NOT NULL,
	`root_purchase_id` text NOT NULL,
	`variant` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	PRIMARY KEY(`test_id`, `root_purchase_id`)
);
--> statement-breakpoint
CREATE TABLE `funnel_ab_tests` (
	`id` text PRIMARY KEY NOT NULL,
	`step_id` text NOT NULL,
	`funnel_id` text NOT NULL,
	`user_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`cta_text` text NOT NULL,
	`price_cents` integer,
	`status` text DEFAULT 'running' NOT NULL,
	`winner` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`step_id`) REFERENCES `funnel_steps`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `funnel_ab_tests_running` ON `funnel_ab_tests` (`step_id`) WHERE status = 'running';--> statement-breakpoint
CREATE INDEX `funnel_ab_tests_funnel` ON `funnel_ab_tests` (`funnel_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `funnel_offers` ADD `ab_test_id` text;--> statement-breakpoint
ALTER TABLE `funnel_offers` ADD `variant` text;--> statement-breakpoint
CREATE INDEX `funnel_offers_ab_test` ON `funnel_offers` (`ab_test_id`,`variant`);