// The creator's tax settings on /settings (docs/tax.md "What the creator sees"): whether their prices
// include tax, and the preview of what buyers in a few places pay and what the creator earns.
// Signed-in browsers only: the choice changes what buyers pay.
import { Hono } from "hono";
import {
  taxPreviewQuerySchema,
  taxPreviewSchema,
  taxSettingsInputSchema,
  taxSettingsSchema,
} from "../../shared/tax-settings";
import { forgetPaywallPages } from "../lib/paywall-cache";
import { limitOrThrow } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { requireUser, type AppEnv } from "../middleware/context";
import { doc } from "../openapi/describe";
import { liveItemIds } from "../services/profile";
import { stripeClient } from "../services/stripe";
import { planAt } from "../services/subscriptions";
import { saveTaxBehavior, taxBehaviorOf, taxSettings } from "../services/tax/creator-settings";
import { taxPreview } from "../services/tax/preview";

export const taxSettingsRoutes = new Hono<AppEnv>()
  .get(
    "/settings/tax",
    doc({
      tag: "Sales and earnings",
      summary: "Whether the creator's prices include tax",
      access: "session",
      ok: taxSettingsSchema,
    }),
    requireUser,
    async (c) => c.json(await taxSettings(c.var.db, c.var.userId)),
  )
  .put(
    "/settings/tax",
    doc({
      tag: "Sales and earnings",
      summary: "Choose whether prices include tax",
      description:
        "auto (the default): tax is added on top for US buyers and included in the price elsewhere; inclusive; exclusive. Applies to checkouts started from now on.",
      access: "session",
      ok: taxSettingsSchema,
    }),
    requireUser,
    validate("json", taxSettingsInputSchema),
    async (c) => {
      const saved = await saveTaxBehavior(c.var.db, c.var.userId, c.req.valid("json").behavior);
      // A paywall page may state whether its price includes tax: drop the cached copies.
      await forgetPaywallPages(c.env, c.req.url, await liveItemIds(c.var.db, c.var.userId));
      return c.json(saved);
    },
  )
  .get(
    "/settings/tax/preview",
    doc({
      tag: "Sales and earnings",
      summary: "What buyers in a few places pay for a price, and what the creator earns",
      description:
        "Stripe Tax computes each place as at checkout (cached for a day per price and choice; a few prices not cached a minute per creator, then 429); the fee is the creator's plan's, on the net.",
      access: "session",
      ok: taxPreviewSchema,
      errors: { 429: "Too many prices not cached this minute", 502: "Stripe Tax did not answer" },
    }),
    requireUser,
    validate("query", taxPreviewQuerySchema),
    async (c) => {
      const { priceCents, behavior } = c.req.valid("query");
      const [chosen, plan] = await Promise.all([
        behavior ?? taxBehaviorOf(c.var.db, c.var.userId),
        planAt(c.var.db, c.var.userId, new Date()),
      ]);
      // A price not cached costs five Stripe Tax calculations: a creator gets FORMS_LIMITER's few a minute.
      const deps = {
        stripe: () => stripeClient(c.env),
        kv: c.env.SESSIONS,
        beforeStripe: () => limitOrThrow(c as never, "FORMS_LIMITER", `tax-preview:${c.var.userId}`),
      };
      return c.json(await taxPreview(deps, priceCents, chosen, plan));
    },
  );
