// Newest-first pages through a cursor (spec §4: the sales tab pages through thousands of sales).
import { useInfiniteQuery } from "@tanstack/react-query";
import { pageCursor } from "@shared/earnings";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const PAGE_SIZE = 50;

const withCursor = (cursor: string | null) => ({ query: { limit: PAGE_SIZE, cursor } });

export function useSalesPages() {
  return useInfiniteQuery({
    queryKey: [...queryKeys.creatorSales, "pages"],
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => api("GET /api/creator/sales", withCursor(pageParam)),
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
    queryFn: ({ pageParam }) => api("GET /api/earnings/timeline", withCursor(pageParam)),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}
