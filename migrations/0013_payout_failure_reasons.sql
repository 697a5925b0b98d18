-- Failed payouts written before 0012 kept Stripe's message to the platform in `notes`, which the
-- creator reads (payout history). It moves to failure_detail (the admin's), with a code taken from
-- its text, and `notes` gets what the creator can read and do (the texts payouts.ts writes now).
UPDATE `payouts` SET
  `failure_code` = CASE
    WHEN `notes` LIKE '%capabilities%' THEN 'insufficient_capabilities_for_transfer'
    WHEN `notes` LIKE '%insufficient available funds%' THEN 'balance_insufficient'
    WHEN `notes` LIKE 'The transfer to your bank account was reversed%' THEN 'transfer_reversed'
    ELSE 'unknown'
  END,
  `failure_detail` = substr(`notes`, 1, 500),
  `notes` = CASE
    WHEN `notes` LIKE '%capabilities%' THEN 'Stripe cannot send money to your connected bank account yet: it still needs some details from you. Open your payout settings and finish setting up your bank account with Stripe.'
    WHEN `notes` LIKE '%insufficient available funds%' THEN 'This payout was delayed by a problem on ApeWall''s side, not yours. The money went back to your balance for your next payout.'
    WHEN `notes` LIKE 'The transfer to your bank account was reversed%' THEN 'The transfer to your bank account was reversed. Check your bank account in your payout settings.'
    ELSE 'This payout could not be sent. The money went back to your balance for your next payout; check your payout settings.'
  END
WHERE `status` = 'failed' AND `failure_code` IS NULL AND `notes` IS NOT NULL;
