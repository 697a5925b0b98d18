-- Each change of a paid order's email, for good: who moved it (the paying browser or the library), from
-- and to which address. Limits read it (3 per order ever, 50 a day per creator) and support can see
-- what happened to an order ("if this wasn't you"). docs/payments.md, "Changing a purchase's email".
CREATE TABLE `purchase_email_changes` (
	`id` text PRIMARY KEY NOT NULL,
	`purchase_id` text NOT NULL,
	`creator_id` text NOT NULL,
	`old_email` text,
	`new_email` text NOT NULL,
	`changed_by` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `purchase_email_changes_purchase` ON `purchase_email_changes` (`purchase_id`);--> statement-breakpoint
CREATE INDEX `purchase_email_changes_creator` ON `purchase_email_changes` (`creator_id`,`created_at`);
