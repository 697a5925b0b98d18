// What a form needs to draw the Turnstile widget: the public sitekey and the script's URL
// (a local stand-in in development). Behaviour: docs/security.md, "Bot protection".
import { Hono } from "hono";
import type { HumanCheckConfig } from "../../shared/human-check";
import { humanCheckConfigSchema } from "../../shared/human-check-config";
import type { AppEnv } from "../middleware/context";
import { doc } from "../openapi/describe";

const DEFAULT_SCRIPT_URL = "https://challenges.cloudflare.com/turnstile/v0/api.js";

let warnedNoSiteKey = false;

export const humanCheckRoutes = new Hono<AppEnv>().get(
  "/human-check",
  doc({
    tag: "Account",
    summary: "Bot protection's widget settings",
    description:
      "Forms that start a checkout, email a sign-in or library link, change a purchase's email or send feedback draw the Turnstile widget with these and send its token in the `cf-turnstile-response` header (or `unavailable` when the widget could not load).",
    access: "public",
    ok: humanCheckConfigSchema,
  }),
  (c) => {
    const siteKey = c.env.TURNSTILE_SITE_KEY || null;
    // Every browser then sends "unavailable" and is held to the strict limits: say so, once per isolate.
    if (!siteKey && c.env.APP_ENV === "production" && !warnedNoSiteKey) {
      warnedNoSiteKey = true;
      console.error("TURNSTILE_SITE_KEY is not set: no widget is drawn and every form is held to UNVERIFIED_LIMITER");
    }
    c.header("cache-control", "public, max-age=300");
    return c.json({
      siteKey,
      scriptUrl: c.env.TURNSTILE_SCRIPT_URL || DEFAULT_SCRIPT_URL,
    } satisfies HumanCheckConfig);
  },
);
