ALTER TABLE `purchases` ADD `processing_since` integer;
