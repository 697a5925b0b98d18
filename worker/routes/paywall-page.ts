// /p/{id} and /paywall/{id}: the SPA's HTML with the item's public data inline and Open Graph /
// Twitter card tags, so a shared link shows a card and the page renders without a second round trip.
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import type { PublicContent } from "../../shared/content";
import { createDb } from "../db/client";
import type { AppEnv } from "../lib/context";
import { escapeHtml } from "../lib/html";
import { publicContent, recordView } from "../services/content";
import { readSession, SESSION_COOKIE } from "../services/sessions";

// JSON inside <script>: "<" escaped so no "</script>" in a title can end the element.
const inlineJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

const price = (item: PublicContent) =>
  item.pricingModel === "pay_what_you_want" ? `from $${(item.minimumPrice ?? item.price).toFixed(2)}` : `$${item.price.toFixed(2)}`;

function headTags(item: PublicContent, pageUrl: string, origin: string, imageSize: { width: number; height: number } | null): string {
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
    // The size lets chats lay out the large card before fetching the image.
    ...(imageSize
      ? ([
          ["property", "og:image:width", String(imageSize.width)],
          ["property", "og:image:height", String(imageSize.height)],
        ] as [string, string, string][])
      : []),
    ["property", "product:price:amount", (item.pricingModel === "pay_what_you_want" ? (item.minimumPrice ?? item.price) : item.price).toFixed(2)],
    ["property", "product:price:currency", "USD"],
    ["name", "twitter:card", item.previewImage ? "summary_large_image" : "summary"],
    ["name", "twitter:title", title],
    ["name", "twitter:description", description],
    ["name", "twitter:image", image],
  ];
  return meta.map(([attr, key, value]) => `<meta ${attr}="${key}" content="${escapeHtml(value)}" />`).join("\n    ");
}

// The SPA shell only changes with a deploy, and each deploy gets fresh isolates: read it once.
let shellHtml: Promise<string> | null = null;
function spaShell(c: import("hono").Context<AppEnv>): Promise<string> {
  shellHtml ??= c.env.ASSETS.fetch(new Request(new URL("/index.html", c.req.url)))
    .then((res) => {
      if (!res.ok) throw new Error(`index.html answered ${res.status}`);
      return res.text();
    })
    .catch((err) => {
      shellHtml = null;
      throw err;
    });
  return shellHtml;
}

async function render(c: import("hono").Context<AppEnv>, id: string) {
  const url = new URL(c.req.url);
  const db = createDb(c.env.DB);
  const [shell, item] = await Promise.all([spaShell(c), publicContent(db, id)]);
  const headers = {
    "content-type": "text/html; charset=utf-8",
    // Price and availability change: shared caches may keep the page briefly, browsers revalidate.
    "cache-control": "public, max-age=0, s-maxage=30, must-revalidate",
    "x-content-type-options": "nosniff",
  };
  if (!item) return new Response(shell, { status: 404, headers });

  const { creatorId, previewImageSize, ...visible } = item;
  // A creator looking at their own page is not a view; the session is read only when one is sent.
  const sessionToken = getCookie(c, SESSION_COOKIE);
  const viewer = sessionToken ? (await readSession(c.env.SESSIONS, sessionToken))?.userId : undefined;
  if (url.searchParams.get("preview") !== "1" && viewer !== creatorId) {
    c.executionCtx.waitUntil(recordView(c.env.VIEWS, item.id).catch((err) => console.warn("view count failed", err)));
  }
  const head = `${headTags(visible, `${url.origin}${url.pathname}`, url.origin, previewImageSize)}\n    <script>window.__PAYWALL__=${inlineJson(visible)}</script>\n  </head>`;
  const html = shell
    // Replacer functions: a "$&" in a title must stay text, not become a replacement pattern.
    .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(item.title)} · ApeWall</title>`)
    .replace(/<meta name="description"[^>]*>\s*/, () => "")
    .replace("</head>", () => head);
  return new Response(html, { status: 200, headers });
}

export const paywallPageRoutes = new Hono<AppEnv>()
  .get("/p/:id", (c) => render(c, c.req.param("id")))
  .get("/paywall/:id", (c) => render(c, c.req.param("id")));
