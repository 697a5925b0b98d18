// What ApeWall charges and promises (docs/money.md): the platform fee, Pro's price, the price
// limits of an item, and the refund and fees policies in the words the pricing page shows.
export const PLATFORM_FEE_PERCENT = 20;
export const PRO_PRICE_CENTS = 9900;
/** Card payments below $0.50 are refused by the payment provider; above this is a typo, not a price. */
export const MIN_PRICE_CENTS = 50;
export const MAX_PRICE_CENTS = 1_000_000;

/**
 * The refund promise, stated once and shown everywhere it is made (/pricing). Nothing backs a
 * platform-wide "30-day money-back guarantee" for buyers (a creator's sale is the creator's to
 * refund), nor for Pro (a Pro charge is not refunded on cancel), so neither is promised: what is
 * true is said instead.
 */
export const REFUND_POLICY = {
  buyers:
    "Creators can refund any sale in full or in part from their sales table; the money goes back to the buyer's card.",
  pro: "Cancel anytime: Pro stays on until the end of the month you paid for, and you are not charged again.",
} as const;

/** Who bears Stripe's fees, in the words the pricing page and the docs use (docs/money.md). */
export const FEES_POLICY =
  "ApeWall pays Stripe's card processing fees and dispute fees out of its own share: your 80% (100% on Pro) is never reduced by them. When you refund a sale, only your share of the refund is taken back; the processing fee Stripe keeps is ours. A chargeback takes your share back while it is open and gives it back if it is won.";
