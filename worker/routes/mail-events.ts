// The mail provider's delivery events (Resend's webhooks, signed by Svix in the Standard Webhooks
// format): verified on the raw body, then recorded once per event id (worker/services/mail/mail-events.ts).
// An event we cannot use (another type, an email we never sent) is acknowledged, so it is not retried.
// Behaviour: docs/payments.md ("Receipts and emails").
import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { mailEventAnswerSchema, mailEventBodySchema } from "../../shared/mail";
import type { Bindings } from "../lib/env";
import { isDevelopment } from "../lib/env";
import { ApiError } from "../lib/errors";
import { validate } from "../lib/validate";
import type { AppEnv } from "../middleware/context";
import { doc } from "../openapi/describe";
import { isMailEventType, mailEventId, recordMailEvent, verifyMailWebhook } from "../services/mail/mail-events";

/** Local runs may leave MAIL_WEBHOOK_SECRET unset (an older .dev.vars); every other deployment must set it. */
export const LOCAL_MAIL_WEBHOOK_SECRET = `whsec_${btoa("apewall-local-mail-webhooks-secret")}`;

const mailWebhookSecret = (env: Bindings) =>
  env.MAIL_WEBHOOK_SECRET || (isDevelopment(env) ? LOCAL_MAIL_WEBHOOK_SECRET : null);

/** Nothing past this is read unless it is signed with the endpoint's secret. */
const signed = createMiddleware<AppEnv>(async (c, next) => {
  const secret = mailWebhookSecret(c.env);
  if (!secret) {
    console.error("MAIL_WEBHOOK_SECRET is not set: mail delivery events cannot be verified");
    throw new ApiError(503, "Mail delivery events are not configured on this deployment");
  }
  const header = (name: string) => c.req.header(name);
  const id = mailEventId(header);
  if (!id || id.length > 255 || !verifyMailWebhook(secret, await c.req.text(), header))
    throw new ApiError(401, "Invalid webhook signature");
  await next();
});

/** How long an event naming an email we have no record of is refused (and so retried by the provider). */
const UNKNOWN_RETRY_MS = 60 * 60 * 1000;

export const mailEventRoutes = new Hono<AppEnv>().post(
  "/webhooks/mail",
  doc({
    tag: "Checkout and access",
    summary: "The mail provider's delivery events (Resend webhooks)",
    description:
      "Signed by Svix in the Standard Webhooks format (`svix-id`, `svix-timestamp`, `svix-signature`, or the `webhook-*` names) with MAIL_WEBHOOK_SECRET; a timestamp more than 5 minutes off is refused. `email.sent`, `email.delivered`, `email.delivery_delayed`, `email.bounced`, `email.complained`, `email.failed` and `email.suppressed` (the last two read as Bounced) move the email's state; each event id is recorded once (a repeat answers 200 and changes nothing); another type is acknowledged and ignored; an email this app has no record of is refused with 409 for an hour after the event (so the provider retries an event that outran our record of the email), then acknowledged.",
    access: "public",
    ok: mailEventAnswerSchema,
    errors: {
      401: "The signature is missing, wrong, or its timestamp is more than 5 minutes off: nothing is recorded",
      409: "The email it names is not recorded yet (the event outran it): the provider retries",
      503: "MAIL_WEBHOOK_SECRET is not set on this deployment",
    },
  }),
  signed,
  validate("json", mailEventBodySchema),
  async (c) => {
    const body = c.req.valid("json");
    const messageId = body.data.email_id;
    if (!isMailEventType(body.type) || !messageId)
      return c.json({ received: true as const, outcome: "ignored" as const });
    const occurredAt = body.created_at ? Date.parse(body.created_at) : Number.NaN;
    const outcome = await recordMailEvent(c.env.DB, {
      id: mailEventId((name) => c.req.header(name)),
      type: body.type,
      messageId,
      occurredAt: Number.isFinite(occurredAt) ? occurredAt : null,
      bounceReason:
        (body.data.bounce?.message ?? body.data.suppressed?.message ?? body.data.failed?.reason)?.slice(0, 500) ?? null,
    });
    // An event can outrun the consumer's record of the email it names (the provider answers before we
    // write the id down). A recent one is refused so the provider sends it again; an old one is another
    // system's, or of an email already purged, and is acknowledged.
    if (
      outcome === "unknown" &&
      Date.now() - (Number.isFinite(occurredAt) ? occurredAt : Date.now()) < UNKNOWN_RETRY_MS
    )
      throw new ApiError(409, "No email with this id is recorded yet; send the event again later.");
    return c.json({ received: true as const, outcome });
  },
);
