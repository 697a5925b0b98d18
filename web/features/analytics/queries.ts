import { useQuery } from "@tanstack/react-query";
import type { AnalyticsStats } from "@shared/analytics";
import { apiRequest } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** One creator's analytics for the last `days` days (7, 30 or 90). The dashboard's rows share the 30-day one. */
export function useAnalytics(days: number) {
  return useQuery<AnalyticsStats>({
    queryKey: queryKeys.analytics(days),
    queryFn: async () =>
      (await apiRequest("GET", `/api/analytics/stats?days=${days}`)).json() as Promise<AnalyticsStats>,
  });
}
