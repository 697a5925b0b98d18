// Query keys, built in one place. Joined with "/" they are the GET path (spec §7), and their
// prefixes let a mutation invalidate a whole resource.
export const queryKeys = {
  authUser: ["/api/auth/user"] as const,
  authProviders: ["/api/auth/providers"] as const,
  adminPayoutSummary: ["/api/admin/payout-summary"] as const,
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
};
