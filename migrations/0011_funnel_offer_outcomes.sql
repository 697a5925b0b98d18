-- funnel_offers.status gains the outcomes of an accept ('paid', 'failed'); rows written before
-- take them from their upsell purchase. A claimed offer whose purchase was paid is 'paid'; one whose
-- purchase failed and that was not declined is 'failed'. A row marked 'declined' stays declined
-- unless its purchase was paid (the old code could record both; the money decides).
UPDATE `funnel_offers` SET `status` = 'paid'
WHERE `purchase_id` IN (SELECT `id` FROM `purchases` WHERE `status` IN ('paid', 'refunded', 'disputed'));
--> statement-breakpoint
UPDATE `funnel_offers` SET `status` = 'failed'
WHERE `status` = 'accepting' AND `purchase_id` IN (SELECT `id` FROM `purchases` WHERE `status` = 'failed');
