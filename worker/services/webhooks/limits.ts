// What a creator's webhooks may cost and keep: test events and resends per minute (each makes our
// Worker call someone's server on demand), and how long deliveries live (their payloads carry
// buyers' emails). Both run as single statements, so concurrent presses cannot pass one count.
import { WEBHOOK_MANUAL_SENDS_PER_MINUTE } from "../../../shared/webhooks";
import { newId } from "../../lib/ids";

const MINUTE_MS = 60_000;
const WEBHOOK_DELIVERY_KEEP_MS = 30 * 24 * 3600 * 1000;
const MANUAL_SENDS_KEEP_MS = 24 * 3600 * 1000;
const PURGE_CHUNK = 1000;
const PURGE_MAX_CHUNKS = 50;

/** Counts one test event or resend of `userId`; false (nothing counted) once the minute's allowance is used. */
export async function claimManualSend(
  d1: D1Database,
  userId: string,
  kind: "test" | "resend",
  now = Date.now(),
): Promise<boolean> {
  const res = await d1
    .prepare(
      `insert into webhook_manual_sends (id, user_id, kind, at)
       select ?1, ?2, ?3, ?4 where (select count(*) from webhook_manual_sends where user_id = ?2 and at > ?5) < ?6`,
    )
    .bind(newId(), userId, kind, now, now - MINUTE_MS, WEBHOOK_MANUAL_SENDS_PER_MINUTE)
    .run();
  return res.meta.changes > 0;
}

/**
 * The daily sweep's part: deliveries created more than 30 days ago go, with their attempts (cascade),
 * whatever their state (a resend late in the 30 days ends with them); and the day-old manual-send counts.
 */
export async function purgeWebhookHistory(d1: D1Database, now = Date.now()): Promise<{ deliveriesDeleted: number }> {
  let deleted = 0;
  for (let i = 0; i < PURGE_MAX_CHUNKS; i++) {
    const res = await d1
      .prepare(
        "delete from webhook_deliveries where id in (select id from webhook_deliveries where created_at < ? limit ?)",
      )
      .bind(now - WEBHOOK_DELIVERY_KEEP_MS, PURGE_CHUNK)
      .run();
    deleted += res.meta.changes;
    if (res.meta.changes < PURGE_CHUNK) break;
  }
  await d1
    .prepare("delete from webhook_manual_sends where at < ?")
    .bind(now - MANUAL_SENDS_KEEP_MS)
    .run();
  return { deliveriesDeleted: deleted };
}
