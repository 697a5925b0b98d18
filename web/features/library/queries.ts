// The library's reads: who it is signed in as (null when not), its purchases, and one purchase opened.
import { useQuery } from "@tanstack/react-query";
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

export function useLibraryPurchases(enabled: boolean) {
  return useQuery({ ...apiQuery("GET /api/library/purchases"), queryKey: [...LIBRARY_KEY, "purchases"], enabled });
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
