// The paywall page's built shell (paywall-shell.html from vite.paywall.config.ts) and the caches of
// rendered pages, one key per item, deploy and build of the page's assets: this isolate's memory in
// front of the data center's edge cache (the Cache API).
import type { AppEnv } from "./context";

type Bindings = Pick<AppEnv["Bindings"], "ASSETS" | "CF_VERSION_METADATA">;

/**
 * How long a data center (and an isolate) keeps a page. A delete purges the data center that served
 * it at once (`cache.delete` acts on one data center); the others drop the page within this time. What a
 * stale page could show is only public: buying a deleted item is refused by the checkout call.
 */
export const PAYWALL_CACHE_SECONDS = 60;
/** The built page cut at its two slots: start <!--app-head--> middle <!--app-html--> end. */
type Template = { start: string; middle: string; end: string; hash: string; styleHash: string };

/**
 * paywall-shell.html as Vite built it, with its stylesheet inlined (one request fewer before the first
 * paint), split where the page's head tags and body go. It changes only with a deploy, and each
 * deploy gets fresh isolates: read it once.
 */
let template: Promise<Template> | null = null;
export function pageTemplate(env: Bindings, requestUrl: string): Promise<Template> {
  const asset = async (path: string) => {
    const res = await env.ASSETS.fetch(new Request(new URL(path, requestUrl)));
    if (!res.ok) throw new Error(`${path} answered ${res.status}`);
    return res.text();
  };
  template ??= (async () => {
    // "/paywall-shell" is how the assets binding names paywall-shell.html (it drops the extension).
    let html = await asset("/paywall-shell");
    // The inline stylesheet's hash, for the page's Content-Security-Policy.
    let styleHash = "";
    const link = /<link rel="stylesheet"[^>]*href="([^"]+)"[^>]*>/.exec(html);
    if (link) {
      const css = (await asset(link[1])).replace(/<\/style/gi, "<\\/style");
      html = html.replace(link[0], () => `<style>${css}</style>`);
      styleHash = `sha256-${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(css)))))}`;
    }
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(html)));
    const hash = Array.from(digest.slice(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
    const [start, rest = ""] = html.split("<!--app-head-->");
    const [middle, end] = rest.split("<!--app-html-->");
    if (end === undefined) throw new Error("paywall-shell.html lacks <!--app-head--> or <!--app-html-->");
    return { start, middle, end, hash, styleHash };
  })().catch((err) => {
    template = null;
    throw err;
  });
  return template;
}

/** The cache key of an item's page: the item, this deploy and this build of the page's assets. */
export async function paywallCacheKey(env: Bindings, requestUrl: string, id: string): Promise<string> {
  const { hash } = await pageTemplate(env, requestUrl);
  const deploy = env.CF_VERSION_METADATA?.id ?? "local";
  // The origin is the request's own: everything before the path's first "/".
  const origin = requestUrl.slice(0, requestUrl.indexOf("/", requestUrl.indexOf("//") + 2));
  return `${origin}/p/${encodeURIComponent(id)}?deploy=${encodeURIComponent(deploy)}&assets=${hash}`;
}

/** A page as sent: its bytes, encoded once, and whose item it is. */
export type CachedPage = { html: Uint8Array; creatorId: string };

/**
 * Pages this isolate served lately, so a hot page costs no cache lookup at all: at most
 * MEMORY_PAGES of them (about 40 KB each, most of it the inlined stylesheet: 8 MB at most), each kept
 * no longer than the edge copy, the least recently used dropped first.
 */
const MEMORY_PAGES = 200;
const memory = new Map<string, CachedPage & { until: number }>();

export const pageMemory = {
  get(key: string): CachedPage | undefined {
    const entry = memory.get(key);
    if (!entry) return undefined;
    memory.delete(key);
    if (entry.until <= Date.now()) return undefined;
    memory.set(key, entry);
    return entry;
  },
  set(key: string, page: CachedPage): void {
    memory.delete(key);
    memory.set(key, { ...page, until: Date.now() + PAYWALL_CACHE_SECONDS * 1000 });
    if (memory.size > MEMORY_PAGES) memory.delete(memory.keys().next().value!);
  },
};

/**
 * Drops an item's cached page: from this isolate's memory and this data center's edge cache at
 * once; other isolates and data centers drop it within PAYWALL_CACHE_SECONDS.
 */
export async function purgePaywallPage(env: Bindings, requestUrl: string, id: string): Promise<void> {
  const key = await paywallCacheKey(env, requestUrl, id);
  memory.delete(key);
  await caches.default.delete(new Request(key));
}
