import { useQuery } from "@tanstack/react-query";
import type { PublicContent } from "@shared/content";
import { throwIfResNotOk } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

declare global {
  interface Window {
    __PAYWALL__?: PublicContent;
  }
}

/** The item's public data: inline in the page when the Worker served /p/{id}, else fetched. */
export function usePaywallContent(id: string, preview: boolean) {
  const inline = typeof window !== "undefined" && window.__PAYWALL__?.id === id ? window.__PAYWALL__ : undefined;
  return useQuery<PublicContent>({
    queryKey: queryKeys.contentDetail(id),
    initialData: inline,
    queryFn: async ({ signal }) => {
      const res = await fetch(`/api/content/${encodeURIComponent(id)}${preview ? "?preview=1" : ""}`, { credentials: "include", signal });
      await throwIfResNotOk(res);
      return res.json();
    },
  });
}
