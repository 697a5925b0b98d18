// The paywall page's contract between the HTML the Worker renders and the small script that brings
// it to life: the pay-what-you-want rule (spec §5 'Paywall tip') and the names of the page's parts.
import type { PublicContent } from "./content";

/** The amount to charge in dollars, or the spec's message when it is below the minimum. */
export function chosenAmount(
  item: Pick<PublicContent, "pricingModel" | "price" | "minimumPrice">,
  input: string,
): { amount: number } | { error: { title: string; description: string } } {
  if (item.pricingModel !== "pay_what_you_want") return { amount: item.price };
  const min = item.minimumPrice ?? item.price;
  if (!input.trim()) return { amount: min };
  const amount = Number(input);
  if (!Number.isFinite(amount) || amount < min)
    return { error: { title: "Amount too low", description: `Minimum amount is $${min.toFixed(2)}` } };
  return { amount: Math.round(amount * 100) / 100 };
}

/** The id of the page's item data: JSON in a `<script type="application/json">`, read by the script. */
export const PAYWALL_DATA_ID = "paywall-data";
/** `/p/{id}?code=…` with a code that applies: `{ code, price }` as JSON, read by the script to send the code on. */
export const PAYWALL_DISCOUNT_ID = "paywall-discount";

/**
 * `data-part` names in the server-rendered paywall. The HTML is the same for every visitor (it is
 * cached); the script shows the part that fits this visitor: the form, "checking", "processing", or
 * the owner's controls.
 */
export const PAYWALL_PART = {
  root: "paywall",
  badgeLocked: "badge-locked",
  badgeUnlocked: "badge-unlocked",
  buy: "buy",
  form: "unlock-form",
  tip: "tip",
  unlock: "unlock",
  access: "access",
  checking: "checking",
  processing: "processing",
  owned: "owned",
  lostAccess: "lost-access",
  previewBanner: "preview-banner",
  previewBar: "preview-bar",
  toasts: "toasts",
} as const;

export const PAYWALL_TEXT = {
  checking: "Checking your access…",
  processing: "Your payment is still processing. Your access appears here as soon as it is confirmed.",
  paymentError: { title: "Payment Error", description: "Failed to start payment process. Please try again." },
  ownerLoadError: { title: "Could not show your access", description: "Please reload the page." },
  unpublished: "This item is no longer for sale.",
  upsellOnly: "This item is offered only after a purchase.",
  notForSaleOwners: "Bought it already? Your access still works.",
  noScript: "Turn on JavaScript to pay by card: the card form runs in your browser.",
} as const;

/** The answer to "Lost your access?", the same for any address. */
export const RECOVER_ACCESS_MESSAGE =
  "If that email address bought anything here, we've sent it an email with every access link.";

/** "Lost your access?" (the paywall and the success page): what the form answers besides the sent message. */
export const LOST_ACCESS_TEXT = {
  emptyEmail: "Please enter the email address you paid with.",
  tooMany: "Too many requests. Please wait a minute and try again.",
  invalidEmail: "Please enter a valid email address.",
  failed: "Something went wrong. Please try again.",
} as const;

/** The form's message for a failed call, from its "{status}: {message}" error. */
export const lostAccessProblem = (message: string) =>
  message.startsWith("429")
    ? LOST_ACCESS_TEXT.tooMany
    : message.startsWith("400")
      ? LOST_ACCESS_TEXT.invalidEmail
      : LOST_ACCESS_TEXT.failed;

/** The order bump's checkbox, on the one-page checkout and the SPA checkout alike. */
export const bumpLabel = (title: string, priceCents: number) => `Add ${title} for $${(priceCents / 100).toFixed(2)}`;

/** Beside both checkouts' email field: what the address is used for if the buyer leaves (with a box to say no). */
export const REMINDER_HINT = "If you leave without paying, we may email you one reminder.";
export const NO_REMINDER_LABEL = "Don't send me a reminder";

// The paywall's checkout bundle imports these: kept out of shared/payments.ts, whose zod schemas
// would bring zod (and its eval probe, refused by the paywall's CSP) into it.
/** Why a checkout's terms could not change (409). */
export const CHECKOUT_TERMS_MESSAGES = {
  closed: "This payment is already under way, so its total can no longer change.",
  changed: "This checkout was changed at the same time somewhere else. Please try again.",
  stripeDown: "The total could not be updated just now. Please try again.",
  // A failed change whose terms on screen could not be sent again either: paying stays off.
  stuck: "We couldn't update your order. Reload the page to continue.",
} as const;
