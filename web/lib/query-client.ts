import { QueryClient } from "@tanstack/react-query";

// Spec §7: no retries, no refetch on focus or interval, data never goes stale by itself, 401 throws.
// No default queryFn: every query names its own, `apiQuery(route)` for the API's JSON routes, so its
// answer type comes from the shared contract (shared/api.ts) and cannot be written by hand.
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      refetchInterval: false,
      refetchOnWindowFocus: false,
      staleTime: Infinity,
      retry: false,
    },
    mutations: { retry: false },
  },
});
