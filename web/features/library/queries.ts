// The library's reads: who it is signed in as (null when not), its purchases, and one purchase opened.
// Any of them answering 401 means the session ended (it expired, or signed out in another tab): the
// page goes back to the sign-in form and says so (docs/library.md).
import { type QueryClient, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api";

export const LIBRARY_KEY = ["/api/library"] as const;
const SESSION_KEY = [...LIBRARY_KEY, "session"] as const;
/** Whether the session this page had ended under it (kept outside LIBRARY_KEY: invalidating that keeps it). */
const ENDED_KEY = ["library-session-ended"] as const;

const is401 = (err: unknown) => err instanceof Error && err.message.startsWith("401: ");

/** The session is gone: back to the sign-in form, with the note; nothing of the old library stays cached. */
function sessionEnded(client: QueryClient) {
  client.setQueryData(ENDED_KEY, true);
  client.setQueryData(SESSION_KEY, null);
  queueMicrotask(() =>
    client.removeQueries({ queryKey: LIBRARY_KEY, predicate: (q) => q.queryKey[1] !== SESSION_KEY[1] }),
  );
}

/** A library read: a 401 ends the session on the page (and still fails the read). */
function read<T>(client: QueryClient, call: () => Promise<T>): Promise<T> {
  return call().catch((err: unknown) => {
    if (is401(err)) sessionEnded(client);
    throw err;
  });
}

/** Signed in (again), or signed out on purpose: no "session ended" note. */
export const forgetSessionEnded = (client: QueryClient) => client.setQueryData(ENDED_KEY, false);

/** Whether to say "Your library session ended. Sign in again." over the sign-in form. */
export function useSessionEnded(): boolean {
  return (
    useQuery({ queryKey: ENDED_KEY, queryFn: () => false, initialData: false, staleTime: Number.POSITIVE_INFINITY })
      .data ?? false
  );
}

/** The library's email, or null when this browser is not signed in to it. */
export function useLibrarySession() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async ({ signal, client }) => {
      try {
        return await api("GET /api/library/session", { signal });
      } catch (err) {
        if (!is401(err)) throw err;
        // Signed in a moment ago (this page showed the library), not now: it ended.
        if (client.getQueryData<{ email: string } | null>(SESSION_KEY)) client.setQueryData(ENDED_KEY, true);
        return null;
      }
    },
    retry: false,
  });
}

/** The purchases, a page (50) at a time, newest first: `fetchNextPage` while `hasNextPage`. */
export function useLibraryPurchases() {
  return useInfiniteQuery({
    queryKey: [...LIBRARY_KEY, "list"],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam, signal, client }) =>
      read(client, () => api("GET /api/library/purchases", { query: { cursor: pageParam }, signal })),
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
}

export function useLibraryAccess(id: string, enabled: boolean) {
  return useQuery({
    queryKey: [...LIBRARY_KEY, "purchases", id],
    queryFn: ({ signal, client }) =>
      read(client, () => api("GET /api/library/purchases/:id", { params: { id }, signal })),
    enabled,
    retry: false,
  });
}

export function useLibraryReceipt(id: string, enabled: boolean) {
  return useQuery({
    queryKey: [...LIBRARY_KEY, "purchases", id, "receipt"],
    queryFn: ({ signal, client }) =>
      read(client, () => api("GET /api/library/purchases/:id/receipt", { params: { id }, signal })),
    enabled,
  });
}
