// Creators' outgoing webhooks, delivered: one signed Standard Webhooks message per endpoint and event.
// The change that causes an event adds webhookStatements to its own D1 batch (guarded, keyed, so a
// repeated batch writes nothing); dispatchWebhooks hands the new rows to the WEBHOOKS queue;
// deliverWebhook claims, signs, POSTs and records each attempt, retrying on a backoff for three days
// and then disabling the endpoint; the 5-minute sweep hands over what was lost. The same outbox design
// as email (../mail/email-outbox.ts). Secrets at rest: ./secrets.ts; limits and retention: ./limits.ts;
// the creator's endpoints and delivery log: ./endpoints.ts. Behaviour: docs/api-and-webhooks.md.
import { Webhook } from "standardwebhooks";
import { webhookUrlProblem, type WebhookDelivery, type WebhookEventType } from "../../../shared/webhooks";
import { newId } from "../../lib/ids";
import { dispatch as dispatchEmails, outboxInsert } from "../mail/email-outbox";
import { answeredCause, thrownCause, WEBHOOK_TIMEOUT_MS } from "./cause";
import { sealIfPlain, type SecretBox } from "./secrets";

/**
 * Why `url` may not receive webhooks on this deployment, or null. Loopback and private targets (and
 * plain http) only where APP_ENV is exactly "development": a missing or unknown APP_ENV gets
 * production's rules.
 */
export const endpointUrlProblem = (url: string, appEnv: string | undefined) =>
  webhookUrlProblem(url, appEnv !== "development");

export const WEBHOOK_RETRY_WINDOW_MS = 3 * 24 * 3600 * 1000;
/** Seconds to wait after the n-th failed attempt (then every 12 hours, Queues' longest delay). */
const WEBHOOK_BACKOFF_SECONDS = [60, 300, 1800, 7200, 18000, 36000];
const MAX_DELAY_SECONDS = 12 * 3600;
/** An attempt holds its row this long; a consumer that died is replaced by the sweep after it. */
const LEASE_MS = 2 * 60 * 1000;
const WEBHOOK_SWEEP_AFTER_MS = 5 * 60 * 1000;
const EXCERPT_CHARS = 500;
const SWEEP_LIMIT = 200;

/** What the queue carries: the row, and when that message was meant to bring it (see `deliverWebhook`). */
export type WebhookMessage = { id: string; due: number };

const backoffSeconds = (attempts: number) => WEBHOOK_BACKOFF_SECONDS[attempts - 1] ?? MAX_DELAY_SECONDS;

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
export function webhookStatements(
  d1: D1Database,
  userId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
  key: string,
  now = Date.now(),
  guard?: WebhookGuard,
): D1PreparedStatement[] {
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
export async function dispatchWebhooks(
  d1: D1Database,
  queue: Queue | undefined,
  userId: string,
  keys: string[],
  now = Date.now(),
): Promise<number> {
  if (!queue || !keys.length) return 0;
  try {
    const { results } = await d1
      .prepare(
        `select id, next_attempt_at from webhook_deliveries where user_id = ? and event_key in (select value from json_each(?)) and status = 'pending' and attempts = 0`,
      )
      .bind(userId, JSON.stringify(keys))
      .all<{ id: string; next_attempt_at: number }>();
    return await handOver(queue, results, now);
  } catch (err) {
    console.error("webhooks: could not hand over", keys, err);
    return 0;
  }
}

export async function handOver(
  queue: Queue,
  rows: { id: string; next_attempt_at: number }[],
  now: number,
): Promise<number> {
  if (!rows.length) return 0;
  try {
    for (let i = 0; i < rows.length; i += 50) {
      await queue.sendBatch(
        rows.slice(i, i + 50).map((r) => ({
          body: { id: r.id, due: r.next_attempt_at } satisfies WebhookMessage,
          ...delay(r.next_attempt_at, now),
        })),
      );
    }
    return rows.length;
  } catch (err) {
    console.error("webhooks: queue refused", rows.length, "message(s); the sweep will retry", err);
    return 0;
  }
}

const delay = (due: number, now: number) =>
  due > now ? { delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil((due - now) / 1000)) } : {};

/** The cron's part: pending rows overdue by WEBHOOK_SWEEP_AFTER_MS go to the queue again. */
export async function sweepWebhooks(d1: D1Database, queue: Queue, now = Date.now()): Promise<{ handedOver: number }> {
  const { results } = await d1
    .prepare(
      "select id, next_attempt_at from webhook_deliveries where status = 'pending' and next_attempt_at < ? order by next_attempt_at limit ?",
    )
    .bind(now - WEBHOOK_SWEEP_AFTER_MS, SWEEP_LIMIT)
    .all<{ id: string; next_attempt_at: number }>();
  return { handedOver: await handOver(queue, results, now) };
}

export type DeliveryRow = {
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

export type DeliverDeps = {
  d1: D1Database;
  queue: Queue;
  emails: Queue;
  appUrl: string;
  appEnv: string | undefined;
  secrets: SecretBox;
  fetch?: typeof fetch;
  now?: number;
};
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
    .prepare(
      "update webhook_deliveries set next_attempt_at = ?1 where id = ?2 and status = 'pending' and next_attempt_at <= ?3 returning *",
    )
    .bind(now + LEASE_MS, message.id, now + 1000)
    .first<DeliveryRow>();
  if (!claimed) {
    const row = await d1
      .prepare("select status, next_attempt_at from webhook_deliveries where id = ?")
      .bind(message.id)
      .first<{ status: string; next_attempt_at: number }>();
    if (row?.status === "pending" && row.next_attempt_at === message.due)
      await deps.queue.send(message, delay(row.next_attempt_at, now));
    return row ? "not-due" : "gone";
  }
  const endpoint = await d1
    .prepare("select id, user_id, url, secret, status, failing_since from webhook_endpoints where id = ?")
    .bind(claimed.endpoint_id)
    .first<{
      id: string;
      user_id: string;
      url: string;
      secret: string;
      status: string;
      failing_since: number | null;
    }>();
  if (endpoint?.status !== "active") {
    await d1
      .prepare("update webhook_deliveries set status = 'disabled' where id = ? and status = 'pending'")
      .bind(claimed.id)
      .run();
    return "disabled";
  }
  // An address this deployment may not call (saved under other rules, or by hand) is never contacted.
  const refused = endpointUrlProblem(endpoint.url, deps.appEnv);
  if (refused) {
    await d1.batch([
      d1
        .prepare(
          "insert into webhook_attempts (id, delivery_id, status, error, response_excerpt, duration_ms, at) values (?, ?, null, ?, null, 0, ?)",
        )
        .bind(newId(), claimed.id, `Not sent: ${refused}`, now),
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
  const creator = disable
    ? await d1.prepare("select email from users where id = ?").bind(endpoint.user_id).first<{ email: string | null }>()
    : null;
  const mailKey = `webhook-disabled:${endpoint.id}:${failingSince}`;

  await d1.batch([
    d1
      .prepare(
        "insert into webhook_attempts (id, delivery_id, status, error, response_excerpt, duration_ms, at) values (?, ?, ?, ?, ?, ?, ?)",
      )
      .bind(newId(), claimed.id, result.status, result.error, result.excerpt, result.durationMs, at),
    d1
      .prepare(
        `update webhook_deliveries set status = ?1, attempts = attempts + 1, first_attempt_at = coalesce(first_attempt_at, ?2), last_attempt_at = ?3,
           last_status = ?4, last_response_excerpt = ?5, next_attempt_at = ?6 where id = ?7 and status = 'pending'`,
      )
      .bind(next, now, at, result.status, result.excerpt ?? result.error, nextAttemptAt, claimed.id),
    ok
      ? d1.prepare("update webhook_endpoints set failing_since = null where id = ?").bind(endpoint.id)
      : d1
          .prepare("update webhook_endpoints set failing_since = coalesce(failing_since, ?) where id = ?")
          .bind(now, endpoint.id),
    ...(disable
      ? [
          d1
            .prepare(
              "update webhook_endpoints set status = 'disabled', disabled_reason = ? where id = ? and status = 'active' and failing_since = ?",
            )
            .bind(disabledReason(failingSince!), endpoint.id, failingSince),
          d1
            .prepare(
              "update webhook_deliveries set status = 'disabled' where endpoint_id = ? and status = 'pending' and id <> ?",
            )
            .bind(endpoint.id, claimed.id),
          ...(creator?.email
            ? [
                outboxInsert(
                  d1,
                  {
                    dedupeKey: mailKey,
                    to: creator.email,
                    template: "webhook-disabled",
                    data: {
                      url: endpoint.url,
                      reason: disabledReason(failingSince!),
                      settingsUrl: new URL("/settings", deps.appUrl).href,
                    },
                  },
                  now,
                  {
                    sql: "exists (select 1 from webhook_endpoints where id = ? and status = 'disabled' and failing_since = ?)",
                    binds: [endpoint.id, failingSince],
                  },
                ),
              ]
            : []),
        ]
      : []),
  ]);
  if (disable && creator?.email) await dispatchEmails(d1, deps.emails, [mailKey], now);
  if (next === "pending") {
    await deps.queue
      .send({ id: claimed.id, due: nextAttemptAt } satisfies WebhookMessage, delay(nextAttemptAt, now))
      .catch((err) => console.error("webhooks: retry not queued; the sweep will", err));
  }
  return ok ? "delivered" : next === "failed" ? "failed" : "retry";
}

const disabledReason = (since: number) =>
  `Every delivery failed for 3 days (since ${new Date(since).toISOString().slice(0, 16).replace("T", " ")} UTC)`;

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
    const excerpt =
      (res.status >= 300 && res.status < 400
        ? `Redirect to ${res.headers.get("location") ?? "?"} (not followed). `
        : "") + text;
    return {
      status: res.status,
      error: answeredCause(res.status, text),
      excerpt: excerpt.slice(0, EXCERPT_CHARS),
      durationMs: Date.now() - started,
    };
  } catch (err) {
    // The creator reads the cause in words; the runtime's own message stays in the server's log.
    console.warn("webhooks: attempt failed", new URL(url).host, String(err));
    return { status: null, error: thrownCause(err), excerpt: null, durationMs: Date.now() - started };
  }
}
