// /api/developer/webhooks: a creator's outgoing webhook endpoints, their deliveries, resend and a test
// event (worker/services/webhooks/delivery.ts). A signed-in session, or an API key with `webhooks:write`
// (api-key-scopes.ts). Every query names the owner. URLs pass endpointUrlProblem for the deployment:
// https and public hosts everywhere but APP_ENV=development (SSRF; see shared/webhooks.ts). Test
// events and resends are limited per creator (429 with Retry-After).
import { Hono } from "hono";
import {
  createWebhookEndpointSchema,
  updateWebhookEndpointSchema,
  webhookDeliveriesQuerySchema,
  webhookDeliveryParamSchema,
  webhookEndpointParamSchema,
  WEBHOOK_EVENT_READ_SCOPE,
  WEBHOOK_MESSAGES,
  type WebhookEventType,
  webhookDeliveryPageSchema,
  webhookDeliverySchema,
  webhookEndpointListSchema,
  webhookEndpointSchema,
  webhookSecretSchema,
} from "../../shared/webhooks";
import { requireUser, type AppEnv, type Caller } from "../middleware/context";
import { ApiError } from "../lib/errors";
import { validate } from "../lib/validate";
import {
  createEndpoint,
  deleteEndpoint,
  endpointEvents,
  endpointSecret,
  listDeliveries,
  listEndpoints,
  resendDelivery,
  sendTestEvent,
  updateEndpoint,
} from "../services/webhooks/endpoints";
import { endpointUrlProblem } from "../services/webhooks/delivery";
import { secretBox } from "../services/webhooks/secrets";
import { doc } from "../openapi/describe";
import { deletedSchema, resentSchema } from "../../shared/answers";

/**
 * A key (not a session) may only touch endpoints whose events it could read itself: the events it
 * subscribes, and those of the endpoint it works on (its deliveries hold their payloads). 403 naming
 * the missing scope.
 */
async function keyMayUse(
  c: { var: { caller: Caller; userId: string }; env: { DB: D1Database } },
  events: readonly WebhookEventType[] | undefined,
  endpointId?: string,
) {
  const caller = c.var.caller;
  if (caller?.kind !== "key") return;
  const all = [...(events ?? [])];
  if (endpointId) all.push(...(await endpointEvents(c.env.DB, c.var.userId, endpointId)));
  for (const event of all) {
    const scope = WEBHOOK_EVENT_READ_SCOPE[event];
    if (!caller.scopes.includes(scope)) throw new ApiError(403, WEBHOOK_MESSAGES.keyScope(scope, event));
  }
}

const checkUrl = (url: string | undefined, appEnv: string | undefined) => {
  const problem = url === undefined ? null : endpointUrlProblem(url, appEnv);
  if (problem) throw new ApiError(400, `url: ${problem}`);
};

/** A 429 from the manual-send limit says when to try again. */
const withRetryAfter = <T>(c: { header: (name: string, value: string) => void }, work: Promise<T>) =>
  work.catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 429) c.header("retry-after", "60");
    throw err;
  });

export const webhookRoutes = new Hono<AppEnv>()
  .get(
    "/developer/webhooks",
    doc({ tag: "Developers", summary: "Webhook endpoints", access: "creator", ok: webhookEndpointListSchema }),
    requireUser,
    async (c) => c.json({ endpoints: await listEndpoints(c.env.DB, c.var.userId) }),
  )
  .post(
    "/developer/webhooks",
    doc({
      tag: "Developers",
      summary: "Add a webhook endpoint",
      access: "creator",
      status: 201,
      ok: webhookEndpointSchema,
      errors: { 409: "At most 10 endpoints" },
    }),
    requireUser,
    validate("json", createWebhookEndpointSchema),
    async (c) => {
      const input = c.req.valid("json");
      checkUrl(input.url, c.env.APP_ENV);
      await keyMayUse(c, input.events);
      return c.json(await createEndpoint(c.env.DB, secretBox(c.env), c.var.userId, input), 201);
    },
  )
  .patch(
    "/developer/webhooks/:id",
    doc({
      tag: "Developers",
      summary: "Edit an endpoint, or enable it again",
      access: "creator",
      ok: webhookEndpointSchema,
      errors: { 404: "No such endpoint of yours" },
    }),
    requireUser,
    validate("param", webhookEndpointParamSchema),
    validate("json", updateWebhookEndpointSchema),
    async (c) => {
      const input = c.req.valid("json");
      checkUrl(input.url, c.env.APP_ENV);
      await keyMayUse(c, input.events, c.req.valid("param").id);
      return c.json(await updateEndpoint(c.env.DB, c.var.userId, c.req.valid("param").id, input));
    },
  )
  .delete(
    "/developer/webhooks/:id",
    doc({
      tag: "Developers",
      summary: "Delete an endpoint",
      access: "creator",
      ok: deletedSchema,
      errors: { 404: "No such endpoint of yours" },
    }),
    requireUser,
    validate("param", webhookEndpointParamSchema),
    async (c) => {
      await deleteEndpoint(c.env.DB, c.var.userId, c.req.valid("param").id);
      return c.json({ deleted: true });
    },
  )
  // The signing secret is read on demand (GET) and replaced by POST (rotate): never in a list.
  .get(
    "/developer/webhooks/:id/secret",
    doc({
      tag: "Developers",
      summary: "An endpoint's signing secret",
      access: "creator",
      ok: webhookSecretSchema,
      errors: { 404: "No such endpoint of yours" },
    }),
    requireUser,
    validate("param", webhookEndpointParamSchema),
    async (c) => {
      await keyMayUse(c, [], c.req.valid("param").id);
      c.header("cache-control", "no-store");
      return c.json(await endpointSecret(c.env.DB, secretBox(c.env), c.var.userId, c.req.valid("param").id, false));
    },
  )
  .post(
    "/developer/webhooks/:id/secret",
    doc({
      tag: "Developers",
      summary: "Rotate an endpoint's signing secret",
      access: "creator",
      ok: webhookSecretSchema,
      errors: { 404: "No such endpoint of yours" },
    }),
    requireUser,
    validate("param", webhookEndpointParamSchema),
    async (c) => {
      await keyMayUse(c, [], c.req.valid("param").id);
      c.header("cache-control", "no-store");
      return c.json(await endpointSecret(c.env.DB, secretBox(c.env), c.var.userId, c.req.valid("param").id, true));
    },
  )
  .post(
    "/developer/webhooks/:id/test",
    doc({
      tag: "Developers",
      summary: "Send a test event",
      access: "creator",
      status: 201,
      ok: webhookDeliverySchema,
      errors: {
        404: "No such endpoint of yours",
        409: "The endpoint is disabled",
        429: "Too many test events and resends this minute",
      },
    }),
    requireUser,
    validate("param", webhookEndpointParamSchema),
    async (c) => {
      await keyMayUse(c, [], c.req.valid("param").id);
      return c.json(
        await withRetryAfter(c, sendTestEvent(c.env.DB, c.env.WEBHOOKS, c.var.userId, c.req.valid("param").id)),
        201,
      );
    },
  )
  .get(
    "/developer/webhooks/:id/deliveries",
    doc({
      tag: "Developers",
      summary: "An endpoint's deliveries and each attempt",
      access: "creator",
      ok: webhookDeliveryPageSchema,
      errors: { 404: "No such endpoint of yours" },
    }),
    requireUser,
    validate("param", webhookEndpointParamSchema),
    validate("query", webhookDeliveriesQuerySchema),
    async (c) => {
      await keyMayUse(c, [], c.req.valid("param").id);
      return c.json(await listDeliveries(c.env.DB, c.var.userId, c.req.valid("param").id, c.req.valid("query")));
    },
  )
  .post(
    "/developer/webhooks/:id/deliveries/:deliveryId/resend",
    doc({
      tag: "Developers",
      summary: "Resend a delivery (same webhook-id)",
      access: "creator",
      status: 202,
      ok: resentSchema,
      errors: {
        404: "No such delivery of yours",
        409: "The endpoint is disabled",
        429: "Too many test events and resends this minute",
      },
    }),
    requireUser,
    validate("param", webhookDeliveryParamSchema),
    async (c) => {
      const { id, deliveryId } = c.req.valid("param");
      await keyMayUse(c, [], id);
      await withRetryAfter(c, resendDelivery(c.env.DB, c.env.WEBHOOKS, c.var.userId, id, deliveryId));
      return c.json({ resent: true }, 202);
    },
  );
