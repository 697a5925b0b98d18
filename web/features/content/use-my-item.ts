// One of the creator's own items, from their list (GET /api/content): the edit and "You're live" screens.
import { useQuery } from "@tanstack/react-query";
import type { CreatorContent } from "@shared/content";
import { queryKeys } from "@/lib/query-keys";

export function useMyItem(id: string) {
  const query = useQuery<CreatorContent[]>({ queryKey: queryKeys.contentList });
  return { ...query, item: query.data?.find((i) => i.id === id) };
}
