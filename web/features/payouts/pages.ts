// Newest-first pages through a cursor (spec §4: the sales tab pages through thousands of sales).
import { useInfiniteQuery } from "@tanstack/react-query";
import { pageCursor } from "@shared/earnings";
import type { Sale, TimelinePage } from "@shared/earnings";
import { apiRequest } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const PAGE_SIZE = 50;

const withCursor = (path: string, cursor: string | null) =>
  `${path}?limit=${PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;

export function useSalesPages() {
  return useInfiniteQuery({
    queryKey: [...queryKeys.creatorSales, "pages"],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) =>
      (await apiRequest("GET", withCursor(queryKeys.creatorSales[0], pageParam))).json() as Promise<Sale[]>,
    getNextPageParam: (last) => {
      const tail = last[last.length - 1];
      return last.length === PAGE_SIZE && tail ? pageCursor(tail.createdAt, tail.id) : undefined;
    },
  });
}

export function useTimelinePages() {
  return useInfiniteQuery({
    queryKey: [...queryKeys.moneyTimeline, "pages"],
    initialPageParam: null as string | null,
    queryFn: async ({ pageParam }) =>
      (await apiRequest("GET", withCursor(queryKeys.moneyTimeline[0], pageParam))).json() as Promise<TimelinePage>,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
