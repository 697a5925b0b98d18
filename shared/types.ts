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
