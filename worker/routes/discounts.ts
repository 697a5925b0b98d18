// Discount codes: the creator's list, create and archive (owner-checked), and the public quote a
// paywall or checkout shows for a code (worker/services/discounts.ts).
import { Hono } from "hono";
import { z } from "zod";
import {
  createDiscountSchema,
  discountIdParam,
  discountCodeSchema,
  discountQuoteSchema,
  discountCodeListSchema,
} from "../../shared/discounts";
import { readNearby } from "../db/client";
import { requireUser, type AppEnv } from "../middleware/context";
import { notFound } from "../lib/errors";
import { rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { doc } from "../openapi/describe";
import { archiveCode, createCode, listCodes, quote } from "../services/discounts";
import { content } from "../db/schema";
import { eq } from "drizzle-orm";

const itemParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid content id") });
const codeQuery = z.object({ code: z.string().max(60) });

export const discountRoutes = new Hono<AppEnv>()
  .get(
    "/discounts",
    doc({
      tag: "Discount codes",
      summary: "The creator's discount codes with their uses",
      access: "creator",
      ok: discountCodeListSchema,
    }),
    requireUser,
    async (c) => c.json(await listCodes(c.env.DB, c.var.userId!)),
  )
  .post(
    "/discounts",
    doc({
      tag: "Discount codes",
      summary: "Create a discount code",
      access: "creator",
      status: 201,
      ok: discountCodeSchema,
      errors: { 404: "No such item of yours", 409: "A code with this name exists, or you have 200 codes" },
    }),
    requireUser,
    validate("json", createDiscountSchema),
    async (c) => c.json(await createCode(c.env.DB, c.var.userId!, c.req.valid("json")), 201),
  )
  .post(
    "/discounts/:id/archive",
    doc({
      tag: "Discount codes",
      summary: "End a discount code",
      description: "It no longer applies; its sales keep it.",
      access: "creator",
      ok: discountCodeSchema,
      errors: { 404: "No such code of yours" },
    }),
    requireUser,
    validate("param", discountIdParam),
    async (c) => c.json(await archiveCode(c.env.DB, c.var.userId!, c.req.valid("param").id)),
  )
  .get(
    "/content/:id/discount",
    doc({
      tag: "Discount codes",
      summary: "What a code makes of an item's price",
      description: "The price checkout will charge with the code.",
      access: "public",
      ok: discountQuoteSchema,
      errors: { 404: "No such item", 429: "Too many requests from this address" },
    }),
    rateLimit("CHECKOUT_LIMITER", "discount"),
    validate("param", itemParam),
    validate("query", codeQuery),
    async (c) => {
      const id = c.req.valid("param").id;
      const item = await readNearby(c.env.DB, (db) => db.select().from(content).where(eq(content.id, id)).get());
      if (!item || item.deletedAt) throw notFound("Content Not Found");
      return c.json(await quote(c.env.DB, item, c.req.valid("query").code));
    },
  );
