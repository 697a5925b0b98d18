// Creators' outgoing webhooks (issue 18): endpoints, and one signed Standard Webhooks message per
// endpoint and event, delivered through the WEBHOOKS queue. The same outbox design as email
// (./mail/email-outbox.ts), step by step, each safe to repeat:
// 1. write: the change that causes an event (fulfil's batch, settleCharge's effect batch, a payout's
//    status change) adds `webhookStatements(...)` to its own D1 batch: an INSERT … SELECT over the
//    creator's active endpoints subscribed to the type, one row per endpoint, only if `guard` holds
//    (the change happened in this batch). (endpoint_id, event_key) is unique, so a repeated batch
//    writes nothing. The row's id is the message's `webhook-id`, the same on every attempt.
// 2. hand over: after the batch, `dispatchWebhooks` sends the new rows' ids to the queue, best effort.
// 3. deliver: the consumer claims the row (moves next_attempt_at forward as a lease, only if due and
//    pending: a duplicate message finds nothing to claim), signs, POSTs with a 10 s timeout and no
//    redirects, and records the attempt, the row's next state and the endpoint's failing streak in
//    one batch. A failure is tried again on the backoff below, by a queue message sent with that
//    delay (not a polling loop), until three days after the first attempt; then it has failed.
// 4. disable: an endpoint whose every attempt failed for three days (failing_since) is disabled, and
//    the creator's email is written in that same batch, keyed by the streak.
// 5. sweep: every 5 minutes the cron hands over again pending rows overdue by 5 minutes (a lost
//    hand-over or retry message, a consumer that died while holding its lease).
// Fail closed: an endpoint's address is checked when saved and again before each attempt, with
// production's rules everywhere but APP_ENV=development; signing secrets are stored encrypted
// (./webhook-secrets.ts); test events and resends are limited and deliveries kept 30 days
// (./webhook-limits.ts).
import { Webhook } from "standardwebhooks";
import { MAX_WEBHOOK_ENDPOINTS, WEBHOOK_MESSAGES, webhookUrlProblem, type WebhookAttempt, type WebhookDelivery, type WebhookDeliveryPage, type WebhookEndpoint, type WebhookEventType } from "../../shared/webhooks";
import { ApiError, notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import { dispatch as dispatchEmails, outboxInsert } from "./mail/email-outbox";
import { claimManualSend } from "./webhook-limits";
import { sealIfPlain, type SecretBox } from "./webhook-secrets";

/**
 * Why `url` may not receive webhooks on this deployment, or null. Loopback and private targets (and
 * plain http) only where APP_ENV is exactly "development": a missing or unknown APP_ENV gets
 * production's rules.
 */
export const endpointUrlProblem = (url: string, appEnv: string | undefined) => webhookUrlProblem(url, appEnv !== "development");

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_RETRY_WINDOW_MS = 3 * 24 * 3600 * 1000;
/** Seconds to wait after the n-th failed attempt (then every 12 hours, Queues' longest delay). */
export const WEBHOOK_BACKOFF_SECONDS = [60, 300, 1800, 7200, 18000, 36000];
const MAX_DELAY_SECONDS = 12 * 3600;
/** An attempt holds its row this long; a consumer that died is replaced by the sweep after it. */
const LEASE_MS = 2 * 60 * 1000;
export const WEBHOOK_SWEEP_AFTER_MS = 5 * 60 * 1000;
const EXCERPT_CHARS = 500;
const SWEEP_LIMIT = 200;

/** What the queue carries: the row, and when that message was meant to bring it (see `deliverWebhook`). */
export type WebhookMessage = { id: string; due: number };

/**
 * Where a delivery's status may go, and on what. `pending` is retried; the others are final but for
 * a resend, which makes a final row pending again (same webhook-id).
 */
export const WEBHOOK_DELIVERY_TRANSITIONS = {
  pending: { success: "delivered", failure: "pending", expired: "failed", endpointDisabled: "disabled", resend: "pending" },
  delivered: { resend: "pending" },
  failed: { resend: "pending" },
  disabled: { resend: "pending" },
} as const;

export const backoffSeconds = (attempts: number) => WEBHOOK_BACKOFF_SECONDS[attempts - 1] ?? MAX_DELAY_SECONDS;

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export function newWebhookSecret(): string {
  return `whsec_${btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))}`;
}

export type WebhookGuard = { sql: string; binds: unknown[] };

/**
 * The statements that write event `type` for each of `userId`'s active endpoints subscribed to it,
 * once per endpoint and `key` (e.g. `sale:{purchase}`), only if `guard` holds inside the batch. Add
 * them to the batch of the change that causes the event; then `dispatchWebhooks(..., [key])`.
 * Payload: `{type, timestamp, data}`.
 */
export function webhookStatements(d1: D1Database, userId: string, type: WebhookEventType, data: Record<string, unknown>, key: string, now = Date.now(), guard?: WebhookGuard): D1PreparedStatement[] {
  const payload = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
  return [
    d1
      .prepare(
        `insert into webhook_deliveries (id, endpoint_id, user_id, event_key, type, payload, status, attempts, next_attempt_at, created_at)
         select 'msg_' || lower(hex(randomblob(12))), e.id, e.user_id, ?1, ?2, ?3, 'pending', 0, ?4, ?4
         from webhook_endpoints e
         where e.user_id = ?5 and e.status = 'active' and exists (select 1 from json_each(e.events) where value = ?2) and ${guard ? numbered(guard.sql, 6) : "1"}
         on conflict (endpoint_id, event_key) do nothing`,
      )
      .bind(key, type, payload, now, userId, ...(guard?.binds ?? [])),
  ];
}

/** `guard` SQL uses bare `?`; the INSERT's own binds are numbered, so the guard's follow them. */
const numbered = (sqlText: string, from: number) => {
  let i = from;
  return sqlText.replace(/\?/g, () => `?${i++}`);
};

/** Hands the pending rows of `keys` (of `userId`) to the queue. Never throws: the sweep covers a failure. */
export async function dispatchWebhooks(d1: D1Database, queue: Queue | undefined, userId: string, keys: string[], now = Date.now()): Promise<number> {
  if (!queue || !keys.length) return 0;
  try {
    const { results } = await d1
      .prepare(`select id, next_attempt_at from webhook_deliveries where user_id = ? and event_key in (select value from json_each(?)) and status = 'pending' and attempts = 0`)
      .bind(userId, JSON.stringify(keys))
      .all<{ id: string; next_attempt_at: number }>();
    return await handOver(queue, results, now);
  } catch (err) {
    console.error("webhooks: could not hand over", keys, err);
    return 0;
  }
}

async function handOver(queue: Queue, rows: { id: string; next_attempt_at: number }[], now: number): Promise<number> {
  if (!rows.length) return 0;
  try {
    for (let i = 0; i < rows.length; i += 50) {
      await queue.sendBatch(rows.slice(i, i + 50).map((r) => ({ body: { id: r.id, due: r.next_attempt_at } satisfies WebhookMessage, ...delay(r.next_attempt_at, now) })));
    }
    return rows.length;
  } catch (err) {
    console.error("webhooks: queue refused", rows.length, "message(s); the sweep will retry", err);
    return 0;
  }
}

const delay = (due: number, now: number) => (due > now ? { delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil((due - now) / 1000)) } : {});

/** The cron's part: pending rows overdue by WEBHOOK_SWEEP_AFTER_MS go to the queue again. */
export async function sweepWebhooks(d1: D1Database, queue: Queue, now = Date.now()): Promise<{ handedOver: number }> {
  const { results } = await d1
    .prepare("select id, next_attempt_at from webhook_deliveries where status = 'pending' and next_attempt_at < ? order by next_attempt_at limit ?")
    .bind(now - WEBHOOK_SWEEP_AFTER_MS, SWEEP_LIMIT)
    .all<{ id: string; next_attempt_at: number }>();
  return { handedOver: await handOver(queue, results, now) };
}

type DeliveryRow = {
  id: string;
  endpoint_id: string;
  user_id: string;
  type: string;
  payload: string;
  status: WebhookDelivery["status"];
  attempts: number;
  next_attempt_at: number;
  first_attempt_at: number | null;
  last_attempt_at: number | null;
  last_status: number | null;
  last_response_excerpt: string | null;
  created_at: number;
};

export type DeliverDeps = { d1: D1Database; queue: Queue; emails: Queue; appUrl: string; appEnv: string | undefined; secrets: SecretBox; fetch?: typeof fetch; now?: number };
export type DeliverOutcome = "delivered" | "retry" | "failed" | "disabled" | "not-due" | "gone";

/**
 * One attempt of the delivery a queue message names. A message that arrives before its row is due
 * is either the carrier of a delay longer than Queues allow (its `due` is the row's: sent on) or a
 * duplicate (dropped: the row's own message will come).
 */
export async function deliverWebhook(deps: DeliverDeps, message: WebhookMessage): Promise<DeliverOutcome> {
  const { d1 } = deps;
  const now = deps.now ?? Date.now();
  const claimed = await d1
    .prepare("update webhook_deliveries set next_attempt_at = ?1 where id = ?2 and status = 'pending' and next_attempt_at <= ?3 returning *")
    .bind(now + LEASE_MS, message.id, now + 1000)
    .first<DeliveryRow>();
  if (!claimed) {
    const row = await d1.prepare("select status, next_attempt_at from webhook_deliveries where id = ?").bind(message.id).first<{ status: string; next_attempt_at: number }>();
    if (row?.status === "pending" && row.next_attempt_at === message.due) await deps.queue.send(message, delay(row.next_attempt_at, now));
    return row ? "not-due" : "gone";
  }
  const endpoint = await d1
    .prepare("select id, user_id, url, secret, status, failing_since from webhook_endpoints where id = ?")
    .bind(claimed.endpoint_id)
    .first<{ id: string; user_id: string; url: string; secret: string; status: string; failing_since: number | null }>();
  if (!endpoint || endpoint.status !== "active") {
    await d1.prepare("update webhook_deliveries set status = 'disabled' where id = ? and status = 'pending'").bind(claimed.id).run();
    return "disabled";
  }
  // An address this deployment may not call (saved under other rules, or by hand) is never contacted.
  const refused = endpointUrlProblem(endpoint.url, deps.appEnv);
  if (refused) {
    await d1.batch([
      d1.prepare("insert into webhook_attempts (id, delivery_id, status, error, response_excerpt, duration_ms, at) values (?, ?, null, ?, null, 0, ?)").bind(newId(), claimed.id, `Not sent: ${refused}`, now),
      d1
        .prepare(
          `update webhook_deliveries set status = 'failed', attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, ?1), last_attempt_at = ?1,
             last_status = null, last_response_excerpt = ?2, next_attempt_at = ?1 where id = ?3 and status = 'pending'`,
        )
        .bind(now, `Not sent: ${refused}`, claimed.id),
    ]);
    return "failed";
  }

  const secret = await deps.secrets.open(endpoint.secret, endpoint.id);
  await sealIfPlain(d1, deps.secrets, endpoint.id, endpoint.secret);
  const result = await post(deps.fetch ?? fetch, endpoint.url, secret, claimed.id, claimed.payload, now);
  const at = now + result.durationMs;
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  const firstAttemptAt = claimed.first_attempt_at ?? now;
  const attempts = claimed.attempts + 1;
  // Counted from the attempt's start, so the queue's delay is the schedule's.
  const retryAt = now + backoffSeconds(attempts) * 1000;
  const windowEnd = firstAttemptAt + WEBHOOK_RETRY_WINDOW_MS;
  // The last try is at the end of the window; one made at or after it ends the delivery.
  const next: WebhookDelivery["status"] = ok ? "delivered" : at >= windowEnd ? "failed" : "pending";
  const nextAttemptAt = next === "pending" ? Math.min(retryAt, windowEnd) : at;
  const failingSince = ok ? null : (endpoint.failing_since ?? now);
  const disable = !ok && failingSince !== null && at - failingSince >= WEBHOOK_RETRY_WINDOW_MS;
  const creator = disable ? await d1.prepare("select email from users where id = ?").bind(endpoint.user_id).first<{ email: string | null }>() : null;
  const mailKey = `webhook-disabled:${endpoint.id}:${failingSince}`;

  await d1.batch([
    d1
      .prepare("insert into webhook_attempts (id, delivery_id, status, error, response_excerpt, duration_ms, at) values (?, ?, ?, ?, ?, ?, ?)")
      .bind(newId(), claimed.id, result.status, result.error, result.excerpt, result.durationMs, at),
    d1
      .prepare(
        `update webhook_deliveries set status = ?1, attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, ?2), last_attempt_at = ?3,
           last_status = ?4, last_response_excerpt = ?5, next_attempt_at = ?6 where id = ?7 and status = 'pending'`,
      )
      .bind(next, now, at, result.status, result.excerpt ?? result.error, nextAttemptAt, claimed.id),
    ok
      ? d1.prepare("update webhook_endpoints set failing_since = null where id = ?").bind(endpoint.id)
      : d1.prepare("update webhook_endpoints set failing_since = coalesce(failing_since, ?) where id = ?").bind(now, endpoint.id),
    ...(disable
      ? [
          d1
            .prepare("update webhook_endpoints set status = 'disabled', disabled_reason = ? where id = ? and status = 'active' and failing_since = ?")
            .bind(disabledReason(failingSince!), endpoint.id, failingSince),
          d1.prepare("update webhook_deliveries set status = 'disabled' where endpoint_id = ? and status = 'pending' and id <> ?").bind(endpoint.id, claimed.id),
          ...(creator?.email
            ? [
                outboxInsert(
                  d1,
                  { dedupeKey: mailKey, to: creator.email, template: "webhook-disabled", data: { url: endpoint.url, reason: disabledReason(failingSince!), settingsUrl: new URL("/settings", deps.appUrl).href } },
                  now,
                  { sql: "exists (select 1 from webhook_endpoints where id = ? and status = 'disabled' and failing_since = ?)", binds: [endpoint.id, failingSince] },
                ),
              ]
            : []),
        ]
      : []),
  ]);
  if (disable && creator?.email) await dispatchEmails(d1, deps.emails, [mailKey], now);
  if (next === "pending") {
    await deps.queue.send({ id: claimed.id, due: nextAttemptAt } satisfies WebhookMessage, delay(nextAttemptAt, now)).catch((err) => console.error("webhooks: retry not queued; the sweep will", err));
  }
  return ok ? "delivered" : next === "failed" ? "failed" : "retry";
}

const disabledReason = (since: number) => `Every delivery failed for 3 days (since ${new Date(since).toISOString().slice(0, 16).replace("T", " ")} UTC)`;

/** Signs and POSTs one message: 10 s at most, a redirect is a failure (it is not followed). */
async function post(fetcher: typeof fetch, url: string, secret: string, id: string, payload: string, now: number) {
  const timestamp = new Date(Math.floor(now / 1000) * 1000);
  const signature = new Webhook(secret).sign(id, timestamp, payload);
  const started = Date.now();
  try {
    const res = await fetcher(url, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      headers: {
        "content-type": "application/json",
        "user-agent": "ApeWall-Webhooks/1",
        "webhook-id": id,
        "webhook-timestamp": String(timestamp.getTime() / 1000),
        "webhook-signature": signature,
      },
      body: payload,
    });
    const text = await res.text().catch(() => "");
    const excerpt = (res.status >= 300 && res.status < 400 ? `Redirect to ${res.headers.get("location") ?? "?"} (not followed). ` : "") + text;
    return { status: res.status, error: null, excerpt: excerpt.slice(0, EXCERPT_CHARS), durationMs: Date.now() - started };
  } catch (err) {
    const e = err as Error;
    const error = e?.name === "TimeoutError" ? `No answer within ${WEBHOOK_TIMEOUT_MS / 1000} s` : String(e?.message ?? err).slice(0, EXCERPT_CHARS);
    return { status: null, error, excerpt: null, durationMs: Date.now() - started };
  }
}

// ---- the creator's endpoints (routes/webhooks.ts) ----

type EndpointRow = { id: string; url: string; description: string; events: string; status: "active" | "disabled"; disabled_reason: string | null; failing_since: number | null; created_at: number };
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
  const { results } = await d1.prepare(`select ${ENDPOINT_COLUMNS} from webhook_endpoints where user_id = ? order by created_at, id`).bind(userId).all<EndpointRow>();
  return results.map(endpointOf);
}

async function endpointFor(d1: D1Database, userId: string, id: string): Promise<WebhookEndpoint> {
  const row = await d1.prepare(`select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = ? and user_id = ?`).bind(id, userId).first<EndpointRow>();
  if (!row) throw notFound(WEBHOOK_MESSAGES.notFound);
  return endpointOf(row);
}

/** The events an endpoint of this creator subscribes (404 for someone else's). */
export async function endpointEvents(d1: D1Database, userId: string, id: string): Promise<WebhookEventType[]> {
  return (await endpointFor(d1, userId, id)).events;
}

/** At most MAX_WEBHOOK_ENDPOINTS per creator, counted inside the INSERT. */
export async function createEndpoint(d1: D1Database, secrets: SecretBox, userId: string, input: { url: string; events: WebhookEventType[]; description: string }, now = Date.now()): Promise<WebhookEndpoint> {
  const id = newId();
  const res = await d1
    .prepare(
      `insert into webhook_endpoints (id, user_id, url, description, events, secret, status, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6, 'active', ?7 where (select count(*) from webhook_endpoints where user_id = ?2) < ?8`,
    )
    .bind(id, userId, input.url, input.description, JSON.stringify(input.events), await secrets.seal(newWebhookSecret(), id), now, MAX_WEBHOOK_ENDPOINTS)
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
    .bind(id, userId, input.url ?? null, input.events ? JSON.stringify(input.events) : null, input.description ?? null, input.status ?? null)
    .run();
  if (!res.meta.changes) throw notFound(WEBHOOK_MESSAGES.notFound);
  return endpointFor(d1, userId, id);
}

export async function deleteEndpoint(d1: D1Database, userId: string, id: string): Promise<void> {
  const res = await d1.prepare("delete from webhook_endpoints where id = ? and user_id = ?").bind(id, userId).run();
  if (!res.meta.changes) throw notFound(WEBHOOK_MESSAGES.notFound);
}

/** The signing secret, to its owner only; `rotate` replaces it first (messages already queued are signed with the new one). */
export async function endpointSecret(d1: D1Database, secrets: SecretBox, userId: string, id: string, rotate: boolean): Promise<{ secret: string }> {
  const row = rotate
    ? await d1.prepare("update webhook_endpoints set secret = ? where id = ? and user_id = ? returning secret").bind(await secrets.seal(newWebhookSecret(), id), id, userId).first<{ secret: string }>()
    : await d1.prepare("select secret from webhook_endpoints where id = ? and user_id = ?").bind(id, userId).first<{ secret: string }>();
  if (!row) throw notFound(WEBHOOK_MESSAGES.notFound);
  const secret = await secrets.open(row.secret, id);
  await sealIfPlain(d1, secrets, id, row.secret);
  return { secret };
}

const manualSendOrThrow = async (d1: D1Database, userId: string, kind: "test" | "resend", now: number) => {
  if (!(await claimManualSend(d1, userId, kind, now))) throw new ApiError(429, WEBHOOK_MESSAGES.tooManySends);
};

/** A `test.event` message to one endpoint, whatever it subscribes to; each press is a new message. */
export async function sendTestEvent(d1: D1Database, queue: Queue, userId: string, id: string, now = Date.now()): Promise<WebhookDelivery> {
  const endpoint = await endpointFor(d1, userId, id);
  if (endpoint.status !== "active") throw new ApiError(409, WEBHOOK_MESSAGES.disabledEndpoint);
  await manualSendOrThrow(d1, userId, "test", now);
  const deliveryId = `msg_${newId(24)}`;
  const payload = JSON.stringify({ type: "test.event", timestamp: new Date(now).toISOString(), data: { message: "This is a test event from ApeWall.", endpointId: id } });
  await d1
    .prepare(
      `insert into webhook_deliveries (id, endpoint_id, user_id, event_key, type, payload, status, attempts, next_attempt_at, created_at)
       values (?1, ?2, ?3, 'test:' || ?1, 'test.event', ?4, 'pending', 0, ?5, ?5)`,
    )
    .bind(deliveryId, id, userId, payload, now)
    .run();
  await handOver(queue, [{ id: deliveryId, next_attempt_at: now }], now);
  return deliveryOf((await d1.prepare("select * from webhook_deliveries where id = ?").bind(deliveryId).first<DeliveryRow>())!, []);
}

/** Sends a delivery again now, under the same webhook-id, with a new three-day window. */
export async function resendDelivery(d1: D1Database, queue: Queue, userId: string, endpointId: string, deliveryId: string, now = Date.now()): Promise<void> {
  const endpoint = await endpointFor(d1, userId, endpointId);
  const owned = await d1.prepare("select 1 from webhook_deliveries where id = ? and endpoint_id = ? and user_id = ?").bind(deliveryId, endpointId, userId).first();
  if (!owned) throw notFound(WEBHOOK_MESSAGES.deliveryNotFound);
  if (endpoint.status !== "active") throw new ApiError(409, WEBHOOK_MESSAGES.disabledEndpoint);
  await manualSendOrThrow(d1, userId, "resend", now);
  await d1
    .prepare("update webhook_deliveries set status = 'pending', next_attempt_at = ?1, first_attempt_at = null where id = ?2 and endpoint_id = ?3 and user_id = ?4")
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
  lastResponseExcerpt: r.last_response_excerpt,
  lastAttemptAt: iso(r.last_attempt_at),
  createdAt: iso(r.created_at)!,
  payload: JSON.parse(r.payload),
  log,
});

/** An endpoint's deliveries, newest first, `limit` a page, each with its attempts (newest first). */
export async function listDeliveries(d1: D1Database, userId: string, endpointId: string, page: { before?: string; limit: number }): Promise<WebhookDeliveryPage> {
  await endpointFor(d1, userId, endpointId);
  // The cursor is (created_at, id): one batch can write two events for an endpoint in the same ms.
  const [beforeAt, beforeId] = page.before ? [Number(page.before.split(":")[0]), page.before.split(":")[1]] : [Number.MAX_SAFE_INTEGER, ""];
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
        .prepare("select id, delivery_id, status, error, response_excerpt, duration_ms, at from webhook_attempts where delivery_id in (select value from json_each(?)) order by at desc, id")
        .bind(JSON.stringify(shown.map((d) => d.id)))
        .all<{ id: string; delivery_id: string; status: number | null; error: string | null; response_excerpt: string | null; duration_ms: number; at: number }>()
    : { results: [] };
  const logOf = (id: string) =>
    attempts.filter((a) => a.delivery_id === id).map((a) => ({ id: a.id, status: a.status, error: a.error, responseExcerpt: a.response_excerpt, durationMs: a.duration_ms, at: iso(a.at)! }));
  return { deliveries: shown.map((d) => deliveryOf(d, logOf(d.id))), nextBefore: results.length > page.limit ? `${shown[shown.length - 1].created_at}:${shown[shown.length - 1].id}` : null };
}
