// The library's reads: who it is signed in as (null when not), its purchases, and one purchase opened.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { api, apiQuery, nullOn401 } from "@/lib/api";

export const LIBRARY_KEY = ["/api/library"] as const;

/** The library's email, or null when this browser is not signed in to it. */
export function useLibrarySession() {
  return useQuery({
    queryKey: [...LIBRARY_KEY, "session"],
    queryFn: ({ signal }) => api("GET /api/library/session", { signal }).catch(nullOn401),
    retry: false,
  });
}

/** The purchases, a page (50) at a time, newest first: `fetchNextPage` while `hasNextPage`. */
export function useLibraryPurchases() {
  return useInfiniteQuery({
    queryKey: [...LIBRARY_KEY, "list"],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal }) => api("GET /api/library/purchases", { query: { cursor: pageParam }, signal }),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useLibraryAccess(id: string, enabled: boolean) {
  return useQuery({
    ...apiQuery("GET /api/library/purchases/:id", { params: { id } }),
    queryKey: [...LIBRARY_KEY, "purchases", id],
    enabled,
    retry: false,
  });
}

export function useLibraryReceipt(id: string, enabled: boolean) {
  return useQuery({
    ...apiQuery("GET /api/library/purchases/:id/receipt", { params: { id } }),
    queryKey: [...LIBRARY_KEY, "purchases", id, "receipt"],
    enabled,
  });
}
