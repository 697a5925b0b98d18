// A creator's webhook endpoints and their delivery log, as /api/developer/webhooks offers them
// (routes/webhooks.ts): every query names the owner. Delivery itself is ./delivery.ts;
// behaviour: docs/api-and-webhooks.md.
import {
  MAX_WEBHOOK_ENDPOINTS,
  WEBHOOK_MESSAGES,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookDeliveryPage,
  type WebhookEndpoint,
  type WebhookEventType,
} from "../../../shared/webhooks";
import { ApiError, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { attemptCause } from "./cause";
import { claimManualSend } from "./limits";
import { sealIfPlain, type SecretBox } from "./secrets";
import { handOver, newWebhookSecret, type DeliveryRow } from "./delivery";

type EndpointRow = {
  id: string;
  url: string;
  description: string;
  events: string;
  status: "active" | "disabled";
  disabled_reason: string | null;
  failing_since: number | null;
  created_at: number;
};
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const endpointOf = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  description: r.description,
  events: JSON.parse(r.events) as WebhookEventType[],
  status: r.status,
  disabledReason: r.disabled_reason,
  failingSince: iso(r.failing_since),
  createdAt: iso(r.created_at)!,
});
const ENDPOINT_COLUMNS = "id, url, description, events, status, disabled_reason, failing_since, created_at";

export async function listEndpoints(d1: D1Database, userId: string): Promise<WebhookEndpoint[]> {
  const { results } = await d1
    .prepare(`select ${ENDPOINT_COLUMNS} from webhook_endpoints where user_id = ? order by created_at, id`)
    .bind(userId)
    .all<EndpointRow>();
  return results.map(endpointOf);
}

async function endpointFor(d1: D1Database, userId: string, id: string): Promise<WebhookEndpoint> {
  const row = await d1
    .prepare(`select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = ? and user_id = ?`)
    .bind(id, userId)
    .first<EndpointRow>();
  if (!row) throw notFound(WEBHOOK_MESSAGES.notFound);
  return endpointOf(row);
}

/** The events an endpoint of this creator subscribes (404 for someone else's). */
export async function endpointEvents(d1: D1Database, userId: string, id: string): Promise<WebhookEventType[]> {
  return (await endpointFor(d1, userId, id)).events;
}

/** At most MAX_WEBHOOK_ENDPOINTS per creator, counted inside the INSERT. */
export async function createEndpoint(
  d1: D1Database,
  secrets: SecretBox,
  userId: string,
  input: { url: string; events: WebhookEventType[]; description: string },
  now = Date.now(),
): Promise<WebhookEndpoint> {
  const id = newId();
  const res = await d1
    .prepare(
      `insert into webhook_endpoints (id, user_id, url, description, events, secret, status, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6, 'active', ?7 where (select count(*) from webhook_endpoints where user_id = ?2) < ?8`,
    )
    .bind(
      id,
      userId,
      input.url,
      input.description,
      JSON.stringify(input.events),
      await secrets.seal(newWebhookSecret(), id),
      now,
      MAX_WEBHOOK_ENDPOINTS,
    )
    .run();
  if (!res.meta.changes) throw new ApiError(409, WEBHOOK_MESSAGES.tooMany);
  return endpointFor(d1, userId, id);
}

/** Changes what is given; enabling again clears the failing streak and the reason. */
export async function updateEndpoint(
  d1: D1Database,
  userId: string,
  id: string,
  input: { url?: string; events?: WebhookEventType[]; description?: string; status?: "active" | "disabled" },
): Promise<WebhookEndpoint> {
  const res = await d1
    .prepare(
      `update webhook_endpoints set url = coalesce(?3, url), events = coalesce(?4, events), description = coalesce(?5, description),
         status = coalesce(?6, status),
         disabled_reason = case when ?6 = 'active' then null when ?6 = 'disabled' and status = 'active' then 'Disabled by you' else disabled_reason end,
         failing_since = case when ?6 = 'active' and status = 'disabled' then null else failing_since end
       where id = ?1 and user_id = ?2`,
    )
    .bind(
      id,
      userId,
      input.url ?? null,
      input.events ? JSON.stringify(input.events) : null,
      input.description ?? null,
      input.status ?? null,
    )
    .run();
  if (!res.meta.changes) throw notFound(WEBHOOK_MESSAGES.notFound);
  return endpointFor(d1, userId, id);
}

export async function deleteEndpoint(d1: D1Database, userId: string, id: string): Promise<void> {
  const res = await d1.prepare("delete from webhook_endpoints where id = ? and user_id = ?").bind(id, userId).run();
  if (!res.meta.changes) throw notFound(WEBHOOK_MESSAGES.notFound);
}

/** The signing secret, to its owner only; `rotate` replaces it first (messages already queued are signed with the new one). */
export async function endpointSecret(
  d1: D1Database,
  secrets: SecretBox,
  userId: string,
  id: string,
  rotate: boolean,
): Promise<{ secret: string }> {
  const row = rotate
    ? await d1
        .prepare("update webhook_endpoints set secret = ? where id = ? and user_id = ? returning secret")
        .bind(await secrets.seal(newWebhookSecret(), id), id, userId)
        .first<{ secret: string }>()
    : await d1
        .prepare("select secret from webhook_endpoints where id = ? and user_id = ?")
        .bind(id, userId)
        .first<{ secret: string }>();
  if (!row) throw notFound(WEBHOOK_MESSAGES.notFound);
  const secret = await secrets.open(row.secret, id);
  await sealIfPlain(d1, secrets, id, row.secret);
  return { secret };
}

const manualSendOrThrow = async (d1: D1Database, userId: string, kind: "test" | "resend", now: number) => {
  if (!(await claimManualSend(d1, userId, kind, now))) throw new ApiError(429, WEBHOOK_MESSAGES.tooManySends);
};

/** A `test.event` message to one endpoint, whatever it subscribes to; each press is a new message. */
export async function sendTestEvent(
  d1: D1Database,
  queue: Queue,
  userId: string,
  id: string,
  now = Date.now(),
): Promise<WebhookDelivery> {
  const endpoint = await endpointFor(d1, userId, id);
  if (endpoint.status !== "active") throw new ApiError(409, WEBHOOK_MESSAGES.disabledEndpoint);
  await manualSendOrThrow(d1, userId, "test", now);
  const deliveryId = `msg_${newId(24)}`;
  const payload = JSON.stringify({
    type: "test.event",
    timestamp: new Date(now).toISOString(),
    data: { message: "This is a test event from ApeWall.", endpointId: id },
  });
  await d1
    .prepare(
      `insert into webhook_deliveries (id, endpoint_id, user_id, event_key, type, payload, status, attempts, next_attempt_at, created_at)
       values (?1, ?2, ?3, 'test:' || ?1, 'test.event', ?4, 'pending', 0, ?5, ?5)`,
    )
    .bind(deliveryId, id, userId, payload, now)
    .run();
  await handOver(queue, [{ id: deliveryId, next_attempt_at: now }], now);
  return deliveryOf(
    (await d1.prepare("select * from webhook_deliveries where id = ?").bind(deliveryId).first<DeliveryRow>())!,
    [],
  );
}

/** Sends a delivery again now, under the same webhook-id, with a new three-day window. */
export async function resendDelivery(
  d1: D1Database,
  queue: Queue,
  userId: string,
  endpointId: string,
  deliveryId: string,
  now = Date.now(),
): Promise<void> {
  const endpoint = await endpointFor(d1, userId, endpointId);
  const owned = await d1
    .prepare("select 1 from webhook_deliveries where id = ? and endpoint_id = ? and user_id = ?")
    .bind(deliveryId, endpointId, userId)
    .first();
  if (!owned) throw notFound(WEBHOOK_MESSAGES.deliveryNotFound);
  if (endpoint.status !== "active") throw new ApiError(409, WEBHOOK_MESSAGES.disabledEndpoint);
  await manualSendOrThrow(d1, userId, "resend", now);
  await d1
    .prepare(
      "update webhook_deliveries set status = 'pending', next_attempt_at = ?1, first_attempt_at = null where id = ?2 and endpoint_id = ?3 and user_id = ?4",
    )
    .bind(now, deliveryId, endpointId, userId)
    .run();
  await handOver(queue, [{ id: deliveryId, next_attempt_at: now }], now);
}

const deliveryOf = (r: DeliveryRow, log: WebhookAttempt[]): WebhookDelivery => ({
  id: r.id,
  type: r.type,
  status: r.status,
  attempts: r.attempts,
  nextAttemptAt: r.status === "pending" ? iso(r.next_attempt_at) : null,
  lastStatus: r.last_status,
  // With no status, the column holds why the attempt failed: in words, as the log shows it.
  lastResponseExcerpt:
    r.last_status === null && r.last_response_excerpt !== null
      ? attemptCause(null, r.last_response_excerpt)
      : r.last_response_excerpt,
  lastAttemptAt: iso(r.last_attempt_at),
  createdAt: iso(r.created_at)!,
  payload: JSON.parse(r.payload),
  log,
});

/** An endpoint's deliveries, newest first, `limit` a page, each with its attempts (newest first). */
export async function listDeliveries(
  d1: D1Database,
  userId: string,
  endpointId: string,
  page: { before?: string; limit: number },
): Promise<WebhookDeliveryPage> {
  await endpointFor(d1, userId, endpointId);
  // The cursor is (created_at, id): one batch can write two events for an endpoint in the same ms.
  const [beforeAt, beforeId] = page.before
    ? [Number(page.before.split(":")[0]), page.before.split(":")[1]]
    : [Number.MAX_SAFE_INTEGER, ""];
  const { results } = await d1
    .prepare(
      `select * from webhook_deliveries where endpoint_id = ?1 and user_id = ?2 and (created_at < ?3 or (created_at = ?3 and id < ?4))
       order by created_at desc, id desc limit ?5`,
    )
    .bind(endpointId, userId, beforeAt, beforeId, page.limit + 1)
    .all<DeliveryRow>();
  const shown = results.slice(0, page.limit);
  const { results: attempts } = shown.length
    ? await d1
        .prepare(
          "select id, delivery_id, status, error, response_excerpt, duration_ms, at from webhook_attempts where delivery_id in (select value from json_each(?)) order by at desc, id",
        )
        .bind(JSON.stringify(shown.map((d) => d.id)))
        .all<{
          id: string;
          delivery_id: string;
          status: number | null;
          error: string | null;
          response_excerpt: string | null;
          duration_ms: number;
          at: number;
        }>()
    : { results: [] };
  const logOf = (id: string) =>
    attempts
      .filter((a) => a.delivery_id === id)
      .map((a) => ({
        id: a.id,
        status: a.status,
        error: a.error === null ? null : attemptCause(a.status, a.error),
        cause: attemptCause(a.status, a.error),
        responseExcerpt: a.response_excerpt,
        durationMs: a.duration_ms,
        at: iso(a.at)!,
      }));
  return {
    deliveries: shown.map((d) => deliveryOf(d, logOf(d.id))),
    nextBefore:
      results.length > page.limit ? `${shown[shown.length - 1].created_at}:${shown[shown.length - 1].id}` : null,
  };
}
