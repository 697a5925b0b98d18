ALTER TABLE `funnel_ab_tests` ADD `a_title` text;--> statement-breakpoint
ALTER TABLE `funnel_ab_tests` ADD `a_description` text;--> statement-breakpoint
ALTER TABLE `funnel_ab_tests` ADD `a_cta_text` text;--> statement-breakpoint
ALTER TABLE `funnel_ab_tests` ADD `a_price_cents` integer;