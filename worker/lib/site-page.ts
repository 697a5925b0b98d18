// The public pages the Worker renders like the paywall (docs/pages.md): a built shell
// (shells/<name>.html, its stylesheet inlined, its island script) filled with the page's head tags
// and body. A page the same for every visitor is kept per deploy in this isolate's memory and the
// data center's edge cache (the Cache API), as the paywall page is.
import type { Context } from "hono";
import { SPA_ASSETS_ID } from "../../shared/site";
import type { AppEnv } from "../middleware/context";
import { sitePolicy } from "./csp";
import { escapeHtml } from "./html";
import { shellTemplate } from "./shell-template";

type Ctx = Context<AppEnv>;

/** What a page puts into its shell: the shell's asset path ("/shells/landing"), title, extra head tags, body. */
export type SiteDocument = { shell: string; title: string; description?: string; head?: string; body: string };

/** A page the same for everyone changes only with a deploy (its key names the deploy and the shell's build). */
const SHARED_PAGE_SECONDS = 3600;

/**
 * The SPA's entry script and stylesheets as its built index.html names them (read once per isolate),
 * so a public page can prefetch the app on intent without loading it.
 */
let spaAssets: Promise<string[]> | null = null;
function spaEntryFiles(env: Ctx["env"], requestUrl: string): Promise<string[]> {
  spaAssets ??= (async () => {
    const res = await env.ASSETS.fetch(new Request(new URL("/", requestUrl)));
    const html = res.ok ? await res.text() : "";
    return [...html.matchAll(/<(?:script[^>]*\bsrc|link[^>]*\bhref)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  })().catch(() => {
    spaAssets = null;
    return [];
  });
  return spaAssets;
}

/** JSON inside <script type="application/json"> (data, never run): "<" escaped so no "</script>" can end it. */
export const inlineJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

/** The page's whole HTML and the hash its policy allows its inline stylesheet by. */
async function siteHtml(c: Ctx, page: SiteDocument): Promise<{ html: string; styleHash: string }> {
  const [template, spa] = await Promise.all([
    shellTemplate(c.env, c.req.url, page.shell),
    spaEntryFiles(c.env, c.req.url),
  ]);
  const head = [
    `<title>${escapeHtml(page.title)}</title>`,
    page.description ? `<meta name="description" content="${escapeHtml(page.description)}" />` : "",
    page.head ?? "",
    `<script type="application/json" id="${SPA_ASSETS_ID}">${inlineJson(spa)}</script>`,
  ]
    .filter(Boolean)
    .join("\n    ");
  return {
    html: `${template.start}${head}${template.middle}${page.body}${template.end}`,
    styleHash: template.styleHash,
  };
}

const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

type SendOptions = { status?: number; styleHash: string; shared: boolean; stripe?: boolean; cache?: "HIT" | "MISS" };

/** The page as a response: its policy, and whether a shared cache may keep it. */
function sendSiteHtml(c: Ctx, html: string | Uint8Array, options: SendOptions): Response {
  const headers: Record<string, string> = {
    ...HTML_HEADERS,
    "content-security-policy": sitePolicy(options.styleHash, c.env.TURNSTILE_SCRIPT_URL, {
      stripeJsUrl: options.stripe ? (c.env.STRIPE_JS_URL ?? "") : undefined,
    }),
    // Browsers ask again each time; the Worker's cached copy answers at once.
    "cache-control": options.shared ? "public, max-age=0, must-revalidate" : "private, no-store",
  };
  if (options.cache) headers["x-page-cache"] = options.cache;
  return new Response(c.req.method === "HEAD" ? null : html, { status: options.status ?? 200, headers });
}

/** A page that depends on the visitor: rendered for each request, never kept by a shared cache. */
export async function sendPrivatePage(c: Ctx, page: SiteDocument, status = 200, stripe = false): Promise<Response> {
  const { html, styleHash } = await siteHtml(c, page);
  return sendSiteHtml(c, html, { status, styleHash, shared: false, stripe });
}

type SharedPage = { html: Uint8Array; styleHash: string; renderedAt: number };
/** This isolate's copies of the shared pages (a handful: one per name). */
const memory = new Map<string, SharedPage>();
const STYLE_HASH_HEADER = "x-apewall-style-hash";

/**
 * A page the same for every visitor (`name` tells it apart, e.g. "pricing"): from this isolate's
 * memory, else this data center's edge cache, else rendered and kept in both for SHARED_PAGE_SECONDS
 * (its key names the deploy, so a deploy never serves an older page).
 */
export async function sendSharedPage(c: Ctx, name: string, render: () => Promise<SiteDocument>): Promise<Response> {
  const deploy = c.env.CF_VERSION_METADATA?.id ?? "local";
  const key = `${new URL(c.req.url).origin}/__site/${encodeURIComponent(name)}?deploy=${encodeURIComponent(deploy)}`;
  let page = memory.get(key);
  if (page && page.renderedAt + SHARED_PAGE_SECONDS * 1000 <= Date.now()) page = undefined;
  let hit = Boolean(page);
  if (!page) {
    const stored = await caches.default.match(new Request(key));
    if (stored) {
      page = {
        html: new Uint8Array(await stored.arrayBuffer()),
        styleHash: stored.headers.get(STYLE_HASH_HEADER) ?? "",
        renderedAt: Date.now(),
      };
      memory.set(key, page);
      hit = true;
    }
  }
  if (!page) {
    const { html, styleHash } = await siteHtml(c, await render());
    page = { html: new TextEncoder().encode(html), styleHash, renderedAt: Date.now() };
    memory.set(key, page);
    const copy = new Response(page.html, {
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": `public, max-age=${SHARED_PAGE_SECONDS}`,
        [STYLE_HASH_HEADER]: styleHash,
      },
    });
    c.executionCtx.waitUntil(caches.default.put(new Request(key), copy));
  }
  return sendSiteHtml(c, page.html, { styleHash: page.styleHash, shared: true, cache: hit ? "HIT" : "MISS" });
}
