// Response shapes the SPA reads (spec §3). Money leaves the API in dollars, as the spec's screens use it.
export type EarningsStats = {
  availableBalance: number;
  totalEarnings: number;
  pendingPayouts: number;
  contentCount: number;
  totalUnlocks: number;
  /** Sales still inside the hold (shared/constants SALE_HOLD_DAYS). */
  onHold: number;
  paidOut: number;
  /** Reversals beyond what was available, to be paid off by future sales. */
  carriedNegative: number;
  /** When the oldest sale on hold becomes available. */
  nextReleaseAt: string | null;
};

export type Sale = {
  id: string;
  buyerEmail: string | null;
  productName: string;
  amount: number;
  createdAt: string | null;
  status: string;
};

export type AdminPayoutSummary = {
  totalRevenue: number;
  platformCommission: number;
  totalPayouts: number;
  creatorCount: number;
  pendingPayouts: number;
};

/** A sale's creator share and where that money stands (the money timeline on /settings). */
export type MoneyState =
  | { kind: "on_hold"; until: string }
  | { kind: "available" }
  /** `month`: the period the payout is for, e.g. "October 2026", not the month it runs in. */
  | { kind: "in_payout"; payoutId: string; month: string }
  | { kind: "paid"; payoutId: string; paidAt: string }
  | { kind: "reversed"; reason: "refund" | "dispute" };

export type TimelineItem = {
  purchaseId: string;
  productName: string;
  amount: number;
  creatorShare: number;
  createdAt: string | null;
  state: MoneyState;
  /** The platform fee re-booked on this sale after the fact (a Pro invoice refunded or charged back): negative, with why. */
  feeAdjustment: { amount: number; reason: string } | null;
};
export type TimelinePage = { items: TimelineItem[]; nextCursor: string | null };

/** The next payout: its date and amount, or why there is none. */
export type NextPayout = { date: string; amount: number; reason: null | "not_set_up" | "bank_restricted" | "below_minimum" | "on_hold" };

export type PayoutHistoryItem = {
  id: string;
  amount: number;
  payoutMethod: string;
  payoutEmail: string | null;
  notes: string | null;
  createdAt: string;
  status: "pending" | "processing" | "paid" | "failed";
  paidAt: string | null;
};

/** GET /api/analytics/stats?days=7|30|90[&contentId=]: one creator's funnel, by day and by item. */
/** `offers`: post-purchase funnel offers shown to its buyers; `upsells`: offers accepted and paid. */
export type AnalyticsDay = { date: string; views: number; checkouts: number; sales: number; revenue: number; offers: number; upsells: number };
export type AnalyticsItem = { contentId: string; title: string; views: number; checkouts: number; sales: number; conversion: number; revenue: number; offers: number; upsells: number };
export type AnalyticsStats = {
  days: number;
  from: string;
  totals: { views: number; checkouts: number; sales: number; conversion: number; revenue: number; offers: number; upsells: number };
  byDay: AnalyticsDay[];
  items: AnalyticsItem[];
};
