// Loaded by the paywall's script only on the creator's preview (?preview=1): the bar that leads on to
// the funnel buyers see after paying. It shows nothing to anyone but the item's creator.
import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { FunnelPreviewBar } from "@/features/funnels/funnel-preview-bar";
import { queryClient } from "@/lib/query-client";

export function mountFunnelPreview(el: HTMLElement, contentId: string, title: string) {
  createRoot(el).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <FunnelPreviewBar contentId={contentId} title={title} />
      </QueryClientProvider>
    </StrictMode>,
  );
}
