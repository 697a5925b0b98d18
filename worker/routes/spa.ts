// The React SPA's pages, from the static assets, under a Content-Security-Policy as strict as the
// paywall's: scripts from this origin and Stripe.js's only, styles from this origin plus the <style>
// elements the app's own code adds (with this response's nonce), requests to this origin and Stripe.
// wrangler.toml sends every path but /assets/*, /favicon.svg and /robots.txt through the Worker, so
// each page gets the header. A path that is none of the SPA's pages (shared/spa-routes.ts) gets the
// same HTML with status 404: the SPA renders its not-found screen inside the app's header.
import { Hono, type Context } from "hono";
import { isSpaRoute } from "../../shared/spa-routes";
import type { AppEnv } from "../middleware/context";
import { spaPolicy } from "../lib/csp";
import { notFound } from "../lib/errors";

const newNonce = () => btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(16))));

/** The SPA's HTML for this path (also the signed-in `/` and `/dashboard`: worker/routes/site-landing.tsx). */
export async function servePage(c: Context<AppEnv>): Promise<Response> {
  const path = c.req.path;
  // The API's and the dev pages' unknown paths stay JSON 404s; the server-rendered pages' unfilled
  // shells (paywall-shell.html, shells/*.html) are never served.
  if (
    path === "/api" ||
    path.startsWith("/api/") ||
    path === "/dev" ||
    path.startsWith("/dev/") ||
    /^\/paywall-shell(\.html)?$/.test(path) ||
    /^\/shells(\/|$)/i.test(path)
  ) {
    throw notFound();
  }
  const asset = await c.env.ASSETS.fetch(c.req.raw);
  // A copy: the assets' own response has immutable headers, and the app's middleware adds some.
  if (!(asset.headers.get("content-type") ?? "").startsWith("text/html")) return new Response(asset.body, asset);
  const nonce = newNonce();
  // Vite's loader and the app read the nonce from this tag (main.tsx passes it to the libraries that
  // add <style> elements); the policy lets only elements carrying it apply.
  const html = (await asset.text()).replace("<head>", `<head>\n    <meta property="csp-nonce" nonce="${nonce}" />`);
  const headers = new Headers(asset.headers);
  headers.delete("content-length");
  headers.set("content-security-policy", spaPolicy(c.env.STRIPE_JS_URL, nonce, c.env.TURNSTILE_SCRIPT_URL));
  headers.set("x-content-type-options", "nosniff");
  // A nonce is per response: the HTML must not be served to anyone else from a cache.
  headers.set("cache-control", "no-store");
  const status = asset.status === 200 && !isSpaRoute(path) ? 404 : asset.status;
  return new Response(c.req.method === "HEAD" ? null : html, { status, headers });
}

export const spaRoutes = new Hono<AppEnv>().on(["GET", "HEAD"], "*", servePage);
