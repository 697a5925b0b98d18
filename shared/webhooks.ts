// Outgoing webhooks (/settings → Developers): the closed set of event types, the endpoint
// form's rules (shared by the form and /api/developer/webhooks) and what those routes answer.
import { z } from "zod";
import { isoTime, publicId } from "./answers";

export const WEBHOOK_EVENT_TYPES = [
  "sale.completed",
  "sale.refunded",
  "sale.disputed",
  "upsell.accepted",
  "payout.paid",
  "payout.failed",
  "license.activated",
] as const;
const webhookEventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof webhookEventTypeSchema>;

export const WEBHOOK_EVENT_LABELS: Record<WebhookEventType, string> = {
  "sale.completed": "A sale is paid",
  "sale.refunded": "A sale is refunded",
  "sale.disputed": "A buyer disputes a sale",
  "upsell.accepted": "A buyer accepts an upsell",
  "payout.paid": "A payout is paid",
  "payout.failed": "A payout fails",
  "license.activated": "A license key is activated",
};

/**
 * What an event's payload lets its receiver read, as an API key scope: an endpoint is data flowing
 * out, so a key may subscribe an endpoint (or read its deliveries) only to events it could read
 * itself — `webhooks:write` alone never yields buyers' emails or payouts.
 */
export const WEBHOOK_EVENT_READ_SCOPE = {
  "sale.completed": "sales:read",
  "sale.refunded": "sales:read",
  "sale.disputed": "sales:read",
  "upsell.accepted": "sales:read",
  "license.activated": "sales:read",
  "payout.paid": "payouts:read",
  "payout.failed": "payouts:read",
} as const satisfies Record<WebhookEventType, string>;

export const MAX_WEBHOOK_ENDPOINTS = 10;
const MAX_WEBHOOK_DESCRIPTION_CHARS = 200;
const MAX_WEBHOOK_URL_CHARS = 2000;
/** Test events and resends, together, per creator per minute: each one makes a request to the endpoint. */
export const WEBHOOK_MANUAL_SENDS_PER_MINUTE = 10;

export const WEBHOOK_MESSAGES = {
  url: "Enter a valid URL",
  https: "The URL must start with https://",
  privateHost: "The URL must point to a public host, not a private, loopback or link-local address",
  events: "Choose at least one event",
  description: `Description must be at most ${MAX_WEBHOOK_DESCRIPTION_CHARS} characters`,
  tooMany: `You can have at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints. Delete one you no longer use first.`,
  notFound: "Webhook endpoint not found",
  deliveryNotFound: "Webhook delivery not found",
  disabledEndpoint: "This endpoint is disabled. Enable it again first.",
  tooManySends: `At most ${WEBHOOK_MANUAL_SENDS_PER_MINUTE} test events and resends a minute. Please wait a minute and try again.`,
  keyScope: (scope: string, event: string) => `This API key needs the ${scope} scope for ${event} events`,
} as const;

/**
 * Why `raw` may not be an endpoint in production (a message), or null. Only https, no credentials in
 * the URL, and never a host that could name this machine or a private network: every IP literal (v4
 * or v6 — private 10/8, 172.16/12, 192.168/16, loopback, link-local 169.254/16 where cloud metadata
 * lives, CGNAT 100.64/10, unique-local fc00::/7, v4-mapped v6… are written in too many ways to list
 * safely, and no public service needs one), and `localhost`, `*.localhost`, `*.local`, `*.internal`,
 * or a name without a dot.
 * This is a name check: a public name can still resolve (now, or after a rebinding) to a private
 * address. What stops that is where the request is made: a Worker's fetch() goes out through
 * Cloudflare's edge, which cannot reach private networks, loopback or the metadata service of any
 * machine of ours; this check keeps the obvious cases out of the list and out of the delivery log.
 * With `production` false (local runs and tests) http and 127.0.0.1 are allowed, so a test can listen.
 */
export function webhookUrlProblem(raw: string, production: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return WEBHOOK_MESSAGES.url;
  }
  if (url.username || url.password) return WEBHOOK_MESSAGES.url;
  if (!production) return url.protocol === "https:" || url.protocol === "http:" ? null : WEBHOOK_MESSAGES.https;
  if (url.protocol !== "https:") return WEBHOOK_MESSAGES.https;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (!host || host === "localhost" || /\.(localhost|local|internal)$/.test(host)) return WEBHOOK_MESSAGES.privateHost;
  if (host.startsWith("[")) return WEBHOOK_MESSAGES.privateHost; // every IPv6 literal: no public service needs one
  // The URL parser has already turned 0x7f.1, 2130706433 and 127.1 into dotted quads.
  if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return WEBHOOK_MESSAGES.privateHost;
  if (!/^[a-z0-9.-]+$/.test(host) || !host.includes(".")) return WEBHOOK_MESSAGES.privateHost;
  return null;
}

const descriptionSchema = z
  .string({ error: WEBHOOK_MESSAGES.description })
  .trim()
  .max(MAX_WEBHOOK_DESCRIPTION_CHARS, WEBHOOK_MESSAGES.description)
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), WEBHOOK_MESSAGES.description);

const eventsSchema = z
  .array(webhookEventTypeSchema, { error: WEBHOOK_MESSAGES.events })
  .min(1, WEBHOOK_MESSAGES.events)
  .max(WEBHOOK_EVENT_TYPES.length)
  .transform((s) => [...new Set(s)]);

/** The URL's shape; whether its host is allowed depends on the deployment (webhookUrlProblem). */
const urlSchema = z
  .string({ error: WEBHOOK_MESSAGES.url })
  .trim()
  .min(1, WEBHOOK_MESSAGES.url)
  .max(MAX_WEBHOOK_URL_CHARS, WEBHOOK_MESSAGES.url)
  .refine((v) => URL.canParse(v), WEBHOOK_MESSAGES.url);

export const createWebhookEndpointSchema = z.object({
  url: urlSchema,
  events: eventsSchema,
  description: descriptionSchema.optional().default(""),
});

/** PATCH: any of the fields; `status: "active"` enables a disabled endpoint again. */
export const updateWebhookEndpointSchema = z.object({
  url: urlSchema.optional(),
  events: eventsSchema.optional(),
  description: descriptionSchema.optional(),
  status: z.enum(["active", "disabled"]).optional(),
});

export const webhookEndpointParamSchema = z.object({ id: z.string().min(1).max(40) });
export const webhookDeliveryParamSchema = z.object({
  id: z.string().min(1).max(40),
  deliveryId: z.string().min(1).max(60),
});
export const webhookDeliveriesQuerySchema = z.object({
  /** The `nextBefore` of the previous page: `{created ms}:{delivery id}`. */
  before: z
    .string()
    .max(80)
    .regex(/^\d{1,15}:[A-Za-z0-9_]{1,60}$/, "before: not a page cursor")
    .optional(),
  limit: z.coerce.number().int().min(1).max(50).optional().default(20),
});

export const webhookEndpointSchema = z.object({
  id: publicId,
  url: z.string(),
  description: z.string(),
  events: z.array(webhookEventTypeSchema),
  status: z.enum(["active", "disabled"]),
  disabledReason: z.string().nullable(),
  failingSince: isoTime.nullable(),
  createdAt: isoTime,
});
export type WebhookEndpoint = z.infer<typeof webhookEndpointSchema>;
export const webhookEndpointListSchema = z.object({ endpoints: z.array(webhookEndpointSchema) });
export const webhookSecretSchema = z.object({
  secret: z.string().meta({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
});

const webhookAttemptSchema = z.object({
  id: publicId,
  status: z.number().int().nullable(),
  /** Why the attempt failed, when no answer (or not the receiver's) came back: one of the causes in `cause`. */
  error: z.string().nullable(),
  cause: z.string().meta({
    description:
      'What happened, in words: "Answered 200", "Answered 500", "Timed out after 10 s", "Could not resolve host", "Connection refused or closed", "Could not connect", or "Not sent: …" (an address this deployment may not call)',
    example: "Answered 500",
  }),
  responseExcerpt: z.string().nullable(),
  durationMs: z.number(),
  at: isoTime,
});
export type WebhookAttempt = z.infer<typeof webhookAttemptSchema>;

export const webhookDeliverySchema = z.object({
  id: z.string().meta({ description: "The Standard Webhooks `webhook-id`, the same on every retry" }),
  type: z.string(),
  status: z.enum(["pending", "delivered", "failed", "disabled"]),
  attempts: z.number().int(),
  nextAttemptAt: isoTime.nullable(),
  lastStatus: z.number().int().nullable(),
  lastResponseExcerpt: z.string().nullable(),
  lastAttemptAt: isoTime.nullable(),
  createdAt: isoTime,
  payload: z.unknown(),
  log: z.array(webhookAttemptSchema),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;

/** GET deliveries: newest first; `nextBefore` is the `before` of the next page, null at the end. */
export const webhookDeliveryPageSchema = z.object({
  deliveries: z.array(webhookDeliverySchema),
  nextBefore: z.string().nullable(),
});
export type WebhookDeliveryPage = z.infer<typeof webhookDeliveryPageSchema>;

// ---- what the sale events carry (docs/api-and-webhooks.md; the OpenAPI document's `webhooks`) ----

const cents = z.number().int().meta({ description: "Integer cents, in `currency`" });

/** A sale's tax in cents: null on a sale without tax (docs/tax.md). */
const saleWebhookTaxSchema = z
  .object({
    amountCents: cents.meta({ description: "The tax in what the buyer paid" }),
    netCents: cents.meta({ description: "The price without tax" }),
    type: z.string().nullable().meta({ example: "vat" }),
    rate: z.string().nullable().meta({ description: "Percent", example: "20" }),
    country: z.string().nullable().meta({ example: "FR" }),
    region: z.string().nullable().meta({ description: "US state or Canadian province", example: null }),
    reverseCharge: z.boolean(),
  })
  .nullable();

/** `data` of sale.completed; sale.refunded, sale.disputed and upsell.accepted add their own fields to it. */
const saleWebhookDataSchema = z.object({
  purchaseId: z.string(),
  orderId: z.string().meta({ description: "The first purchase of the buyer's order" }),
  itemId: z.string(),
  itemTitle: z.string().nullable(),
  amountCents: cents.meta({ description: "What the buyer paid, tax included" }),
  currency: z.string().meta({ example: "usd" }),
  taxCents: cents.meta({ description: "Of which tax" }),
  tax: saleWebhookTaxSchema,
  buyerEmail: z.string().nullable(),
});
const saleCompletedDataSchema = saleWebhookDataSchema.extend({
  netCents: cents.meta({ description: "What the sale books for the creator" }),
  feeCents: cents.meta({ description: "ApeWall's fee, on the price without tax" }),
});

/** The sale events' `data`, by type, as the OpenAPI document's `webhooks` shows them. */
export const SALE_WEBHOOK_DATA = {
  "sale.completed": saleCompletedDataSchema,
  "upsell.accepted": saleCompletedDataSchema.extend({
    parentPurchaseId: z.string(),
    funnelId: z.string().nullable(),
    stepId: z.string().nullable(),
  }),
  "sale.refunded": saleWebhookDataSchema.extend({
    refundId: z.string(),
    refundStatus: z.string(),
    refundedCents: cents,
    totalRefundedCents: cents,
    accessEnded: z.boolean(),
  }),
  "sale.disputed": saleWebhookDataSchema.extend({
    disputeId: z.string(),
    disputedCents: cents,
    reason: z.string(),
    disputeStatus: z.string(),
  }),
} as const;
