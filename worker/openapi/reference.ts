// GET /api/openapi.json (the document, built once per isolate) and GET /docs/api (Scalar's
// interactive reference of it, under a bar that leads back to the app and shows how the reader's own
// keys begin). Scalar's script is served from this origin (vite.config.ts copies the pinned bundle
// into the assets), under a Content-Security-Policy that allows nothing else. docs/api-and-webhooks.md.
import { Scalar } from "@scalar/hono-api-reference";
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { SCALAR_BUNDLE_PATH } from "../../shared/site";
import type { AppEnv } from "../middleware/context";
import { apiReferencePolicy } from "../lib/csp";
import { escapeHtml } from "../lib/html";
import { newToken } from "../lib/ids";
import { keyEnvTag, newestActiveKey } from "../services/api-keys";
import { readSession, SESSION_COOKIE } from "../services/sessions";
import { openApiDocument } from "./document";

let built: Promise<unknown> | null = null;

const keyPrefixOf = (appEnv: string | undefined) => `aw_${keyEnvTag(appEnv)}_`;

// Plain CSS (the page's CSP allows inline styles): one line at 1280, the links then the key at 390.
const BAR_CSS = `
.aw-bar{display:flex;flex-wrap:wrap;align-items:center;gap:6px 16px;padding:10px 16px;border-bottom:1px solid #e5e7eb;
  background:#faf5ff;font:14px/1.5 ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2937}
.aw-bar a{color:#6d28d9;font-weight:600;text-decoration:none}
.aw-bar a:hover{text-decoration:underline}
.aw-bar .aw-key{flex:1 1 240px;min-width:0;overflow-wrap:anywhere;color:#4b5563}
.aw-bar code{font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#111827;background:#ede9fe;
  padding:1px 5px;border-radius:4px;white-space:nowrap}
@media (prefers-color-scheme:dark){.aw-bar{background:#1e1b2e;border-color:#2e2a40;color:#e5e7eb}
  .aw-bar a{color:#c4b5fd}.aw-bar .aw-key{color:#d1d5db}.aw-bar code{background:#2e2a40;color:#f3f4f6}}`;

/** The bar above the reference: back to the app, and the reader's key prefix (a generic one signed out). */
function barHtml(reader: { key: { name: string; prefix: string } | null } | null, keyPrefix: string): string {
  const code = (s: string) => `<code>${escapeHtml(s)}…</code>`;
  const parts = !reader
    ? [
        `<a href="/">← Back to ApeWall</a>`,
        `<span class="aw-key">API keys look like ${code(keyPrefix)}</span>`,
        `<a href="/sign-in">Sign in</a>`,
      ]
    : [
        `<a href="/dashboard">← Back to Dashboard</a>`,
        reader.key
          ? `<span class="aw-key">Your key “${escapeHtml(reader.key.name)}” starts ${code(reader.key.prefix)}</span>`
          : `<span class="aw-key">Your keys will start ${code(keyPrefix)}</span>`,
        `<a href="/settings#developers">Developer settings</a>`,
      ];
  return `<style>${BAR_CSS}</style><nav class="aw-bar" aria-label="ApeWall">${parts.join("")}</nav>`;
}

export function openApiRoutes(app: () => Hono<never>) {
  return new Hono<AppEnv>()
    .get("/api/openapi.json", async (c) => {
      built ??= openApiDocument(app(), c.env.APP_URL, keyPrefixOf(c.env.APP_ENV)).catch((err) => {
        built = null;
        throw err;
      });
      c.header("cache-control", "public, max-age=300");
      return c.json(await built);
    })
    .get("/docs/api", async (c, next) => {
      const nonce = newToken();
      // The bar is a courtesy: if the session or key cannot be read, the public page shows the signed-out bar.
      const reader = await readSession(c.env.SESSIONS, getCookie(c, SESSION_COOKIE))
        .then(async (session) => (session ? { key: await newestActiveKey(c.env.DB, session.userId) } : null))
        .catch(() => null);
      const scalar = (await Scalar<AppEnv>({
        url: "/api/openapi.json",
        pageTitle: "ApeWall API reference",
        cdn: `/${SCALAR_BUNDLE_PATH}`,
        nonce,
        withDefaultFonts: false,
        telemetry: false,
        hideClientButton: false,
        showDeveloperTools: "never",
        persistAuth: false,
        agent: { disabled: true },
        mcp: { disabled: true },
      } as never)(c, next)) as Response;
      const page = await scalar.text();
      // The page differs per reader (their key's name and prefix): never kept by a shared cache.
      return c.html(
        page.replace("<body>", () => `<body>${barHtml(reader, keyPrefixOf(c.env.APP_ENV))}`),
        200,
        {
          "content-security-policy": apiReferencePolicy(nonce),
          "cache-control": "private, no-store",
        },
      );
    });
}
