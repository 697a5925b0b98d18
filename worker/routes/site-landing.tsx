/** @jsxImportSource hono/jsx */
// `/` and `/dashboard` (docs/pages.md): a visitor with a valid creator session gets the SPA (the
// dashboard) exactly as before; anyone else the landing (worker/pages/landing.tsx), the same for
// every such visitor and so kept by the edge cache. Whether the session is valid is read here, never
// cached: the cached page holds nothing of the visitor.
import { Hono, type Context } from "hono";
import { getCookie } from "hono/cookie";
import { LANDING_TEXT } from "../../shared/landing";
import { sendSharedPage } from "../lib/site-page";
import type { AppEnv } from "../middleware/context";
import { LandingPage } from "../pages/landing";
import { readSession, SESSION_COOKIE } from "../services/sessions";
import { servePage } from "./spa";

async function landingOrApp(c: Context<AppEnv>): Promise<Response> {
  const token = getCookie(c, SESSION_COOKIE);
  if (token && (await readSession(c.env.SESSIONS, token))) return servePage(c);
  return sendSharedPage(c, "landing", async () => ({
    shell: "/shells/landing",
    title: LANDING_TEXT.title,
    description: LANDING_TEXT.description,
    body: (await (<LandingPage />).toString()) as string,
  }));
}

// Another spelling (/Dashboard, /dashboard/) reaches the SPA, which sends a signed-out visitor to "/".
export const landingRoutes = new Hono<AppEnv>()
  .on(["GET", "HEAD"], "/", landingOrApp)
  .on(["GET", "HEAD"], "/dashboard", landingOrApp);
