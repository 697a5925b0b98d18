// The data of /settings → Tax: the creator's choice of tax-inclusive prices and the preview.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { TaxBehavior } from "@shared/tax";
import { api, apiKey, apiQuery } from "@/lib/api";

export const useTaxSettings = () => useQuery(apiQuery("GET /api/settings/tax"));

/** Saves the choice; the settings' cache takes the answer. */
export function useSaveTaxBehavior() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (behavior: TaxBehavior) => api("PUT /api/settings/tax", { body: { behavior } }),
    onSuccess: (next) => queryClient.setQueryData(apiKey("GET /api/settings/tax"), next),
  });
}

/** The preview for a price in cents (null: no valid price typed), keeping the last table while the next loads. */
export const useTaxPreview = (priceCents: number | null, behavior: TaxBehavior) =>
  useQuery({
    ...apiQuery("GET /api/settings/tax/preview", { query: { priceCents: priceCents ?? 0, behavior } }),
    enabled: priceCents !== null,
    placeholderData: keepPreviousData,
  });
