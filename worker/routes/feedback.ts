import { Hono } from "hono";
import { type FeedbackInput, feedbackSchema } from "../../shared/feedback";
import type { Db } from "../db/client";
import { feedback } from "../db/schema";
import type { AppEnv } from "../middleware/context";
import { humanCheck } from "../lib/human-check";
import { newId } from "../lib/ids";
import { rateLimit } from "../lib/rate-limit";
import { validate } from "../lib/validate";
import { doc } from "../openapi/describe";
import { createdIdSchema } from "../../shared/answers";

/** Keeps one message (the API's route and the page's form post, worker/routes/site-feedback.tsx); its id. */
export async function storeFeedback(db: Db, userId: string | null, input: FeedbackInput): Promise<string> {
  const id = newId();
  await db.insert(feedback).values({
    id,
    userId,
    type: input.type,
    subject: input.subject,
    message: input.message,
    email: input.email || null,
    priority: input.priority,
  });
  return id;
}

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
    const id = await storeFeedback(c.var.db, c.var.userId, c.req.valid("json"));
    return c.json({ id }, 201);
  },
);
