// The funnel screens' data: the creator's funnels, a funnel's steps and A/B tests, the items a
// funnel can sell, and the funnel 'Edit funnel' opens for an item. A 401 throws (the screens redirect).
import { useQuery } from "@tanstack/react-query";
import type { CreatorContent } from "@shared/content";
import type { AbTest } from "@shared/ab-tests";
import type { Funnel, FunnelStep } from "@shared/funnels";
import { getQueryFn } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { funnelForItem } from "./api";

export const useFunnels = (options: { enabled?: boolean } = {}) =>
  useQuery<Funnel[]>({ queryKey: queryKeys.funnels, queryFn: getQueryFn({ on401: "throw" }), ...options });

export const useFunnelSteps = (funnelId: string, options: { enabled?: boolean } = {}) =>
  useQuery<FunnelStep[]>({
    queryKey: queryKeys.funnelSteps(funnelId),
    queryFn: getQueryFn({ on401: "throw" }),
    ...options,
  });

export const useAbTests = (funnelId: string) =>
  useQuery<AbTest[]>({ queryKey: queryKeys.funnelAbTests(funnelId), queryFn: getQueryFn({ on401: "throw" }) });

/** The creator's items (the dashboard's list), to sell with a funnel or offer in a step. */
export const useMyItems = () =>
  useQuery<CreatorContent[]>({ queryKey: queryKeys.contentList, queryFn: getQueryFn({ on401: "throw" }) });

/** The item's funnel, made for it (in Test) if it has none; asked once per page (asking twice is one funnel). */
export const useFunnelForItem = (contentId: string, enabled: boolean) =>
  useQuery({
    queryKey: queryKeys.funnelForItem(contentId),
    queryFn: () => funnelForItem(contentId),
    retry: false,
    staleTime: Infinity,
    enabled,
  });
