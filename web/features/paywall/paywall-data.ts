import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { PublicContent } from "@shared/content";
import type { ContentAccess } from "@shared/payments";
import { rememberedAccess } from "@/lib/access-tokens";
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

/**
 * Whether this browser owns the item: by the cookie of the browser that paid, or by an access
 * token (from the URL, or remembered from an earlier visit). `poll` keeps asking while a payment
 * that just returned is still processing (every 2 s, for at most a minute).
 */
export function useContentAccess(id: string, tokenFromUrl: string | undefined, enabled: boolean, poll: boolean) {
  const token = tokenFromUrl ?? rememberedAccess(id);
  const [pollStarted] = useState(() => Date.now());
  const query = useQuery<ContentAccess>({
    queryKey: ["/api/content", id, "access", token ?? ""],
    enabled,
    refetchInterval: (q) => (poll && !q.state.data?.owned && Date.now() - pollStarted < 60_000 ? 2000 : false),
    queryFn: async ({ signal }) => {
      const q = token ? `?access=${encodeURIComponent(token)}` : "";
      const res = await fetch(`/api/content/${encodeURIComponent(id)}/access${q}`, { credentials: "include", signal });
      await throwIfResNotOk(res);
      return res.json();
    },
  });
  return Object.assign(query, { token });
}
