import { Hono } from "hono";
import { feedbackSchema } from "../../shared/feedback";
import { feedback } from "../db/schema";
import type { AppEnv } from "../middleware/context";
import { humanCheck } from "../lib/human-check";
import { newId } from "../lib/ids";
import { rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { doc } from "../openapi/describe";
import { createdIdSchema } from "../../shared/answers";

export const feedbackRoutes = new Hono<AppEnv>().post(
  "/feedback",
  doc({
    tag: "Feedback",
    summary: "Send feedback to the ApeWall team",
    access: "public",
    status: 201,
    ok: createdIdSchema,
    errors: {
      403: "The bot check refused the Turnstile token (`cf-turnstile-response`)",
      429: "Too many messages from this address",
    },
  }),
  rateLimit("FORMS_LIMITER", "feedback"),
  validate("json", feedbackSchema),
  humanCheck("feedback"),
  async (c) => {
    const input = c.req.valid("json");
    const id = newId();
    await c.var.db.insert(feedback).values({
      id,
      userId: c.var.userId,
      type: input.type,
      subject: input.subject,
      message: input.message,
      email: input.email || null,
      priority: input.priority,
    });
    return c.json({ id }, 201);
  },
);
