// The paywall page's built shell (paywall-shell.html, worker/lib/shell-template.ts) and the caches of
// rendered pages, one key per item, deploy and build of the page's assets: this isolate's memory in
// front of the data center's edge cache (the Cache API).
import type { Bindings as EnvBindings } from "./env";
import { shellTemplate, type Template } from "./shell-template";

export type { Template };

type Bindings = Pick<EnvBindings, "ASSETS" | "CF_VERSION_METADATA">;

/**
 * How long a data center (and an isolate) keeps a page. A delete purges the data center that served
 * it at once (`cache.delete` acts on one data center); the others drop the page within this time. What a
 * stale page could show is only public: buying a deleted item is refused by the checkout call.
 */
const PAYWALL_CACHE_SECONDS = 60;
/**
 * How long a 404 for an id that was never there is remembered (asked of the primary, which has every
 * item): random ids then cost one database read per isolate and data center each half minute, not
 * one each. Ids are made by the server, so no real item can be asked for before it exists.
 */
const UNKNOWN_ID_CACHE_SECONDS = 30;
/** paywall-shell.html as Vite built it, its stylesheet inlined, cut at its two slots. */
export const pageTemplate = (env: Bindings, requestUrl: string): Promise<Template> =>
  shellTemplate(env, requestUrl, "/paywall-shell");

/** The cache key of an item's page: the item, this deploy and this build of the page's assets. */
export async function paywallCacheKey(env: Bindings, requestUrl: string, id: string): Promise<string> {
  const { hash } = await pageTemplate(env, requestUrl);
  const deploy = env.CF_VERSION_METADATA?.id ?? "local";
  // The origin is the request's own: everything before the path's first "/".
  const origin = requestUrl.slice(0, requestUrl.indexOf("/", requestUrl.indexOf("//") + 2));
  return `${origin}/p/${encodeURIComponent(id)}?deploy=${encodeURIComponent(deploy)}&assets=${hash}`;
}

/**
 * A page as sent: its bytes (encoded once), whose item it is, and when it was rendered. `html` is
 * null for a deleted item: that mark answers 404 for as long as a page would have been kept, so a
 * read replica that has not yet seen the delete cannot bring the page back.
 */
export type CachedPage = { html: Uint8Array | null; creatorId: string; renderedAt: number; keepSeconds?: number };

// Inside the cached copy only, never sent to a visitor.
const CREATOR_HEADER = "x-apewall-creator";
const RENDERED_AT_HEADER = "x-apewall-rendered-at";
const GONE_HEADER = "x-apewall-gone";
const KEEP_HEADER = "x-apewall-keep-seconds";

/**
 * Pages this isolate served lately, so a hot page costs no cache lookup at all: at most
 * MEMORY_PAGES of them (about 40 KB each, most of it the inlined stylesheet: 8 MB at most), each kept
 * until PAYWALL_CACHE_SECONDS after it was rendered (as its edge copy), the least recently used
 * dropped first.
 */
const MEMORY_PAGES = 200;
const memory = new Map<string, CachedPage>();
const expiresAt = (page: CachedPage) => page.renderedAt + (page.keepSeconds ?? PAYWALL_CACHE_SECONDS) * 1000;
const expired = (page: CachedPage) => expiresAt(page) <= Date.now();

export const pageMemory = {
  get(key: string): CachedPage | undefined {
    const page = memory.get(key);
    if (!page) return undefined;
    memory.delete(key);
    if (expired(page)) return undefined;
    memory.set(key, page);
    return page;
  },
  delete(key: string): void {
    memory.delete(key);
  },
  set(key: string, page: CachedPage): void {
    memory.delete(key);
    if (expired(page)) return;
    memory.set(key, page);
    if (memory.size > MEMORY_PAGES) memory.delete(memory.keys().next().value!);
  },
};

/** The edge cache's copy of a page, kept until PAYWALL_CACHE_SECONDS after it was rendered. */
export function edgeCopy(page: CachedPage): Response {
  const left = Math.max(1, Math.ceil((expiresAt(page) - Date.now()) / 1000));
  const headers: Record<string, string> = {
    "content-type": "text/html; charset=utf-8",
    "cache-control": `public, max-age=${left}`,
    [CREATOR_HEADER]: page.creatorId,
    [RENDERED_AT_HEADER]: String(page.renderedAt),
  };
  if (!page.html) headers[GONE_HEADER] = "1";
  if (page.keepSeconds) headers[KEEP_HEADER] = String(page.keepSeconds);
  return new Response(page.html, { headers });
}

/** An item's page from this isolate's memory, else from this data center's edge cache. */
export async function cachedPaywallPage(key: string): Promise<CachedPage | undefined> {
  const remembered = pageMemory.get(key);
  if (remembered) return remembered;
  const stored = await caches.default.match(new Request(key));
  if (!stored) return undefined;
  let html: Uint8Array | null = null;
  if (stored.headers.has(GONE_HEADER)) await stored.body?.cancel();
  else html = new Uint8Array(await stored.arrayBuffer());
  const page = {
    html,
    creatorId: stored.headers.get(CREATOR_HEADER) ?? "",
    renderedAt: Number(stored.headers.get(RENDERED_AT_HEADER)) || Date.now(),
    keepSeconds: Number(stored.headers.get(KEEP_HEADER)) || undefined,
  };
  pageMemory.set(key, page);
  return page;
}

/** Keeps a page in this isolate's memory and, in the background, in the edge cache. */
export function keepPaywallPage(ctx: Pick<ExecutionContext, "waitUntil">, key: string, page: CachedPage): void {
  pageMemory.set(key, page);
  ctx.waitUntil(caches.default.put(new Request(key), edgeCopy(page)));
}

/**
 * Replaces a deleted item's page by the mark that answers 404, in this isolate's memory and this data
 * center's edge cache at once; other isolates and data centers drop the page within
 * PAYWALL_CACHE_SECONDS.
 */
export async function purgePaywallPage(env: Bindings, requestUrl: string, id: string): Promise<void> {
  const key = await paywallCacheKey(env, requestUrl, id);
  const gone: CachedPage = { html: null, creatorId: "", renderedAt: Date.now() };
  pageMemory.set(key, gone);
  await caches.default.put(new Request(key), edgeCopy(gone));
}

/**
 * Drops items' pages (still for sale, but showing something that changed, such as the creator's
 * profile) from this isolate's memory and this data center's edge cache, so the next visitor gets a
 * page rendered anew; other isolates and data centers drop theirs within PAYWALL_CACHE_SECONDS.
 * Known limit: that render reads a nearby replica, which may be a moment behind the change; a page
 * rendered from it is kept until PAYWALL_CACHE_SECONDS like any other.
 */
export async function forgetPaywallPages(env: Bindings, requestUrl: string, ids: string[]): Promise<void> {
  await Promise.all(
    ids.map(async (id) => {
      const key = await paywallCacheKey(env, requestUrl, id);
      pageMemory.delete(key);
      await caches.default.delete(new Request(key));
    }),
  );
}

/** Remembers, for UNKNOWN_ID_CACHE_SECONDS, that an id names no item (the mark that answers 404). */
export function keepUnknownId(ctx: Pick<ExecutionContext, "waitUntil">, key: string): void {
  keepPaywallPage(ctx, key, {
    html: null,
    creatorId: "",
    renderedAt: Date.now(),
    keepSeconds: UNKNOWN_ID_CACHE_SECONDS,
  });
}
