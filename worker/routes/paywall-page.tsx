/** @jsxImportSource hono/jsx */
// /p/{id} and /paywall/{id}: the finished paywall in the HTML (worker/pages/paywall.tsx) inside the
// paywall's own small page (paywall.html: its stylesheet, inlined here, and one script), with Open
// Graph / Twitter card tags. The HTML is the same for every visitor, so it is kept in the edge cache
// (the Cache API) keyed by item and deploy; deleting an item purges it, editing it replaces it, and a
// change to the creator's profile (the "by {name}" byline, worker/routes/profile.ts) drops every page
// of theirs. Views are counted on every
// request, cached or not, through the VIEWS queue.
import { dollarsField, formatDollarsPlain } from "../../shared/money";
import { Hono, type Context } from "hono";
import { getCookie } from "hono/cookie";
import type { PublicContent } from "../../shared/content";
import { createDb, readNearby } from "../db/client";
import { appUrl, type AppEnv } from "../middleware/context";
import { DISCOUNT_CODE_RE, DISCOUNT_MESSAGES, type DiscountQuote } from "../../shared/discounts";
import { PAYWALL_DATA_ID, PAYWALL_DISCOUNT_ID, PAYWALL_PART } from "../../shared/paywall";
import { eq } from "drizzle-orm";
import { content } from "../db/schema";
import { ApiError } from "../lib/errors";
import { quote } from "../services/discounts";
import { clientKey, overLimit, TOO_MANY_REQUESTS } from "../lib/rate-limit";
import { paywallPolicy } from "../lib/csp";
import { escapeHtml } from "../lib/html";
import {
  cachedPaywallPage,
  edgeCopy,
  keepPaywallPage,
  keepUnknownId,
  pageMemory,
  pageTemplate,
  paywallCacheKey,
  purgePaywallPage,
  type CachedPage,
  type Template,
} from "../lib/paywall-cache";
import { ContentNotFound, PaywallPage } from "../pages/paywall";
import { publicContent } from "../services/content";
import { recordView } from "../services/content-views";
import { readSession, SESSION_COOKIE } from "../services/sessions";

type Ctx = Context<AppEnv>;
type ImageSize = { width: number; height: number } | null;

// JSON inside <script type="application/json"> (data, never run): "<" escaped so no "</script>" in a
// title can end the element.
const inlineJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

const price = (item: PublicContent) =>
  item.pricingModel === "pay_what_you_want"
    ? `from ${formatDollarsPlain(item.minimumPrice ?? item.price)}`
    : formatDollarsPlain(item.price);

function headTags(item: PublicContent, pageUrl: string, origin: string, imageSize: ImageSize): string {
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
    [
      "property",
      "product:price:amount",
      dollarsField(item.pricingModel === "pay_what_you_want" ? (item.minimumPrice ?? item.price) : item.price),
    ],
    ["property", "product:price:currency", "USD"],
    ["name", "twitter:card", item.previewImage ? "summary_large_image" : "summary"],
    ["name", "twitter:title", title],
    ["name", "twitter:description", description],
    ["name", "twitter:image", image],
  ];
  const tags = meta.map(([attr, key, value]) => `<meta ${attr}="${key}" content="${escapeHtml(value)}" />`);
  tags.unshift(`<link rel="canonical" href="${escapeHtml(pageUrl)}" />`);
  // The preview image is the largest thing on the page: fetch it while the HTML is still arriving.
  if (item.previewImage)
    tags.push(`<link rel="preload" as="image" href="${escapeHtml(item.previewImage)}" fetchpriority="high" />`);
  return tags.join("\n    ");
}

const HTML_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "x-content-type-options": "nosniff",
  "referrer-policy": "strict-origin-when-cross-origin",
};

async function notFoundDocument(page: Template): Promise<string> {
  const body = (await (<ContentNotFound />).toString()) as string;
  return `${page.start}<title>Content Not Found · ApeWall</title>\n    <meta name="robots" content="noindex" />${page.middle}${body}${page.end}`;
}

async function renderPage(
  c: { env: Ctx["env"]; req: { url: string } },
  id: string,
  { primary = false } = {},
): Promise<{ status: 200 | 404; html: string; creatorId?: string }> {
  // The site's own address (APP_URL), never the request's Host: a cached page is shared by every
  // visitor, and a forged Host must not put another site into its links and cards.
  const origin = new URL(appUrl(c.env)).origin;
  const [page, item] = await Promise.all([
    pageTemplate(c.env, c.req.url),
    primary ? publicContent(createDb(c.env.DB), id) : readNearby(c.env.DB, (db) => publicContent(db, id)),
  ]);
  if (!item) return { status: 404, html: await notFoundDocument(page) };
  const { creatorId, previewImageSize, ...visible } = item;
  // Both addresses show one page; /p/{id} is its canonical address.
  const pageUrl = `${origin}/p/${encodeURIComponent(item.id)}`;
  const head = `<title>${escapeHtml(item.title)} · ApeWall</title>\n    ${headTags(visible, pageUrl, origin, previewImageSize)}\n    <script type="application/json" id="${PAYWALL_DATA_ID}">${inlineJson(visible)}</script>`;
  const body = (await (<PaywallPage item={visible} imageSize={previewImageSize} />).toString()) as string;
  return { status: 200, html: `${page.start}${head}${page.middle}${body}${page.end}`, creatorId };
}

/** The item's page from the caches, else rendered (and kept in both). */
async function cachedPage(
  c: Ctx,
  id: string,
): Promise<{ page: CachedPage; hit: boolean } | { missing: string; hit: boolean }> {
  const key = await paywallCacheKey(c.env, c.req.url, id);
  const cached = await cachedPaywallPage(key);
  if (cached?.html === null)
    return { missing: await notFoundDocument(await pageTemplate(c.env, c.req.url)), hit: true };
  if (cached) return { page: cached, hit: true };
  const rendered = await renderPage(c, id);
  // A 404 comes from the primary (readNearby asks it when the replica lacks the id), so the id was
  // never made: remembered briefly, so random ids do not each read the primary database.
  if (rendered.status === 404) {
    keepUnknownId(c.executionCtx, key);
    return { missing: rendered.html, hit: false };
  }
  const page = {
    html: new TextEncoder().encode(rendered.html),
    creatorId: rendered.creatorId!,
    renderedAt: Date.now(),
  };
  keepPaywallPage(c.executionCtx, key, page);
  return { page, hit: false };
}

/**
 * After its creator changed an item: the page rendered afresh from the primary database (a replica
 * may not have the change yet) replaces the cached one in this isolate and this data center at once;
 * other data centers drop theirs within PAYWALL_CACHE_SECONDS.
 */
export async function replacePaywallPage(c: { env: Ctx["env"]; req: { url: string } }, id: string): Promise<void> {
  const key = await paywallCacheKey(c.env, c.req.url, id);
  const rendered = await renderPage(c, id, { primary: true });
  if (rendered.status === 404) return purgePaywallPage(c.env, c.req.url, id);
  const page: CachedPage = {
    html: new TextEncoder().encode(rendered.html),
    creatorId: rendered.creatorId!,
    renderedAt: Date.now(),
  };
  pageMemory.set(key, page);
  await caches.default.put(new Request(key), edgeCopy(page));
}

const usd = formatDollarsPlain;

/**
 * A code's quote for an item, kept in this isolate for QUOTE_MEMORY_MS and keyed by the page's render
 * time as well: editing the item renders a new page here, so a price change is never quoted from
 * memory. A code ended in the meantime may still show for those seconds; checkout then refuses it
 * (the price charged is always the server's, computed again). The rewritten page is kept with it.
 * Without this, each ?code= view read the database twice and served 43% of the plain page's req/s;
 * with the quote alone kept, 62% (`BENCH_ONLY=load npm run bench`).
 */
const QUOTE_MEMORY_MS = 10_000;
type Memo = { at: number; answer: { quote: DiscountQuote | null; problem: string | null } | null; html?: Uint8Array };
const quoteMemory = new Map<string, Memo>();
async function quoteFor(c: Ctx, id: string, text: string, renderedAt: number): Promise<Memo> {
  const key = `${id}\n${text.trim().toUpperCase()}\n${renderedAt}`;
  const now = Date.now();
  const kept = quoteMemory.get(key);
  if (kept && now - kept.at < QUOTE_MEMORY_MS) return kept;
  let answer: { quote: DiscountQuote | null; problem: string | null } | null;
  if (!DISCOUNT_CODE_RE.test(text.trim())) answer = { quote: null, problem: DISCOUNT_MESSAGES.unknown };
  else {
    const item = await readNearby(c.env.DB, (db) => db.select().from(content).where(eq(content.id, id)).get());
    if (!item) answer = null;
    else {
      try {
        answer = { quote: await quote(c.env.DB, item, text), problem: null };
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        answer = { quote: null, problem: err.message.replace(/^code: /, "") };
      }
    }
  }
  if (quoteMemory.size >= 500) quoteMemory.delete(quoteMemory.keys().next().value!);
  const memo: Memo = { at: now, answer };
  quoteMemory.set(key, memo);
  return memo;
}

/**
 * `/p/{id}?code=SPRING`: the cached page (one per item, whatever the code) with the code's price
 * written into it as it streams out, so a visitor without JavaScript sees the struck-through price
 * and the price checkout will charge (worker/services/discounts.ts `quote`, the same rule). A code
 * that cannot be used leaves the price as it is and says "This code isn't valid", whatever the reason
 * (the page is no oracle of which codes exist).
 */
async function withDiscount(c: Ctx, id: string, text: string, res: Response, renderedAt: number): Promise<Response> {
  // Trying codes here costs what it costs on the API (GET /api/content/{id}/discount, the same budget):
  // past it, the page at its own price, saying so, with a 429.
  const client = clientKey(c);
  if (client && (await overLimit(c.env, "CHECKOUT_LIMITER", `discount:${client}`))) {
    const limited = rewrite({ quote: null, problem: TOO_MANY_REQUESTS }, text, res);
    const headers = new Headers(res.headers);
    headers.set("retry-after", "60");
    headers.set("cache-control", "no-store");
    return new Response(limited.body, { status: 429, headers });
  }
  const memo = await quoteFor(c, id, text, renderedAt);
  if (!memo.answer) return res;
  // The rewritten page is kept with its quote: a repeat view of the same link is served from memory.
  memo.html ??= new Uint8Array(await rewrite(memo.answer, text, res).arrayBuffer());
  return new Response(memo.html, { status: res.status, headers: res.headers });
}

function rewrite(
  answer: { quote: DiscountQuote | null; problem: string | null },
  text: string,
  res: Response,
): Response {
  const { quote: q, problem } = answer;
  const note = q
    ? `<p class="text-sm font-medium text-emerald-700" data-testid="paywall-discount">Code ${escapeHtml(q.code)}: ${escapeHtml(q.label)}${
        q.pricingModel === "pay_what_you_want"
          ? ` what you pay (never below the ${usd(q.minimumPrice ?? 0)} minimum)`
          : ""
      }</p>`
    : `<p class="text-sm text-muted-foreground" role="status" data-testid="paywall-discount">Code ${escapeHtml(text.trim().slice(0, 40).toUpperCase())}: ${escapeHtml(problem ?? DISCOUNT_MESSAGES.unknown)}</p>`;
  let rewriter = new HTMLRewriter().on(`form[data-part="${PAYWALL_PART.form}"]`, {
    element: (e) => void e.prepend(note, { html: true }),
  });
  if (q) {
    rewriter = rewriter
      .on("head", {
        element: (e) =>
          void e.append(
            `<script type="application/json" id="${PAYWALL_DISCOUNT_ID}">${inlineJson({ code: q.code, price: q.price })}</script>`,
            { html: true },
          ),
      })
      .on('[data-testid="paywall-price"]', {
        element: (e) =>
          void e.setInnerContent(
            `<s class="text-xl font-semibold text-muted-foreground" data-testid="paywall-list-price">${usd(q.listPrice)}</s> ${usd(q.price)}`,
            { html: true },
          ),
      });
  }
  return rewriter.transform(res);
}

async function render(c: Ctx, id: string): Promise<Response> {
  const [found, { styleHash }] = await Promise.all([cachedPage(c, id), pageTemplate(c.env, c.req.url)]);
  const csp = paywallPolicy(c.env.STRIPE_JS_URL, styleHash, c.env.TURNSTILE_SCRIPT_URL);
  if ("missing" in found) {
    return new Response(found.missing, {
      status: 404,
      headers: {
        ...HTML_HEADERS,
        "content-security-policy": csp,
        "cache-control": "no-store",
        "x-paywall-cache": found.hit ? "HIT" : "MISS",
      },
    });
  }
  // A creator looking at their own page is not a view; the session is read only when one is sent.
  const sessionToken = getCookie(c, SESSION_COOKIE);
  const viewer = sessionToken ? (await readSession(c.env.SESSIONS, sessionToken))?.userId : undefined;
  if (c.req.query("preview") !== "1" && viewer !== found.page.creatorId) {
    recordView(c.env.VIEWS, c.executionCtx, id);
  }
  const code = c.req.query("code");
  const page = new Response(found.page.html, {
    status: 200,
    headers: {
      ...HTML_HEADERS,
      "content-security-policy": csp,
      // Browsers ask again each time (price and availability change); the cached copy answers at once.
      "cache-control": "public, max-age=0, must-revalidate",
      "x-paywall-cache": found.hit ? "HIT" : "MISS",
    },
  });
  return code ? withDiscount(c, id, code, page, found.page.renderedAt) : page;
}

export const paywallPageRoutes = new Hono<AppEnv>()
  .get("/p/:id", (c) => render(c, c.req.param("id")))
  .get("/paywall/:id", (c) => render(c, c.req.param("id")));
