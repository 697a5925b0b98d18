// Checkout reminders: the per-item switch (the creator's), and unsubscribing from reminders through
// the signed link in each one (worker/services/purchases/recovery.ts). GET only shows the button, since mail
// scanners open links; POST records the address.
import { and, eq, isNull } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { content } from "../db/schema";
import { requireUser, type AppEnv } from "../middleware/context";
import { ApiError, notFound } from "../lib/errors";
import { escapeHtml, messagePage } from "../lib/html";
import { validate } from "../lib/validate";
import { doc } from "../openapi/describe";
import { emailOfUnsubscribeToken, unsubscribe } from "../services/purchases/recovery";
import { checkoutRemindersSchema } from "../../shared/content";

const tokenQuery = z.object({ token: z.string().max(600).optional() });
const idParam = z.object({ id: z.string().regex(/^[A-Za-z0-9]{1,32}$/, "invalid content id") });
const INVALID = messagePage(
  "This link is not valid",
  "<p>It may have been cut short. Open the newest reminder email and use its link.</p>",
);

async function emailOf(c: { env: AppEnv["Bindings"] }, token: string | undefined): Promise<string | null> {
  if (!token || !c.env.ACCESS_TOKEN_SECRET) return null;
  return emailOfUnsubscribeToken(c.env.ACCESS_TOKEN_SECRET, token);
}

export const recoveryRoutes = new Hono<AppEnv>()
  .put(
    "/content/:id/checkout-reminders",
    doc({
      tag: "Items",
      summary: "Turn checkout reminders on or off for an item",
      access: "creator",
      ok: checkoutRemindersSchema,
      errors: { 404: "No such item of yours" },
    }),
    requireUser,
    validate("param", idParam),
    validate("json", z.object({ enabled: z.boolean({ error: "enabled must be true or false" }) })),
    async (c) => {
      const enabled = c.req.valid("json").enabled;
      const [row] = await c.var.db
        .update(content)
        .set({ checkoutReminders: enabled })
        .where(
          and(eq(content.id, c.req.valid("param").id), eq(content.userId, c.var.userId!), isNull(content.deletedAt)),
        )
        .returning({ checkoutReminders: content.checkoutReminders });
      if (!row) throw notFound("Content Not Found");
      return c.json(row);
    },
  )
  .get(
    "/unsubscribe",
    doc({
      tag: "Checkout and access",
      summary: "Stop checkout reminders: the confirm page",
      description: "The link in each reminder email. Shows a button; nothing changes until it is pressed.",
      access: "public",
      ok: { html: "A page with 'Stop reminders'" },
    }),
    validate("query", tokenQuery),
    async (c) => {
      const token = c.req.valid("query").token;
      const email = await emailOf(c, token);
      if (!email) return c.html(INVALID, 400);
      return c.html(
        messagePage(
          "Stop checkout reminders?",
          `<p>We will send no more reminders about unfinished checkouts to <strong>${escapeHtml(email)}</strong>. Receipts and access links still arrive.</p>
<form method="post" action="/api/unsubscribe"><input type="hidden" name="token" value="${escapeHtml(token!)}"><button type="submit">Stop reminders</button></form>`,
        ),
      );
    },
  )
  .post(
    "/unsubscribe",
    doc({
      tag: "Checkout and access",
      summary: "Stop checkout reminders",
      description: "Honoured for good. Receipts still go.",
      access: "public",
      ok: { html: "You're unsubscribed" },
      body: {
        media: "application/x-www-form-urlencoded",
        description: "token: from the reminder's link",
        schema: z.object({ token: z.string().max(600) }),
      },
    }),
    async (c) => {
      let token: string | undefined;
      try {
        const form = await c.req.parseBody();
        token = typeof form.token === "string" ? form.token : undefined;
      } catch {
        throw new ApiError(400, "Expected a form with the link's token");
      }
      const email = await emailOf(c, token);
      if (!email) return c.html(INVALID, 400);
      await unsubscribe(c.env.DB, email);
      return c.html(
        messagePage(
          "You're unsubscribed",
          `<p>No more checkout reminders will go to <strong>${escapeHtml(email)}</strong>.</p><p><a href="/">Go to ApeWall</a></p>`,
        ),
      );
    },
  );
