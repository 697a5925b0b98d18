ALTER TABLE `content` ADD `preview_image_width` integer;--> statement-breakpoint
ALTER TABLE `content` ADD `preview_image_height` integer;