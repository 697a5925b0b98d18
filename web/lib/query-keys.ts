// Query keys, built in one place. Joined with "/" they are the GET path (spec §7), and their
// prefixes let a mutation invalidate a whole resource.
const funnels = ["/api/funnels"] as const;
const webhooks = ["/api/developer/webhooks"] as const;

export const queryKeys = {
  /** The sign-in probe (GET /api/auth/me): the current user or null. */
  authUser: ["/api/auth/me"] as const,
  authProviders: ["/api/auth/providers"] as const,
  adminPayoutSummary: ["/api/admin/payout-summary"] as const,
  adminCreatorPayouts: (p: { month: number; year: number }) => ["/api/admin/creator-payouts", p] as const,
  adminPayoutRun: (p: { month: number; year: number }) => ["/api/admin/payout-run", p] as const,
  adminMonthlyReports: ["/api/admin/monthly-reports"] as const,
  adminPayoutsWaiting: ["/api/admin/payouts-waiting"] as const,
  adminFeedback: (f: { type: string; priority: string }) => ["/api/admin/feedback", f] as const,
  analytics: (days: number) => ["/api/analytics/stats", { days }] as const,
  earningsStats: ["/api/earnings/stats"] as const,
  creatorSales: ["/api/creator/sales"] as const,
  moneyTimeline: ["/api/earnings/timeline"] as const,
  nextPayout: ["/api/payout/next"] as const,
  payoutHistory: ["/api/payout/history"] as const,
  withdrawStatus: ["/api/payout/withdraw"] as const,
  connectStatus: ["/api/connect/account-status"] as const,
  subscription: ["/api/subscription"] as const,
  contentList: ["/api/content"] as const,
  profile: ["/api/profile"] as const,
  contentDetail: (id: string) => ["/api/content", id] as const,
  discounts: ["/api/discounts"] as const,
  developerKeys: ["/api/developer/keys"] as const,
  /** Webhook endpoints; an endpoint's deliveries sit under it. */
  webhooks,
  webhookDeliveries: (endpointId: string) => [...webhooks, endpointId, "deliveries"] as const,
  funnels,
  funnelSteps: (funnelId: string) => [...funnels, funnelId, "steps"] as const,
  funnelAbTests: (funnelId: string) => [...funnels, funnelId, "ab-tests"] as const,
  funnelForItem: (contentId: string) => [...funnels, "for-item", contentId] as const,
  funnelPreview: (funnelId: string) => [...funnels, funnelId, "preview"] as const,
  upsellOffer: (purchaseId: string) => ["/api/upsell/offer", purchaseId] as const,
};
