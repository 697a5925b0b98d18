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
export const PAYOUT_METHODS = ["paypal", "wise", "bank", "zelle", "venmo", "cashapp"] as const;
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
