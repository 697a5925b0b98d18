// The transactional outbox for email: nothing is lost between D1 and the EMAILS queue.
// write: `outboxInsert` in the causing change's own batch (keyed by the dedupe key, optionally guarded);
// hand over: `dispatch`, best effort; deliver: the consumer claims, sends and marks the row sent;
// sweep: the cron hands over again rows still unsent. Each step is safe to repeat.
// Behaviour: docs/payments.md ("Receipts and emails").
import type { EmailJob } from "./templates";

const OUTBOX_RESEND_AFTER_MS = 5 * 60 * 1000;
const OUTBOX_MAX_ATTEMPTS = 20;
/** Sent rows are kept this long (emails_sent keeps the dedupe claim itself for good). */
const OUTBOX_KEEP_SENT_MS = 30 * 24 * 3600 * 1000;
const SWEEP_LIMIT = 200;
const MAX_DELAY_SECONDS = 12 * 3600;

/** A condition (SQL with `?` placeholders) the insert waits on, checked inside the same batch. */
export type OutboxGuard = { sql: string; binds: unknown[] };

/** The statement that writes `job` to the outbox, once per dedupe key, only if `guard` holds. */
export function outboxInsert(d1: D1Database, job: EmailJob, now: number, guard?: OutboxGuard): D1PreparedStatement {
  return d1
    .prepare(
      `insert into outbox_emails (id, job, created_at) select ?, ?, ? where ${guard ? guard.sql : "1"}
       on conflict (id) do nothing`,
    )
    .bind(job.dedupeKey, JSON.stringify(job), now, ...(guard?.binds ?? []));
}

/**
 * Hands the unsent rows among `ids` to the queue. Never throws: a failure is written on the rows
 * and the sweep tries again.
 */
export async function dispatch(d1: D1Database, queue: Queue, ids: string[], now = Date.now()): Promise<number> {
  let handed = 0;
  for (let i = 0; i < ids.length; i += 50) {
    const chunk = ids.slice(i, i + 50);
    try {
      const { results } = await d1
        .prepare(
          `select id, job from outbox_emails where id in (${chunk.map(() => "?").join(", ")}) and sent_at is null`,
        )
        .bind(...chunk)
        .all<{ id: string; job: string }>();
      handed += await handOver(d1, queue, results, now);
    } catch (err) {
      console.error("outbox: could not read rows to hand over", err);
    }
  }
  return handed;
}

async function handOver(
  d1: D1Database,
  queue: Queue,
  rows: { id: string; job: string }[],
  now: number,
): Promise<number> {
  if (!rows.length) return 0;
  const placeholders = rows.map(() => "?").join(", ");
  try {
    await queue.sendBatch(
      rows.map((r) => {
        const body = JSON.parse(r.job) as EmailJob;
        // A job due later (`sendAt`) waits in the queue, not in a loop (Queues allow up to 12 hours).
        const delaySeconds =
          body.sendAt && body.sendAt > now ? Math.min(MAX_DELAY_SECONDS, Math.ceil((body.sendAt - now) / 1000)) : 0;
        return delaySeconds ? { body, delaySeconds } : { body };
      }),
    );
  } catch (err) {
    console.error("outbox: queue refused", rows.length, "email job(s); the sweep will retry", err);
    await d1
      .prepare(`update outbox_emails set attempts = attempts + 1, last_error = ? where id in (${placeholders})`)
      .bind(`queue: ${String((err as Error)?.message ?? err).slice(0, 300)}`, ...rows.map((r) => r.id))
      .run()
      .catch(() => undefined);
    return 0;
  }
  await d1
    .prepare(
      `update outbox_emails set enqueued_at = ?, attempts = attempts + 1 where id in (${placeholders}) and sent_at is null`,
    )
    .bind(now, ...rows.map((r) => r.id))
    .run()
    .catch((err) => console.error("outbox: could not record a hand-over", err));
  return rows.length;
}

/** The cron's part: hands over again what the queue never delivered; drops old sent rows. */
export async function sweepOutbox(
  d1: D1Database,
  queue: Queue,
  now = Date.now(),
): Promise<{ handedOver: number; purged: number }> {
  const { results } = await d1
    .prepare(
      `select id, job from outbox_emails
       where sent_at is null and (enqueued_at is null or enqueued_at < ?) and created_at < ? and attempts < ?
         and coalesce(json_extract(job, '$.sendAt'), 0) < ?
       order by created_at limit ?`,
    )
    // A row younger than the resend delay is still in its first hand-over: leave it alone; so is one
    // whose queue message waits for its `sendAt`.
    .bind(
      now - OUTBOX_RESEND_AFTER_MS,
      now - OUTBOX_RESEND_AFTER_MS,
      OUTBOX_MAX_ATTEMPTS,
      now - OUTBOX_RESEND_AFTER_MS,
      SWEEP_LIMIT,
    )
    .all<{ id: string; job: string }>();
  let handedOver = 0;
  for (let i = 0; i < results.length; i += 50) handedOver += await handOver(d1, queue, results.slice(i, i + 50), now);
  const purged = await d1
    .prepare("delete from outbox_emails where sent_at is not null and sent_at < ?")
    .bind(now - OUTBOX_KEEP_SENT_MS)
    .run();
  // Delivery events are kept only to recognise a redelivered one (the provider retries for days);
  // the state they led to stays on the email's mail_deliveries row.
  await d1
    .prepare("delete from mail_events where received_at < ?")
    .bind(now - OUTBOX_KEEP_SENT_MS)
    .run();
  // An email that is no receipt (a sign-in or library link, a notice) is no sale's badge: kept as long.
  await d1
    .prepare("delete from mail_deliveries where purchase_id is null and sent_at < ?")
    .bind(now - OUTBOX_KEEP_SENT_MS)
    .run();
  return { handedOver, purged: purged.meta.changes ?? 0 };
}

/**
 * The consumer delivered the job (or found nothing to send): the row is done. Its job keeps who,
 * which email and the dedupe key, but no data: a receipt's data holds a permanent access link (a
 * bearer token), which must not sit in the table for OUTBOX_KEEP_SENT_MS. A sent row is never read
 * again to send.
 */
export async function markSent(d1: D1Database, id: string, now = Date.now()): Promise<void> {
  await d1
    .prepare(
      `update outbox_emails set sent_at = ?, last_error = null,
         job = json_object('dedupeKey', json_extract(job, '$.dedupeKey'), 'to', json_extract(job, '$.to'), 'template', json_extract(job, '$.template'))
       where id = ? and sent_at is null`,
    )
    .bind(now, id)
    .run();
}

/** The consumer failed to deliver: say why on the row (the queue retries; the sweep after that). */
export async function markFailed(d1: D1Database, id: string, err: unknown): Promise<void> {
  await d1
    .prepare("update outbox_emails set last_error = ? where id = ? and sent_at is null")
    .bind(String((err as Error)?.message ?? err).slice(0, 500), id)
    .run()
    .catch(() => undefined);
}

/** An email that no other write causes (a reminder asked for, a recovery request): written, then handed over. */
export async function sendViaOutbox(d1: D1Database, queue: Queue, job: EmailJob, now = Date.now()): Promise<void> {
  await outboxInsert(d1, job, now).run();
  await dispatch(d1, queue, [job.dedupeKey], now);
}
