import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** An item's public data (checkout shows it in its order summary). */
export function usePaywallContent(id: string) {
  return useQuery({
    queryKey: queryKeys.contentDetail(id),
    queryFn: ({ signal }) => api("GET /api/content/:id", { params: { id }, signal }),
  });
}
