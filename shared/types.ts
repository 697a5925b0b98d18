// Response shapes the SPA reads (spec §3). Money leaves the API in dollars, as the spec's screens use it.
import type { CreatorLicense } from "./licenses";
export type EarningsStats = {
  availableBalance: number;
  totalEarnings: number;
  pendingPayouts: number;
  contentCount: number;
  totalUnlocks: number;
  /** Sales still inside the hold (shared/constants SALE_HOLD_DAYS). */
  onHold: number;
  /** Held back from available for money on its way out: refunds at Stripe, open inquiries. */
  reserved: number;
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
  /** Refunded so far (Stripe's succeeded refunds, as booked in the ledger). */
  refundedAmount: number;
  /** A refund the creator asked for that Stripe says is still pending. */
  refundPending: boolean;
  /** The creator's latest refund that Stripe answered as failed or canceled: money unchanged. */
  refundFailed: boolean;
  /** What a new refund may take now (0: nothing, e.g. refunded in full or disputed). */
  refundable: number;
  /** The discount code the buyer used, if any. */
  discountCode: string | null;
  /** Bought as another item's order bump (the same payment as that sale). */
  orderBump: boolean;
  /** The sale's license key, when its item issues them (GET /api/creator/sales). */
  license?: CreatorLicense | null;
};

/** POST /api/sales/{purchaseId}/refund: the request and Stripe's word about it so far. */
export type RefundRequestResult = {
  id: string;
  amount: number;
  status: "requested" | "pending" | "requires_action" | "succeeded" | "failed" | "canceled";
  sale: Sale;
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
  /** Taken by the creator's "Withdraw now", being sent. */
  | { kind: "in_withdrawal"; payoutId: string }
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
  /**
   * What refunds took back from the creator's share (negative) and when the last one was booked;
   * `afterPayout` when the share had already gone out in a payout, so it came off the balance (which
   * may then be negative until later sales cover it).
   */
  refund: { amount: number; at: string; afterPayout: boolean } | null;
};
/**
 * What happened to the creator's money besides sales, on the same timeline: each payout or
 * withdrawal (with its status; `notes` says why one failed) and each month the run did not pay them,
 * with why and what carries over. `at`: when it happened (prepared, or skipped).
 */
export type TimelineEvent =
  | {
      kind: "payout";
      id: string;
      payoutKind: "monthly" | "withdrawal";
      month: string;
      amount: number;
      status: PayoutStatus;
      at: string;
      paidAt: string | null;
      notes: string | null;
    }
  | { kind: "skip"; id: string; month: string; reason: PayoutSkipReason; amount: number; at: string };
export type PayoutStatus = "pending" | "processing" | "paid" | "failed";
export type PayoutSkipReason = "below_minimum" | "not_set_up" | "held";

/** `events`: those between this page's first and last sale (all that remain on the last page). */
export type TimelinePage = { items: TimelineItem[]; events: TimelineEvent[]; nextCursor: string | null };

/** The next payout: its date and amount, or why there is none. */
export type NextPayout = {
  date: string;
  amount: number;
  reason: null | "not_set_up" | "bank_restricted" | "below_minimum" | "on_hold";
};

export type PayoutHistoryItem = {
  id: string;
  /** 'withdrawal': the creator's "Withdraw now"; 'monthly': the run on the 1st. */
  kind: "monthly" | "withdrawal";
  amount: number;
  payoutMethod: string;
  payoutEmail: string | null;
  notes: string | null;
  createdAt: string;
  status: PayoutStatus;
  paidAt: string | null;
};

/** Why "Withdraw now" cannot be pressed: no bank connected, Stripe cannot transfer to it yet, payouts held, below the minimum, a withdrawal already open. */
export type WithdrawBlock = "no_bank" | "bank_restricted" | "held" | "below_minimum" | "open";
/** GET /api/payout/withdraw: what "Withdraw now" would take, why it cannot (null: it can), and the latest withdrawal. */
export type WithdrawStatus = { available: number; blockedBy: WithdrawBlock | null; latest: PayoutHistoryItem | null };

/** GET /api/analytics/stats?days=7|30|90[&contentId=]: one creator's funnel, by day and by item. */
/** `offers`: post-purchase funnel offers shown to its buyers; `upsells`: offers accepted and paid. */
export type AnalyticsDay = {
  date: string;
  views: number;
  checkouts: number;
  sales: number;
  revenue: number;
  offers: number;
  upsells: number;
};
export type AnalyticsItem = {
  contentId: string;
  title: string;
  views: number;
  checkouts: number;
  sales: number;
  conversion: number;
  revenue: number;
  offers: number;
  upsells: number;
  /** The order bump: paywall sales of this item whose checkout offered it, how many of them took it, and that as a percent. */
  bumpOffered: number;
  bumpTaken: number;
  bumpTakeRate: number;
};
export type AnalyticsStats = {
  days: number;
  from: string;
  totals: {
    views: number;
    checkouts: number;
    sales: number;
    conversion: number;
    revenue: number;
    offers: number;
    upsells: number;
  };
  byDay: AnalyticsDay[];
  items: AnalyticsItem[];
  /** Sales paid with a discount code in the period (refunded ones left out): gross revenue and the discount given. */
  codes: { code: string; sales: number; revenue: number; discountGiven: number }[];
  /** Sales paid through a checkout reminder's link in the period (gross). */
  recovered: { sales: number; revenue: number };
};
