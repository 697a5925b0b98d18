import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** One creator's analytics for the last `days` days (7, 30 or 90). The dashboard's rows share the 30-day one. */
export function useAnalytics(days: number) {
  return useQuery({
    queryKey: queryKeys.analytics(days),
    queryFn: () => api("GET /api/analytics/stats", { query: { days } }),
  });
}
