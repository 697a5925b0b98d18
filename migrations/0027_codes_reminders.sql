ALTER TABLE `discount_redemptions` ADD `browser` text;--> statement-breakpoint
CREATE INDEX `discount_redemptions_browser` ON `discount_redemptions` (`code_id`,`browser`);--> statement-breakpoint
ALTER TABLE `purchases` ADD `no_reminder` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `purchases_discount_code` ON `purchases` (`discount_code_id`,`status`);
