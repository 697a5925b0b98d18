// The pricing page's words (spec §2 "Pricing page"), printed by the Worker's page
// (worker/pages/pricing.tsx) and its island (web/site/pricing.ts), and "You're on Pro" as /subscribe
// shows it too: one source (docs/pages.md). Prices and policies: shared/pricing.ts.

/** Hooks the pricing island finds in the Worker's HTML. */
export const PRICING_PART = {
  creatorCard: "creator-card",
  proCard: "pro-card",
  onPro: "on-pro",
  renewal: "renewal",
  proAction: "pro-action",
} as const;

export const ON_PRO = "You're on Pro";

export const PRICING_TEXT = {
  title: "Pricing · ApeWall",
  description: "Free to start: keep 80% of every sale, or 100% on Pro for $99/month.",
  headline: "Simple, creator-first pricing",
  lede: "Free to start. Pay only when you sell.",
  creator: "Creator",
  creatorDescription: "Everything you need to sell",
  creatorPrice: "Free",
  creatorFee: "+ 20% platform fee",
  getStarted: "Get Started Free",
  pro: "Pro",
  proDescription: "For creators selling every day",
  proPrice: "$99",
  proTerms: "/month · zero commission",
  upgrade: "Upgrade to Pro",
  manage: "Manage subscription",
  faq: "Frequently asked questions",
} as const;

export const CREATOR_FEATURES = [
  "Unlimited paywalled files, links and text",
  "Files up to 5 GB, streamed worldwide",
  "Fixed price or pay-what-you-want",
  "Upsell and downsell funnels",
  "Real-time views, conversions and earnings",
  "Monthly payouts from $25",
] as const;

export const PRO_FEATURES = ["Keep 100% of every sale", "Everything in Creator", "Cancel anytime"] as const;

const formatDate = (iso: string) =>
  new Date(iso).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });

/** "Renews on {date}." or "Pro ends on {date}." when Stripe has told us the period's end. */
export function renewalText(state: { currentPeriodEnd: string | null; cancelAtPeriodEnd: boolean }): string | null {
  if (!state.currentPeriodEnd) return null;
  return state.cancelAtPeriodEnd
    ? `Pro ends on ${formatDate(state.currentPeriodEnd)}.`
    : `Renews on ${formatDate(state.currentPeriodEnd)}.`;
}
