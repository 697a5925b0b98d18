// The funnel offers' data: the offer waiting for a purchase (asked by the browser that paid) and a
// funnel's steps as its creator previews them. The success page reads the order on the server.
import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { fetchOffer } from "./api";

/** The purchase's next offer on the upsell page: read fresh each time (a step's outcome moves it on). */
export const useOfferState = (purchaseId: string) =>
  useQuery({
    queryKey: queryKeys.upsellOffer(purchaseId),
    queryFn: () => fetchOffer({ purchaseId }),
    retry: false,
    gcTime: 0,
  });

/** A funnel's steps as the creator previews them (nothing is charged); a step under an A/B test as `variant`. */
export const useFunnelPreview = (funnelId: string, variant: "A" | "B") =>
  useQuery({
    queryKey: [...queryKeys.funnelPreview(funnelId), variant],
    queryFn: () => api("GET /api/funnels/:id/preview", { params: { id: funnelId }, query: { variant } }),
    retry: false,
  });

/** Whether any step of the funnel is under a running A/B test: then the preview can walk either variant. */
export const useHasRunningTest = (funnelId: string) =>
  useQuery({
    queryKey: queryKeys.funnelAbTests(funnelId),
    queryFn: () => api("GET /api/funnels/:id/ab-tests", { params: { id: funnelId } }),
    retry: false,
    select: (tests) => tests.some((t) => t.status === "running"),
  });
