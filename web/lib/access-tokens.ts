// Remembers, in this browser, the permanent access token of each item it reached through a
// purchase or an access link, so the paywall opens unlocked on the next visit.
const KEY = (contentId: string) => `aw_access:${contentId}`;
// An owner marker without a token: the browser that paid is known to the server by its cookie.
const OWNED = "owned";

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage;
  } catch {
    return null;
  }
}

/** The access token remembered for an item, if any. */
export function rememberedAccess(contentId: string): string | undefined {
  const v = storage()?.getItem(KEY(contentId));
  return v && v !== OWNED ? v : undefined;
}

/** Whether this browser has reason to think it owns the item (so the paywall waits before offering 'Unlock'). */
export function probablyOwned(contentId: string): boolean {
  return !!storage()?.getItem(KEY(contentId));
}

export function rememberAccess(contentId: string, accessUrlOrToken?: string): void {
  let token = accessUrlOrToken;
  if (token?.includes("://")) token = new URL(token).searchParams.get("access") ?? undefined;
  storage()?.setItem(KEY(contentId), token || OWNED);
}
