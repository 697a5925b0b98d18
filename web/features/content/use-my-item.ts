// One of the creator's own items, from their list (GET /api/content): the edit and "You're live" screens.
import { useQuery } from "@tanstack/react-query";
import { apiQuery } from "@/lib/api";

export function useMyItem(id: string) {
  const query = useQuery(apiQuery("GET /api/content"));
  return { ...query, item: query.data?.find((i) => i.id === id) };
}
