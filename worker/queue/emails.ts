// The EMAILS queue consumer. Delivery is at-least-once, so each message is claimed in D1 by its
// dedupe key first: a redelivered or duplicated message sends nothing twice. The mail API call
// carries the dedupe key as its Idempotency-Key, so a send whose answer was lost is not repeated
// either. A delivered job marks its outbox row sent (worker/services/mail/email-outbox.ts), and the
// provider's message id is recorded with what the email was (worker/services/mail/mail-events.ts).
import { and, eq, sql } from "drizzle-orm";
import { createDb, type Db } from "../db/client";
import { emailsSent, purchases } from "../db/schema";
import { hasLibrary } from "../services/library/purchases";
import { recoveredPurchases } from "../services/purchases/buyer-access";
import { orderMailData } from "../services/purchases/receipts";
import { mailCreator, publicCreator } from "../services/profile";
import { composeReminder } from "../services/purchases/recovery";
import { sellerConfig, withTaxInvoice } from "../services/tax/invoice";
import { stripeClient } from "../services/stripe";
import type { Bindings } from "../lib/env";
import { markFailed, markSent } from "../services/mail/email-outbox";
import { recordMailEvent, recordSentStatement } from "../services/mail/mail-events";
import { render } from "../services/mail/render";
import type { EmailJob } from "../services/mail/templates";
import { mailTransportFor, type MailTransport } from "../services/mail/transport";

// A consumer that took a message and died leaves a claim; after this long another may take it.
const CLAIM_TIMEOUT_MS = 2 * 60 * 1000;

type Outcome = "sent" | "duplicate" | "busy";

/** Backoff for a failed send: 10 s, 20 s, 40 s… capped at 10 minutes. */
export const retryDelaySeconds = (attempts: number) => Math.min(600, 10 * 2 ** Math.max(0, attempts - 1));

/**
 * Claims the job, then sends it. `compose` fills in, after the claim, what is read when the email
 * is sent (the buyer's order email: services/mail/order-email.ts); null means nothing to send.
 */
async function deliverEmail(
  db: Db,
  d1: D1Database,
  transport: MailTransport,
  from: string,
  job: EmailJob,
  compose?: (job: EmailJob) => Promise<EmailJob | null>,
): Promise<Outcome> {
  let rendered = render(job);
  const now = Date.now();
  const claimed = await db
    .insert(emailsSent)
    .values({
      dedupeKey: job.dedupeKey,
      toEmail: job.to,
      kind: job.template,
      subject: rendered.subject,
      claimedAt: new Date(now),
    })
    .onConflictDoUpdate({
      target: emailsSent.dedupeKey,
      set: { claimedAt: new Date(now) },
      setWhere: and(eq(emailsSent.status, "sending"), sql`${emailsSent.claimedAt} < ${now - CLAIM_TIMEOUT_MS}`),
    })
    .returning({ key: emailsSent.dedupeKey });
  if (claimed.length === 0) {
    const row = await db
      .select({ status: emailsSent.status })
      .from(emailsSent)
      .where(eq(emailsSent.dedupeKey, job.dedupeKey))
      .get();
    return row?.status === "sent" ? "duplicate" : "busy";
  }
  let sent: Awaited<ReturnType<MailTransport["send"]>>;
  let sentJob = job;
  // A composed job may name another address (a checkout reminder goes to the checkout's email as it is when due).
  let to = job.to;
  try {
    if (compose) {
      const composed = await compose(job);
      if (!composed) {
        await db
          .update(emailsSent)
          .set({ status: "sent", sentAt: new Date() })
          .where(eq(emailsSent.dedupeKey, job.dedupeKey));
        return "sent";
      }
      rendered = render(composed);
      to = composed.to;
      sentJob = composed;
      await db.update(emailsSent).set({ subject: rendered.subject }).where(eq(emailsSent.dedupeKey, job.dedupeKey));
    }
    sent = await transport.send({ from, to, ...rendered }, { idempotencyKey: job.dedupeKey });
  } catch (err) {
    // Release the claim so the retry is not mistaken for a concurrent delivery.
    await db.delete(emailsSent).where(and(eq(emailsSent.dedupeKey, job.dedupeKey), eq(emailsSent.status, "sending")));
    throw err;
  }
  // The email marked sent and its delivery record in one batch: a crash between them cannot leave a
  // sent email that the provider's events find no record of (a redelivery sees it sent and stops).
  const sentAt = Date.now();
  const marked = d1
    .prepare("update emails_sent set status = 'sent', sent_at = ?, provider_message_id = ? where dedupe_key = ?")
    .bind(sentAt, sent.id || null, job.dedupeKey);
  await d1.batch(
    sent.id ? [marked, recordSentStatement(d1, { messageId: sent.id, job: sentJob, to }, sentAt)] : [marked],
  );
  await recordDevEvents(d1, sent, job);
  return "sent";
}

/**
 * What the transport already knows of the email's fate (the dev mailbox plays the provider's events),
 * through the same recording as the provider's webhooks. Best effort: the email went.
 */
async function recordDevEvents(d1: D1Database, sent: Awaited<ReturnType<MailTransport["send"]>>, job: EmailJob) {
  try {
    for (const type of sent.events ?? [])
      await recordMailEvent(d1, { id: `dev_${sent.id}_${type}`, type, messageId: sent.id, occurredAt: Date.now() });
  } catch (err) {
    console.error("email sent but its delivery events were not recorded", job.dedupeKey, err);
  }
}

/**
 * Fills in what a job leaves to the consumer. An access-recovery request or a library link for an
 * address that bought nothing sends nothing (null), and the caller heard the same answer either way.
 */
async function withLookups(db: Db, env: Bindings, job: EmailJob): Promise<EmailJob | null> {
  // A library link goes only to an address with something in its library: the form answered alike.
  if (job.template === "library-link") return (await hasLibrary(db, job.to)) ? job : null;
  if (job.template !== "access-recovery" || job.data.items) return job;
  if (!env.ACCESS_TOKEN_SECRET) throw new Error("ACCESS_TOKEN_SECRET is not set");
  const items = await recoveredPurchases({ db, appUrl: env.APP_URL, accessSecret: env.ACCESS_TOKEN_SECRET }, job.to);
  return items.length ? { ...job, data: { items } } : null;
}

/** A checkout reminder, when it is due (after the claim): to the checkout's email as it is now; null when the buyer paid, unsubscribed, or it may not go (services/purchases/recovery.ts). */
async function withReminder(db: Db, env: Bindings, job: EmailJob): Promise<EmailJob | null> {
  if (job.template !== "checkout-reminder") return job;
  if (!env.ACCESS_TOKEN_SECRET) throw new Error("ACCESS_TOKEN_SECRET is not set");
  // Handed over before its hour (a queue that did not keep the delay): the claim is released and the
  // message retried later, never sent early to someone who may be paying right now.
  if (job.sendAt && job.sendAt > Date.now() + 60_000)
    throw new Error("checkout reminder delivered before it is due; retried later");
  const stripe = stripeClient(env);
  const composed = await composeReminder(
    db,
    {
      d1: env.DB,
      appUrl: env.APP_URL,
      accessSecret: env.ACCESS_TOKEN_SECRET,
      creatorOf: async (id) => mailCreator(env.APP_URL, await publicCreator(db, id)),
      intentStatus: async (id) => (await stripe.paymentIntents.retrieve(id)).status,
    },
    job,
  );
  return composed ? { ...job, to: composed.to, data: composed.data } : null;
}

/** The order email lists the order as it is when sent (after the claim): null when nothing in it is paid. */
async function withOrder(db: Db, env: Bindings, job: EmailJob): Promise<EmailJob | null> {
  if (job.template !== "order") return job;
  if (!env.ACCESS_TOKEN_SECRET) throw new Error("ACCESS_TOKEN_SECRET is not set");
  const data = await orderMailData(
    { db, appUrl: env.APP_URL, accessSecret: env.ACCESS_TOKEN_SECRET },
    job.data.rootPurchaseId,
  );
  if (!data) return null;
  // To the order's address as it is now: the buyer may have corrected it while the email waited for the funnel.
  const root = await db
    .select({ email: purchases.buyerEmail })
    .from(purchases)
    .where(eq(purchases.id, job.data.rootPurchaseId))
    .get();
  return { ...job, to: root?.email ?? job.to, data };
}

export async function handleEmailBatch(batch: MessageBatch<EmailJob>, env: Bindings): Promise<void> {
  const db = createDb(env.DB);
  const transport = mailTransportFor(env);
  for (const message of batch.messages) {
    try {
      const invoiceDeps = { db, d1: env.DB, appUrl: env.APP_URL, accessSecret: env.ACCESS_TOKEN_SECRET ?? "" };
      const job = await withTaxInvoice(invoiceDeps, sellerConfig(env), await withLookups(db, env, message.body));
      if (!job) {
        await markSent(env.DB, message.body.dedupeKey);
        message.ack();
        continue;
      }
      const compose =
        job.template === "order"
          ? async (j: EmailJob) => withTaxInvoice(invoiceDeps, sellerConfig(env), await withOrder(db, env, j))
          : job.template === "checkout-reminder"
            ? (j: EmailJob) => withReminder(db, env, j)
            : undefined;
      const outcome = await deliverEmail(db, env.DB, transport, env.MAIL_FROM, job, compose);
      // Another consumer holds this message right now: look again later rather than send twice.
      if (outcome === "busy") message.retry({ delaySeconds: 30 });
      else {
        await markSent(env.DB, job.dedupeKey);
        message.ack();
      }
    } catch (err) {
      console.error("email delivery failed", message.body.template, message.attempts, err);
      await markFailed(env.DB, message.body.dedupeKey, err);
      // Backoff grows with each attempt; after max_retries the queue moves it to the dead-letter queue.
      message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
    }
  }
}
