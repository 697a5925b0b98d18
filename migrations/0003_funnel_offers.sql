CREATE TABLE `funnel_offers` (
	`parent_purchase_id` text NOT NULL,
	`step_id` text NOT NULL,
	`funnel_id` text NOT NULL,
	`status` text DEFAULT 'shown' NOT NULL,
	`purchase_id` text,
	`amount_cents` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`decided_at` integer,
	PRIMARY KEY(`parent_purchase_id`, `step_id`),
	FOREIGN KEY (`parent_purchase_id`) REFERENCES `purchases`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `funnel_offers_purchase_id_unique` ON `funnel_offers` (`purchase_id`);--> statement-breakpoint
CREATE INDEX `funnel_offers_step` ON `funnel_offers` (`step_id`);