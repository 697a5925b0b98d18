ALTER TABLE `funnel_offers` ADD `shown_price_cents` integer;--> statement-breakpoint
ALTER TABLE `funnel_offers` ADD `shown_minimum_cents` integer;--> statement-breakpoint
ALTER TABLE `funnel_offers` ADD `shown_maximum_cents` integer;