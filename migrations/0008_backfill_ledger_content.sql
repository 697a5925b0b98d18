-- Fills the new ledger_entries.content_id on rows written before it existed, from each row's
-- purchase. A one-time fill of a derived column: no amount, key or account changes.
UPDATE `ledger_entries` SET `content_id` = (SELECT `content_id` FROM `purchases` WHERE `purchases`.`id` = `ledger_entries`.`purchase_id`)
WHERE `purchase_id` IS NOT NULL AND `content_id` IS NULL;
