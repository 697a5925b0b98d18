import { useQuery } from "@tanstack/react-query";
import type { PublicContent } from "@shared/content";
import { throwIfResNotOk } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** An item's public data (checkout shows it in its order summary). */
export function usePaywallContent(id: string) {
  return useQuery<PublicContent>({
    queryKey: queryKeys.contentDetail(id),
    queryFn: async ({ signal }) => {
      const res = await fetch(`/api/content/${encodeURIComponent(id)}`, { credentials: "include", signal });
      await throwIfResNotOk(res);
      return res.json();
    },
  });
}
