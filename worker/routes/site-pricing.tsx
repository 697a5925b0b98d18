/** @jsxImportSource hono/jsx */
// /pricing (docs/pages.md): the same page for every visitor, kept by the edge cache
// (worker/pages/pricing.tsx); a signed-in creator's buttons and plan are the island's
// (web/site/common.ts, web/site/pricing.ts).
import { Hono } from "hono";
import { PRICING_TEXT } from "../../shared/pricing-page";
import { sendSharedPage } from "../lib/site-page";
import type { AppEnv } from "../middleware/context";
import { PricingPage } from "../pages/pricing";

export const pricingRoutes = new Hono<AppEnv>().on(["GET", "HEAD"], "/pricing", (c) =>
  sendSharedPage(c, "pricing", async () => ({
    shell: "/shells/pricing",
    title: PRICING_TEXT.title,
    description: PRICING_TEXT.description,
    body: (await (<PricingPage />).toString()) as string,
  })),
);
