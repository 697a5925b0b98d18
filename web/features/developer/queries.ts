// The data of /settings → Developers: API keys, webhook endpoints and their delivery logs.
import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import type { DeveloperOverview } from "@shared/developer";
import type { WebhookDeliveryPage, WebhookEndpoint } from "@shared/webhooks";
import { apiRequest } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

/** An endpoint's own API path. */
export const webhookPath = (id: string) => `/api/developer/webhooks/${encodeURIComponent(id)}`;

export const useDeveloperOverview = () => useQuery<DeveloperOverview>({ queryKey: queryKeys.developerKeys });

export const useWebhookEndpoints = () => useQuery<{ endpoints: WebhookEndpoint[] }>({ queryKey: queryKeys.webhooks });

/** An endpoint's deliveries, newest first, a page at a time; looked at again while any is in flight. */
export const useWebhookDeliveries = (endpointId: string) =>
  useInfiniteQuery({
    queryKey: queryKeys.webhookDeliveries(endpointId),
    queryFn: async ({ pageParam }) =>
      (
        await apiRequest(
          "GET",
          `${webhookPath(endpointId)}/deliveries${pageParam ? `?before=${encodeURIComponent(pageParam)}` : ""}`,
        )
      ).json() as Promise<WebhookDeliveryPage>,
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.nextBefore,
    refetchInterval: (q) =>
      q.state.data?.pages.some((p) => p.deliveries.some((d) => d.status === "pending")) ? 2000 : false,
  });
