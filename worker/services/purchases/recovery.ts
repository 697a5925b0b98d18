// Abandoned-checkout recovery: one reminder per checkout with an email, written in the checkout's
// batch and decided when due (worker/queue/emails.ts, after the claim); its signed link restarts
// that checkout for that address only; a signed per-address link unsubscribes. Behaviour:
// docs/checkout-and-codes.md ("Abandoned-checkout recovery").
import { and, eq, gt, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { content, emailUnsubscribes, purchases } from "../../db/schema";
import { ApiError } from "../../lib/errors";
import { outboxInsert } from "../mail/email-outbox";
import type { EmailJob, MailCreator, ReminderMailData } from "../mail/templates";

export const REMINDER_DELAY_MS = 60 * 60 * 1000;
const RECOVER_LINK_DAYS = 7;
/** Reminders one address may get in a week, from all creators together. */
export const REMINDERS_PER_ADDRESS_PER_WEEK = 3;
const RECOVER_LINK_INVALID = "This checkout link has expired or is not valid. Open the item's page to buy it.";
const RECOVER_LINK_PAID = "This checkout is already paid. Your access link is in your receipt email.";
export const RECOVER_LINK_OTHER_EMAIL = "This checkout link is for the address the reminder was sent to.";
/** A PaymentIntent in these states is paid, or being paid: its checkout is not abandoned. */
const PAYING = ["processing", "requires_capture", "succeeded"];

async function sign(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)));
  return btoa(String.fromCharCode(...sig))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
const b64url = (s: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(s)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const fromB64url = (s: string) =>
  new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0)));

/** `{abandoned purchase}.{expiry ms}.{sig}`, signed over its email too: restarts that checkout, for that address, until it expires. */
export async function recoverToken(
  secret: string,
  purchaseId: string,
  email: string,
  now = Date.now(),
): Promise<string> {
  const exp = now + RECOVER_LINK_DAYS * 24 * 3600 * 1000;
  return `${purchaseId}.${exp}.${await sign(secret, `recover:${purchaseId}:${exp}:${email.toLowerCase()}`)}`;
}

/** The parts of a recover token that is well formed and not expired (its signature is checked against the checkout's email). */
function recoverTokenParts(token: string, now: number): { id: string; exp: string; sig: string } | null {
  const [id, exp, sig] = token.split(".");
  if (!id || !exp || !sig || !/^[A-Za-z0-9]{1,32}$/.test(id) || !/^\d{1,15}$/.test(exp) || Number(exp) < now)
    return null;
  return { id, exp, sig };
}

/** `{base64url(email)}.{sig}`: unsubscribes that one address from reminders. */
async function unsubscribeToken(secret: string, email: string): Promise<string> {
  return `${b64url(email)}.${await sign(secret, `unsubscribe:${email}`)}`;
}
export async function emailOfUnsubscribeToken(secret: string, token: string): Promise<string | null> {
  const [encoded, sig] = token.split(".");
  if (!encoded || !sig || encoded.length > 400) return null;
  let email: string;
  try {
    email = fromB64url(encoded);
  } catch {
    return null;
  }
  return sameText(sig, await sign(secret, `unsubscribe:${email}`)) ? email : null;
}

/**
 * The reminder's outbox row for a checkout with an email, due in an hour, once per checkout: the
 * statement for the change's batch (after the checkout's own row), and the row's id to hand to the
 * queue after it. `email` is where it would go now; the address it goes to is read when it is due.
 */
export async function reminder(
  d1: D1Database,
  checkout: { purchaseId: string; contentId: string; email: string },
  now: number,
  delayMs = REMINDER_DELAY_MS,
): Promise<{ statement: D1PreparedStatement; id: string }> {
  const email = checkout.email.toLowerCase();
  const job: EmailJob = {
    dedupeKey: `checkout-reminder:${checkout.contentId}:${checkout.purchaseId}`,
    to: email,
    template: "checkout-reminder",
    data: { purchaseId: checkout.purchaseId },
    sendAt: now + delayMs,
  };
  const statement = outboxInsert(d1, job, now, {
    sql: `exists (select 1 from content where id = ? and checkout_reminders = 1) and not exists (select 1 from email_unsubscribes where email = ?)
      and not exists (select 1 from purchases where id = ? and no_reminder = 1)`,
    binds: [checkout.contentId, email, checkout.purchaseId],
  });
  return { statement, id: job.dedupeKey };
}

type ReminderDeps = {
  d1: D1Database;
  appUrl: string;
  accessSecret: string;
  creatorOf: (userId: string) => Promise<MailCreator>;
  /** The PaymentIntent's status as Stripe has it now (null: unknown). */
  intentStatus: (paymentIntentId: string) => Promise<string | null>;
};

/**
 * Where the reminder goes and what it says when it is due, or null when it must not go (step 2
 * above). The last check takes the address's slot, so call it once per delivery (after the claim).
 */
export async function composeReminder(
  db: Db,
  deps: ReminderDeps,
  job: { dedupeKey: string; data: ReminderMailData },
  now = Date.now(),
): Promise<{ to: string; data: ReminderMailData } | null> {
  const p = await db.select().from(purchases).where(eq(purchases.id, job.data.purchaseId)).get();
  // A payment still processing is on its way, not abandoned.
  if (!p || !["pending", "failed"].includes(p.status) || p.noReminder || p.processingSince || !p.buyerEmail)
    return null;
  const item = await db.select().from(content).where(eq(content.id, p.contentId)).get();
  if (!item || item.deletedAt || item.unpublishedAt || item.isUpsell || !item.checkoutReminders) return null;
  const email = p.buyerEmail.toLowerCase();
  const [unsubscribed, paid, newer] = await Promise.all([
    db
      .select({ email: emailUnsubscribes.email })
      .from(emailUnsubscribes)
      .where(eq(emailUnsubscribes.email, email))
      .get(),
    db
      .select({ id: purchases.id })
      .from(purchases)
      .where(
        and(
          eq(purchases.contentId, p.contentId),
          inArray(purchases.status, ["paid", "refunded", "disputed"]),
          or(
            sql`lower(${purchases.buyerEmail}) = ${email}`,
            p.buyerKeyHash ? eq(purchases.buyerKeyHash, p.buyerKeyHash) : sql`0`,
          ),
        ),
      )
      .get(),
    p.buyerKeyHash
      ? db
          .select({ id: purchases.id })
          .from(purchases)
          .where(
            and(
              eq(purchases.contentId, p.contentId),
              eq(purchases.buyerKeyHash, p.buyerKeyHash),
              gt(purchases.createdAt, p.createdAt),
            ),
          )
          .get()
      : undefined,
  ]);
  if (unsubscribed || paid || newer) return null;
  if (p.paymentIntentId && PAYING.includes((await deps.intentStatus(p.paymentIntentId)) ?? "")) return null;
  // The address's slot, in one statement: no other reminder for this item, and under the week's cap.
  const slot = await deps.d1
    .prepare(
      `update emails_sent set to_email = ?1 where dedupe_key = ?2
         and not exists (select 1 from emails_sent where kind = 'checkout-reminder' and to_email = ?1 and dedupe_key like ?3 and dedupe_key != ?2 and provider_message_id is not null)
         and (select count(*) from emails_sent where kind = 'checkout-reminder' and to_email = ?1 and dedupe_key != ?2 and created_at > ?4
              and (provider_message_id is not null or status = 'sending')) < ?5
       returning dedupe_key`,
    )
    .bind(
      email,
      job.dedupeKey,
      `checkout-reminder:${p.contentId}:%`,
      now - 7 * 24 * 3600 * 1000,
      REMINDERS_PER_ADDRESS_PER_WEEK,
    )
    .all();
  if (!slot.results.length) return null;
  const recover = new URL(`/checkout/${encodeURIComponent(p.contentId)}`, deps.appUrl);
  recover.searchParams.set("recover", await recoverToken(deps.accessSecret, p.id, email, now));
  const unsubscribe = new URL("/api/unsubscribe", deps.appUrl);
  unsubscribe.searchParams.set("token", await unsubscribeToken(deps.accessSecret, email));
  return {
    to: email,
    data: {
      purchaseId: p.id,
      title: item.title,
      amountCents: p.amountCents,
      recoverUrl: recover.toString(),
      unsubscribeUrl: unsubscribe.toString(),
      creator: await deps.creatorOf(item.userId),
    },
  };
}

/**
 * The checkout a recover link restarts (its item, amount, code and email, for `startCheckout`):
 * 400 when the link is not valid for this item, 409 once that checkout, or one started from it, is paid.
 */
export async function abandonedCheckout(db: Db, secret: string, token: string, contentId: string, now = Date.now()) {
  const parts = recoverTokenParts(token, now);
  const p = parts ? await db.select().from(purchases).where(eq(purchases.id, parts.id)).get() : undefined;
  const signed =
    !!p?.buyerEmail &&
    sameText(parts!.sig, await sign(secret, `recover:${parts!.id}:${parts!.exp}:${p.buyerEmail.toLowerCase()}`));
  if (!p || !signed || p.contentId !== contentId || p.funnelStepId)
    throw new ApiError(400, `recoverToken: ${RECOVER_LINK_INVALID}`);
  const paid = ["paid", "refunded", "disputed"] as const;
  const recovered = await db
    .select({ id: purchases.id })
    .from(purchases)
    .where(and(eq(purchases.recoveredFrom, p.id), inArray(purchases.status, paid)))
    .get();
  if ((paid as readonly string[]).includes(p.status) || recovered)
    throw new ApiError(409, `recoverToken: ${RECOVER_LINK_PAID}`);
  return { ...p, buyerEmail: p.buyerEmail!.toLowerCase() };
}

export async function unsubscribe(d1: D1Database, email: string): Promise<void> {
  await d1
    .prepare("insert into email_unsubscribes (email, created_at) values (?, ?) on conflict do nothing")
    .bind(email.toLowerCase(), Date.now())
    .run();
}
