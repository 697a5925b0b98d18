// Business constants of spec §9, shared by the Worker and the SPA.
export const PRODUCT_NAME = "ApeWall";
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;
export const PLATFORM_FEE_PERCENT = 20;
export const PRO_PRICE_CENTS = 9900;
export const MIN_PAYOUT_CENTS = 2500;
export const RELOGIN_DELAY_MS = 500;

export const CATEGORIES = [
  "digital-art",
  "video-course",
  "template",
  "music",
  "photography",
  "document",
  "other",
] as const;
export const ACCESS_TYPES = ["download", "view", "stream", "link"] as const;
export const PRICING_MODELS = ["fixed", "pay_what_you_want"] as const;
/** The manual payout methods (the admin pays by hand). Bank payouts go through Stripe Connect only. */
export const PAYOUT_METHODS = ["paypal", "wise", "zelle", "venmo", "cashapp"] as const;
/** Where a creator's payouts go when both are set up: the connected bank, or their manual method. */
export const PAYOUT_DEFAULTS = ["bank", "manual"] as const;
export const FEEDBACK_TYPES = ["bug", "feature", "improvement", "general"] as const;
export const FEEDBACK_PRIORITIES = ["low", "medium", "high", "urgent"] as const;
export const SORT_OPTIONS = ["newest", "oldest", "price-high", "price-low", "unlocks", "earnings"] as const;

/** Size as spec §5 shows it: Bytes/KB/MB/GB with two decimals. */
export function formatFileSize(bytes: number): string {
  if (bytes === 0) return "0 Bytes";
  const units = ["Bytes", "KB", "MB", "GB"];
  const i = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${parseFloat((bytes / 1024 ** i).toFixed(2))} ${units[i]}`;
}

/** Multipart uploads: every part but the last is exactly this size (R2 needs equal parts ≥ 5 MiB). */
export const UPLOAD_PART_SIZE = 10 * 1024 * 1024;
/** Files up to this size may travel inline in the POST /api/content form instead of a multipart upload. */
export const MAX_INLINE_FILE_BYTES = 8 * 1024 * 1024;
export const MAX_PREVIEW_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_TEXT_CONTENT_CHARS = 100_000;
/** Card payments below $0.50 are refused by the payment provider; above this is a typo, not a price. */
export const MIN_PRICE_CENTS = 50;
export const MAX_PRICE_CENTS = 1_000_000;
/** Unfinished uploads older than this are aborted by the daily sweep. */
export const STALE_UPLOAD_MS = 24 * 60 * 60 * 1000;
/** Finished uploads that no item uses are removed (file and record) this long after they finished. */
export const UNPUBLISHED_UPLOAD_MS = 7 * 24 * 60 * 60 * 1000;
/** Uploads one creator may have in progress at once (a page uploads one file at a time; this leaves room for tabs). */
export const MAX_OPEN_UPLOADS = 5;
/** Bytes of uploaded files one creator may keep (in progress, finished or published): 50 GB, Pro 250 GB. */
export const MAX_STORED_BYTES = 50 * 1024 ** 3;
export const MAX_STORED_BYTES_PRO = 250 * 1024 ** 3;

/**
 * The one payout schedule this product runs (spec §9 states two that contradict each other; this is
 * the decision). Every screen that explains payouts shows these words, and the cron matches them.
 */
/** A sale's creator share is held this long before it can be paid out, so refunds and disputes can still reverse it. */
export const SALE_HOLD_DAYS = 7;
/** Manual-method payouts (PayPal, Wise, Zelle, Venmo, Cash App) are sent by the admin by this day of the month. */
export const MANUAL_PAYOUT_DAY = 21;
export const PAYOUT_SCHEDULE_TEXT = [
  `Each sale's earnings are held for ${SALE_HOLD_DAYS} days, so refunds and disputes can still be settled; after that they are available.`,
  "On the 1st of each month we prepare one payout per creator with everything available at that moment.",
  "Connected bank accounts (Stripe) are paid by transfer that same day and usually arrive in 2-3 business days.",
  `PayPal, Wise, Zelle, Venmo and Cash App payouts are sent by hand by the ${MANUAL_PAYOUT_DAY}st of the month.`,
  `Payouts need at least $${MIN_PAYOUT_CENTS / 100}; a smaller balance carries over to the next month.`,
] as const;

/**
 * One-click upsells: offers can be seen and accepted only by the browser that paid, and only this
 * long after the first purchase was paid. After that the saved card is not charged without the
 * buyer typing it again.
 */
export const UPSELL_WINDOW_MINUTES = 30;
/** A tip (pay-what-you-want) upsell step takes at most this many times its minimum, unless its creator set a ceiling. */
export const TIP_CEILING_MULTIPLE = 5;

/**
 * How far below zero a creator's own refunds may take their balance. A refund after the money was
 * paid out leaves a negative balance that the next payouts net (the platform advances the refund to
 * the buyer's card); without a limit, a creator could withdraw a sale's money, refund it to their
 * own card and leave the platform short. Beyond this, the creator refunds less or waits for sales
 * (or the buyer's bank decides a dispute).
 */
export const CREATOR_REFUND_OVERDRAFT_CENTS = 10_000;

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

/** Scalar's API reference bundle, built into the static assets by vite.config.ts and loaded by /docs/api. */
export const SCALAR_BUNDLE_PATH = "docs/scalar-api-reference.js";
