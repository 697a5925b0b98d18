// The funnel screens' data: the creator's funnels, a funnel's steps and A/B tests, the items a
// funnel can sell, and the funnel 'Edit funnel' opens for an item. A 401 throws (the screens redirect).
import { useQuery } from "@tanstack/react-query";
import { apiQuery } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { funnelForItem } from "./api";

export const useFunnels = (options: { enabled?: boolean } = {}) =>
  useQuery({ ...apiQuery("GET /api/funnels"), ...options });

export const useFunnelSteps = (funnelId: string, options: { enabled?: boolean } = {}) =>
  useQuery({ ...apiQuery("GET /api/funnels/:id/steps", { params: { id: funnelId } }), ...options });

export const useAbTests = (funnelId: string) =>
  useQuery(apiQuery("GET /api/funnels/:id/ab-tests", { params: { id: funnelId } }));

/** The creator's items (the dashboard's list), to sell with a funnel or offer in a step. */
export const useMyItems = () => useQuery(apiQuery("GET /api/content"));

/** The item's funnel, made for it (in Test) if it has none; asked once per page (asking twice is one funnel). */
export const useFunnelForItem = (contentId: string, enabled: boolean) =>
  useQuery({
    queryKey: queryKeys.funnelForItem(contentId),
    queryFn: () => funnelForItem(contentId),
    retry: false,
    staleTime: Infinity,
    enabled,
  });
