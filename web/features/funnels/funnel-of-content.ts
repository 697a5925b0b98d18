// Which funnel an item belongs to: the one its product attachment names; for funnels made without
// one, the spec's rule (the first funnel whose name contains the item's title).
import type { Funnel } from "@shared/funnels";

export function funnelOfContent(funnels: Funnel[], contentId: string, title: string): Funnel | undefined {
  return (
    funnels.find((f) => f.contentIds.includes(contentId)) ??
    funnels.find((f) => f.contentIds.length === 0 && title && f.name.includes(title))
  );
}
