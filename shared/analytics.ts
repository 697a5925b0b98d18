// Analytics: GET /api/analytics/stats?days=7|30|90[&contentId=], one creator's funnel by day and by
// item, the query it takes and the answer the /analytics screen reads. Money in dollars.
import { z } from "zod";
import { dollars } from "./answers";

export const ANALYTICS_RANGES = [7, 30, 90] as const;
export const analyticsQuerySchema = z.object({
  days: z.coerce
    .number()
    .refine((d) => (ANALYTICS_RANGES as readonly number[]).includes(d), "days must be 7, 30 or 90")
    .default(30),
  contentId: z
    .string()
    .regex(/^[A-Za-z0-9]{1,32}$/, "contentId is malformed")
    .optional(),
});

/**
 * `revenue`: the creator's share as the ledger books it, net of refunds, disputes and fee adjustments
 * on the day each was booked (the rows Total Earnings sums); `offers`: post-purchase funnel offers
 * shown to its buyers; `upsells`: offers accepted and paid.
 */
const counts = {
  views: z.number().int(),
  checkouts: z.number().int(),
  sales: z.number().int(),
  revenue: dollars,
  offers: z.number().int(),
  upsells: z.number().int(),
};
const analyticsDaySchema = z.object({ date: z.string(), ...counts });
export type AnalyticsDay = z.infer<typeof analyticsDaySchema>;
const analyticsItemSchema = z.object({
  contentId: z.string(),
  title: z.string(),
  ...counts,
  conversion: z.number(),
  /**
   * The item's own funnel, so its figures agree: `paidCheckouts` of its `checkouts` (browsers that
   * started one, per day) paid, never more than them; `bumpSales` and `upsellSales`, its sales as
   * another item's order bump or as a funnel step, which had no checkout of their own (all three in `sales`).
   */
  paidCheckouts: z.number().int(),
  bumpSales: z.number().int(),
  upsellSales: z.number().int(),
  /** The order bump: paywall sales of this item whose checkout offered it, how many of them took it, and that as a percent. */
  bumpOffered: z.number().int(),
  bumpTaken: z.number().int(),
  bumpTakeRate: z.number(),
});
export type AnalyticsItem = z.infer<typeof analyticsItemSchema>;

export const analyticsStatsSchema = z.object({
  days: z.number().int(),
  from: z.string(),
  totals: z.object({ ...counts, conversion: z.number() }),
  byDay: z.array(analyticsDaySchema),
  items: z.array(analyticsItemSchema),
  /** Sales paid with a discount code in the period (refunded ones left out): gross revenue and the discount given. */
  codes: z.array(z.object({ code: z.string(), sales: z.number().int(), revenue: dollars, discountGiven: dollars })),
  /** Sales paid through a checkout reminder's link in the period (gross). */
  recovered: z.object({ sales: z.number().int(), revenue: dollars }),
});
export type AnalyticsStats = z.infer<typeof analyticsStatsSchema>;
