// Delivery events, recorded: the consumer writes each email the provider accepted (its message id,
// what it was, to whom) as `sent`; the provider's events (Resend's webhooks, verified here with the
// same Standard Webhooks implementation that signs our own: the `standardwebhooks` package) move it
// through ./delivery-states.ts, each event once by its id. The dev mailbox's events take the same
// path. Behaviour: docs/payments.md ("Receipts and emails").
import { Webhook } from "standardwebhooks";
import { MAIL_EVENT_TYPES, type MailDeliveryState, type MailEventType } from "../../../shared/mail";
import { DELIVERY_TRANSITIONS } from "./delivery-states";
import type { EmailJob } from "./templates";

/**
 * Whether `raw` was signed with `secret` (`whsec_…`) within the last 5 minutes: Svix's headers
 * (`svix-id`, `svix-timestamp`, `svix-signature`) or the Standard Webhooks ones (`webhook-*`); any
 * of several space-separated `v1,` signatures may match (constant-time compare).
 */
export function verifyMailWebhook(secret: string, raw: string, header: (name: string) => string | undefined): boolean {
  const pick = (name: string) => header(`webhook-${name}`) ?? header(`svix-${name}`) ?? "";
  try {
    new Webhook(secret).verify(
      raw,
      { "webhook-id": pick("id"), "webhook-timestamp": pick("timestamp"), "webhook-signature": pick("signature") },
      { jsonParse: false },
    );
    return true;
  } catch {
    return false;
  }
}

/** The event's id: Svix's message id, the same on every retry of one event. */
export const mailEventId = (header: (name: string) => string | undefined) =>
  header("webhook-id") ?? header("svix-id") ?? "";

export const isMailEventType = (type: string): type is MailEventType =>
  (MAIL_EVENT_TYPES as readonly string[]).includes(type);

/** The purchase an email is the receipt of, or null: the access email, an upsell's "Added to your order", the order email (its first purchase). */
function receiptPurchaseOf(job: EmailJob): string | null {
  if (job.template === "purchase-access" || job.template === "order-added") return job.data.orderId;
  if (job.template === "order") return job.data.rootPurchaseId;
  return null;
}

/** The templates that are a buyer's receipt (what the sales table and the success page speak of). */
export const RECEIPT_TEMPLATES = ["purchase-access", "order-added", "order"] as const;

/** The consumer's record of an email the provider accepted; a repeat (the same message id) is a no-op. */
export function recordSentStatement(
  d1: D1Database,
  sent: { messageId: string; job: EmailJob; to: string },
  now = Date.now(),
): D1PreparedStatement {
  return d1
    .prepare(
      `insert into mail_deliveries (message_id, dedupe_key, template, to_email, purchase_id, state, sent_at, updated_at)
       values (?, ?, ?, ?, ?, 'sent', ?, ?) on conflict (message_id) do nothing`,
    )
    .bind(sent.messageId, sent.job.dedupeKey, sent.job.template, sent.to, receiptPurchaseOf(sent.job), now, now);
}

export const recordSent = (d1: D1Database, sent: { messageId: string; job: EmailJob; to: string }, now = Date.now()) =>
  recordSentStatement(d1, sent, now).run();

export type MailEvent = {
  /** Unique per event (Svix's `svix-id`; the dev mailbox's `dev_{message}_{type}`). */
  id: string;
  type: MailEventType;
  messageId: string;
  occurredAt: number | null;
  bounceReason?: string | null;
};
export type RecordOutcome = "recorded" | "duplicate" | "unknown";

/**
 * Applies one event to its email, once: the event row and the new state are written in one batch,
 * and only if the state is still the one the table was read with (compare-and-set; a concurrent
 * event makes it read again). An email we never sent (another system's, or one already purged) is
 * `unknown`: nothing is written.
 */
export async function recordMailEvent(d1: D1Database, event: MailEvent, now = Date.now()): Promise<RecordOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const [seen, delivery] = await Promise.all([
      d1.prepare("select 1 as x from mail_events where id = ?").bind(event.id).first(),
      d1
        .prepare("select state from mail_deliveries where message_id = ?")
        .bind(event.messageId)
        .first<{ state: MailDeliveryState }>(),
    ]);
    if (seen) return "duplicate";
    if (!delivery) return "unknown";
    const next = DELIVERY_TRANSITIONS[delivery.state][event.type];
    const [inserted] = await d1.batch([
      d1
        .prepare(
          `insert into mail_events (id, message_id, type, occurred_at, received_at)
           select ?, ?, ?, ?, ? where exists (select 1 from mail_deliveries where message_id = ? and state = ?)
           on conflict (id) do nothing`,
        )
        .bind(event.id, event.messageId, event.type, event.occurredAt, now, event.messageId, delivery.state),
      d1
        .prepare(
          `update mail_deliveries set state = ?, updated_at = ?,
             bounce_reason = case when ? = 'bounced' then coalesce(?, bounce_reason) else bounce_reason end
           where message_id = ? and state = ? and changes() > 0`,
        )
        .bind(next, now, next, event.bounceReason ?? null, event.messageId, delivery.state),
    ]);
    if ((inserted.meta.changes ?? 0) > 0) return "recorded";
  }
  throw new Error(`mail event ${event.id}: the state kept changing under it`);
}
