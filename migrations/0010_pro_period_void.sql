ALTER TABLE `pro_periods` ADD `voided_at` integer;--> statement-breakpoint
ALTER TABLE `pro_periods` ADD `void_reason` text;