// /p/{id} and /paywall/{id}: the SPA's HTML with the item's public data inline and Open Graph /
// Twitter card tags, so a shared link shows a card and the page renders without a second round trip.
import { Hono } from "hono";
import type { PublicContent } from "../../shared/content";
import { createDb } from "../db/client";
import type { AppEnv } from "../lib/context";
import { publicContent, recordView } from "../services/content";

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
// JSON inside <script>: "<" escaped so no "</script>" in a title can end the element.
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

const price = (item: PublicContent) =>
  item.pricingModel === "pay_what_you_want" ? `from $${(item.minimumPrice ?? item.price).toFixed(2)}` : `$${item.price.toFixed(2)}`;

function headTags(item: PublicContent, pageUrl: string, origin: string): string {
  const title = `${item.title} · ${price(item)}`;
  const description = item.description || `Unlock "${item.title}" on ApeWall.`;
  const image = item.previewImage ? `${origin}${item.previewImage}` : `${origin}/favicon.svg`;
  const meta: [string, string, string][] = [
    ["name", "description", description],
    ["property", "og:type", "product"],
    ["property", "og:site_name", "ApeWall"],
    ["property", "og:title", title],
    ["property", "og:description", description],
    ["property", "og:url", pageUrl],
    ["property", "og:image", image],
    ["property", "product:price:amount", (item.pricingModel === "pay_what_you_want" ? (item.minimumPrice ?? item.price) : item.price).toFixed(2)],
    ["property", "product:price:currency", "USD"],
    ["name", "twitter:card", item.previewImage ? "summary_large_image" : "summary"],
    ["name", "twitter:title", title],
    ["name", "twitter:description", description],
    ["name", "twitter:image", image],
  ];
  return meta.map(([attr, key, value]) => `<meta ${attr}="${key}" content="${escapeAttr(value)}" />`).join("\n    ");
}

async function render(c: import("hono").Context<AppEnv>, id: string) {
  const url = new URL(c.req.url);
  const shell = await c.env.ASSETS.fetch(new Request(new URL("/index.html", url)));
  const db = createDb(c.env.DB);
  const item = await publicContent(db, id);
  const headers = new Headers(shell.headers);
  headers.set("content-type", "text/html; charset=utf-8");
  // Price and availability change: caches may keep the page briefly, browsers revalidate.
  headers.set("cache-control", "public, max-age=0, s-maxage=30, must-revalidate");
  headers.delete("etag");
  headers.delete("content-length");

  if (!item) {
    return new Response(shell.body, { status: 404, headers });
  }
  const { creatorId: _creator, ...visible } = item;
  if (url.searchParams.get("preview") !== "1") c.executionCtx.waitUntil(recordView(db, item.id).catch((err) => console.warn("view count failed", err)));

  const rewritten = new HTMLRewriter()
    .on("title", {
      element(el) {
        el.setInnerContent(`${item.title} · ApeWall`);
      },
    })
    .on('meta[name="description"]', {
      element(el) {
        el.remove();
      },
    })
    .on("head", {
      element(el) {
        el.append(`\n    ${headTags(visible, `${url.origin}${url.pathname}`, url.origin)}\n`, { html: true });
        el.append(`<script>window.__PAYWALL__=${inlineJson(visible)}</script>\n`, { html: true });
      },
    })
    .transform(new Response(shell.body, { status: 200, headers }));
  return rewritten;
}

export const paywallPageRoutes = new Hono<AppEnv>()
  .get("/p/:id", (c) => render(c, c.req.param("id")))
  .get("/paywall/:id", (c) => render(c, c.req.param("id")));
