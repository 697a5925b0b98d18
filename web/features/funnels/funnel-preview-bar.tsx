// On the paywall's creator preview (?preview=1): a way on to the funnel buyers see after paying,
// walked in test mode. Shows nothing to anyone but the item's creator.
import { useQuery } from "@tanstack/react-query";
import { FlaskConical } from "lucide-react";
import { api, apiKey, nullOn401 } from "@/lib/api";
import { funnelOfContent } from "./funnel-of-content";

export function FunnelPreviewBar({ contentId, title }: { contentId: string; title: string }) {
  // Anyone may open the preview: signed out (401), there is simply no funnel to show.
  const funnels = useQuery({
    queryKey: apiKey("GET /api/funnels"),
    queryFn: ({ signal }) => api("GET /api/funnels", { signal }).catch(nullOn401),
    retry: false,
  });
  const funnel = funnels.data ? funnelOfContent(funnels.data, contentId, title) : undefined;
  if (!funnel) return null;
  return (
    <div className="mx-auto mt-4 max-w-4xl px-4">
      <a
        href={`/checkout/upsell?preview=${funnel.id}`}
        className="flex items-center gap-2 rounded-lg border border-amber-300 bg-amber-50 px-4 py-2 text-sm font-medium text-amber-900 hover:bg-amber-100"
        data-testid="funnel-preview-link"
      >
        <FlaskConical className="size-4" /> After purchase, buyers see the "{funnel.name}" funnel
        {funnel.testMode ? " (Test mode — shown only to you)" : ""}. Walk through its steps: Test mode — no charge →
      </a>
    </div>
  );
}
