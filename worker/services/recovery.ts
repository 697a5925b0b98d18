// Abandoned-checkout recovery (issue 19): a buyer who gave an email at checkout and did not pay gets
// ONE reminder an hour later, with a link back to checkout at the same price.
//
// 1. write: when a pending checkout gets an email (the checkout page sends it as the buyer types it,
//    or create-payment-intent carries one), the same D1 batch writes the reminder's outbox row,
//    due an hour later (`sendAt`, handed to the queue as delaySeconds: no polling). Its id is keyed
//    by buyer and item, so a buyer gets at most one reminder per item, ever (the consumer's claim in
//    emails_sent is kept for good). The insert is guarded: the item's reminders are on and the
//    address has not unsubscribed.
// 2. decide, when it is due (worker/queue/emails.ts, after the claim): nothing is sent when that
//    email or that browser has paid for the item since, when the checkout is no longer open, when the
//    address unsubscribed or the creator turned reminders off meanwhile, or the item is off sale.
// 3. come back: the link carries a signed token (HMAC with ACCESS_TOKEN_SECRET; it names the
//    abandoned checkout and expires in RECOVER_LINK_DAYS) that can do one thing: start a checkout of
//    that item at that checkout's amount. The new purchase records `recovered_from`, which is what
//    analytics counts as recovered.
// 4. unsubscribe: a signed link per address; GET shows a button (mail scanners fetch links), POST
//    records the address in email_unsubscribes, honoured forever for reminders. Receipts still go.
import { and, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { content, emailUnsubscribes, purchases } from "../db/schema";
import { ApiError } from "../lib/errors";
import { sha256Hex } from "../lib/ids";
import { outboxInsert } from "./mail/email-outbox";
import type { EmailJob, MailCreator } from "./mail/templates";

export const REMINDER_DELAY_MS = 60 * 60 * 1000;
export const RECOVER_LINK_DAYS = 7;
export const RECOVER_LINK_INVALID = "This checkout link has expired or is not valid. Open the item's page to buy it.";

async function sign(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(message)));
  return btoa(String.fromCharCode(...sig)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
const b64url = (s: string) => btoa(String.fromCharCode(...new TextEncoder().encode(s))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromB64url = (s: string) => new TextDecoder().decode(Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0)));

/** `{abandoned purchase}.{expiry ms}.{sig}`: restarts that checkout, at its amount, until it expires. */
export async function recoverToken(secret: string, purchaseId: string, now = Date.now()): Promise<string> {
  const exp = now + RECOVER_LINK_DAYS * 24 * 3600 * 1000;
  return `${purchaseId}.${exp}.${await sign(secret, `recover:${purchaseId}:${exp}`)}`;
}

/** The abandoned purchase a recover token names, or null (tampered, expired, malformed). */
export async function purchaseOfRecoverToken(secret: string, token: string, now = Date.now()): Promise<string | null> {
  const [id, exp, sig] = token.split(".");
  if (!id || !exp || !sig || !/^[A-Za-z0-9]{1,32}$/.test(id) || !/^\d{1,15}$/.test(exp) || Number(exp) < now) return null;
  return sameText(sig, await sign(secret, `recover:${id}:${exp}`)) ? id : null;
}

/** `{base64url(email)}.{sig}`: unsubscribes that one address from reminders. */
export async function unsubscribeToken(secret: string, email: string): Promise<string> {
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
 * The reminder's outbox row for a checkout with an email, due in an hour, once per buyer and item:
 * the statement for the change's batch, and the row's id to hand to the queue after it.
 */
export async function reminder(d1: D1Database, checkout: { purchaseId: string; contentId: string; email: string }, now: number, delayMs = REMINDER_DELAY_MS): Promise<{ statement: D1PreparedStatement; id: string }> {
  const email = checkout.email.toLowerCase();
  const job: EmailJob = {
    dedupeKey: `checkout-reminder:${(await sha256Hex(email)).slice(0, 32)}:${checkout.contentId}`,
    to: email,
    template: "checkout-reminder",
    data: { purchaseId: checkout.purchaseId },
    sendAt: now + delayMs,
  };
  const statement = outboxInsert(d1, job, now, {
    sql: "exists (select 1 from content where id = ? and checkout_reminders = 1) and not exists (select 1 from email_unsubscribes where email = ?)",
    binds: [checkout.contentId, email],
  });
  return { statement, id: job.dedupeKey };
}

export type ReminderMailData = {
  purchaseId: string;
  title?: string;
  amountCents?: number;
  recoverUrl?: string;
  unsubscribeUrl?: string;
  creator?: MailCreator;
};

/**
 * What the reminder says when it is due, or null when it must not go (step 2 above). `creatorOf`
 * names who the buyer would pay.
 */
export async function composeReminder(
  db: Db,
  deps: { appUrl: string; accessSecret: string; creatorOf: (userId: string) => Promise<MailCreator> },
  job: { to: string; data: ReminderMailData },
): Promise<ReminderMailData | null> {
  const p = await db.select().from(purchases).where(eq(purchases.id, job.data.purchaseId)).get();
  // A payment still processing is on its way, not abandoned.
  if (!p || !["pending", "failed"].includes(p.status) || p.processingSince) return null;
  const item = await db.select().from(content).where(eq(content.id, p.contentId)).get();
  if (!item || item.deletedAt || item.unpublishedAt || item.isUpsell || !item.checkoutReminders) return null;
  const email = job.to.toLowerCase();
  const [unsubscribed, paid] = await Promise.all([
    db.select({ email: emailUnsubscribes.email }).from(emailUnsubscribes).where(eq(emailUnsubscribes.email, email)).get(),
    db
      .select({ id: purchases.id })
      .from(purchases)
      .where(
        and(
          eq(purchases.contentId, p.contentId),
          inArray(purchases.status, ["paid", "refunded", "disputed"]),
          or(sql`lower(${purchases.buyerEmail}) = ${email}`, p.buyerKeyHash ? eq(purchases.buyerKeyHash, p.buyerKeyHash) : sql`0`),
        ),
      )
      .get(),
  ]);
  if (unsubscribed || paid) return null;
  const recover = new URL(`/checkout/${encodeURIComponent(p.contentId)}`, deps.appUrl);
  recover.searchParams.set("recover", await recoverToken(deps.accessSecret, p.id));
  const unsubscribe = new URL("/api/unsubscribe", deps.appUrl);
  unsubscribe.searchParams.set("token", await unsubscribeToken(deps.accessSecret, email));
  return {
    purchaseId: p.id,
    title: item.title,
    amountCents: p.amountCents,
    recoverUrl: recover.toString(),
    unsubscribeUrl: unsubscribe.toString(),
    creator: await deps.creatorOf(item.userId),
  };
}

/** The checkout a recover link restarts: its item, amount and code, for `startCheckout`. */
export async function abandonedCheckout(db: Db, secret: string, token: string, contentId: string) {
  const id = await purchaseOfRecoverToken(secret, token);
  const p = id ? await db.select().from(purchases).where(eq(purchases.id, id)).get() : undefined;
  if (!p || p.contentId !== contentId || p.funnelStepId) throw new ApiError(400, `recoverToken: ${RECOVER_LINK_INVALID}`);
  return p;
}

export async function unsubscribe(d1: D1Database, email: string): Promise<void> {
  await d1.prepare("insert into email_unsubscribes (email, created_at) values (?, ?) on conflict do nothing").bind(email.toLowerCase(), Date.now()).run();
}
