import { QueryClient } from "@tanstack/react-query";
import { getQueryFn } from "./api";

// Spec §7: no retries, no refetch on focus or interval, data never goes stale by itself, 401 throws.
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      queryFn: getQueryFn({ on401: "throw" }),
      refetchInterval: false,
      refetchOnWindowFocus: false,
      staleTime: Infinity,
      retry: false,
    },
    mutations: { retry: false },
  },
});
