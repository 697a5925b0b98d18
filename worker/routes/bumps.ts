// An item's order bump: the creator sets or removes its one add-on. The item's paywall
// page and public answer are made anew at once (they carry the checkbox's offer).
import { Hono } from "hono";
import { z } from "zod";
import { orderBumpSchema, bumpAnswerSchema } from "../../shared/bumps";
import { requireUser, type AppEnv } from "../middleware/context";
import { forgetPaywallPages } from "../lib/paywall-cache";
import { forgetPublicContent } from "../lib/public-content-cache";
import { validate } from "../lib/validate";
import { doc } from "../openapi/describe";
import { setBump } from "../services/funnels/bumps";

const idParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid content id") });

export const bumpRoutes = new Hono<AppEnv>()
  .put(
    "/content/:id/bump",
    doc({
      tag: "Items",
      summary: "Set an item's order bump",
      description:
        "One add-on per item: another of your items, offered as a checkbox at checkout at this price. Replaces the item's add-on, if any.",
      access: "creator",
      ok: bumpAnswerSchema,
      errors: {
        400: "The body is not valid, the add-on is this item, or not one of yours",
        404: "No such item of yours",
      },
    }),
    requireUser,
    validate("param", idParam),
    validate("json", orderBumpSchema),
    async (c) => {
      const id = c.req.valid("param").id;
      const bump = await setBump(c.var.db, c.var.userId!, id, c.req.valid("json"));
      await forgetPaywallPages(c.env, c.req.url, [id]);
      await forgetPublicContent(c.env, c.req.url, [id]);
      return c.json({ bump });
    },
  )
  .delete(
    "/content/:id/bump",
    doc({
      tag: "Items",
      summary: "Remove an item's order bump",
      access: "creator",
      ok: bumpAnswerSchema,
      errors: { 404: "No such item of yours" },
    }),
    requireUser,
    validate("param", idParam),
    async (c) => {
      const id = c.req.valid("param").id;
      const bump = await setBump(c.var.db, c.var.userId!, id, null);
      await forgetPaywallPages(c.env, c.req.url, [id]);
      await forgetPublicContent(c.env, c.req.url, [id]);
      return c.json({ bump });
    },
  );
