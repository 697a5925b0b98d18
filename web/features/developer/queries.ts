// The data of /settings → Developers: API keys, webhook endpoints and their delivery logs.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { api, apiQuery } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** An endpoint's own API path. */
export const webhookPath = (id: string) => `/api/developer/webhooks/${encodeURIComponent(id)}`;

export const useDeveloperOverview = () => useQuery(apiQuery("GET /api/developer/keys"));

export const useWebhookEndpoints = () => useQuery(apiQuery("GET /api/developer/webhooks"));

/** An endpoint's deliveries, newest first, a page at a time; looked at again while any is in flight. */
export const useWebhookDeliveries = (endpointId: string) =>
  useInfiniteQuery({
    queryKey: queryKeys.webhookDeliveries(endpointId),
    queryFn: ({ pageParam }) =>
      api("GET /api/developer/webhooks/:id/deliveries", { params: { id: endpointId }, query: { before: pageParam } }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextBefore,
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.deliveries.some((d) => d.status === "pending")) ? 2000 : false,
  });
