// Card testing: the declines Stripe reported, counted per card fingerprint, buyer email and client
// address over the last hour; the limit a checkout meets before its card is sent to Stripe; a
// checkout declined too often canceled at Stripe. Behaviour: docs/security.md ("Card testing").
import type Stripe from "stripe";
import { DECLINE_LIMITS } from "../../../shared/card-testing";
import { idOf, type PurchaseDeps } from "./deps";

const DECLINE_WINDOW_MS = 60 * 60 * 1000;

export type Payer = { fingerprint: string | null; email: string | null; clientHash: string | null };

/**
 * The client's address as stored: an HMAC with the app's secret, so a row does not give the address
 * back (IPv4 addresses are few enough to hash them all). `address` is the limiters' client key
 * (worker/lib/rate-limit.ts `clientKey`): an IPv6 client is its /64, which one attacker holds whole.
 */
export async function clientHashOf(secret: string, address: string | undefined): Promise<string | null> {
  if (!address) return null;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(`client-address:${secret}`),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(address)));
  return [...mac.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Which limit, if any, this payer has reached: declines in the last hour by card, by email, by address. */
export async function declineLimitReached(
  d1: D1Database,
  payer: Payer,
  now = Date.now(),
): Promise<keyof typeof DECLINE_LIMITS | null> {
  const since = now - DECLINE_WINDOW_MS;
  const row = await d1
    .prepare(
      `select
        (select count(*) from card_declines where ?1 is not null and fingerprint = ?1 and created_at > ?4) as card,
        (select count(*) from card_declines where ?2 is not null and email = ?2 and created_at > ?4) as email,
        (select count(*) from card_declines where ?3 is not null and client_hash = ?3 and created_at > ?4) as client`,
    )
    .bind(payer.fingerprint, payer.email, payer.clientHash, since)
    .first<Record<keyof typeof DECLINE_LIMITS, number>>();
  if (!row) return null;
  for (const kind of ["card", "email", "client"] as const) if (row[kind] >= DECLINE_LIMITS[kind]) return kind;
  return null;
}

/** Declines plus server-side confirms still awaiting Stripe's answer, per card, email and address (?1-?3) since ?4. */
const ATTEMPTS = (kind: "fingerprint" | "email" | "client_hash", at: string) =>
  `(select count(*) from card_declines where ${at} is not null and ${kind} = ${at} and created_at > ?4)
   + (select count(*) from checkout_confirms where ${at} is not null and ${kind} = ${at}
      and answered_at is null and created_at > ?4)`;

/**
 * Records a server-side confirm about to be sent to Stripe, in one conditional insert that counts the
 * payer's declines and confirms still in flight, so confirms sent at once cannot all pass the limit.
 * Answers "sent" (recorded, or this token already was: Stripe's idempotency answers the repeat) or
 * the limit reached.
 */
export async function claimConfirm(
  d1: D1Database,
  confirm: { token: string; paymentIntentId: string; payer: Payer },
  now = Date.now(),
): Promise<"sent" | keyof typeof DECLINE_LIMITS> {
  const { fingerprint, email, clientHash } = confirm.payer;
  const since = now - DECLINE_WINDOW_MS;
  // Twice: an attempt in flight answered between the insert and the re-read leaves room for this one.
  for (let round = 0; round < 2; round++) {
    const inserted = await d1
      .prepare(
        `insert into checkout_confirms (confirmation_token, payment_intent_id, fingerprint, email, client_hash, created_at)
         select ?5, ?6, ?1, ?2, ?3, ?7
         from (select ${ATTEMPTS("fingerprint", "?1")} as card, ${ATTEMPTS("email", "?2")} as email,
           ${ATTEMPTS("client_hash", "?3")} as client) tried
         where tried.card < ?8 and tried.email < ?9 and tried.client < ?10
         on conflict (confirmation_token) do nothing`,
      )
      .bind(
        fingerprint,
        email,
        clientHash,
        since,
        confirm.token,
        confirm.paymentIntentId,
        now,
        DECLINE_LIMITS.card,
        DECLINE_LIMITS.email,
        DECLINE_LIMITS.client,
      )
      .run();
    if (inserted.meta.changes > 0) return "sent";
    const row = await d1
      .prepare(
        `select exists (select 1 from checkout_confirms where confirmation_token = ?5) as repeat,
          ${ATTEMPTS("fingerprint", "?1")} as card, ${ATTEMPTS("email", "?2")} as email,
          ${ATTEMPTS("client_hash", "?3")} as client`,
      )
      .bind(fingerprint, email, clientHash, since, confirm.token)
      .first<Record<keyof typeof DECLINE_LIMITS | "repeat", number>>();
    if (row?.repeat) return "sent";
    const kind = (["card", "email", "client"] as const).find((k) => (row?.[k] ?? 0) >= DECLINE_LIMITS[k]);
    if (kind) return kind;
  }
  return "card";
}

/** Stripe answered this confirm (paid, declined or refused): it no longer counts as in flight. */
export async function confirmAnswered(d1: D1Database, token: string, now = Date.now()): Promise<void> {
  await d1
    .prepare("update checkout_confirms set answered_at = ? where confirmation_token = ? and answered_at is null")
    .bind(now, token)
    .run()
    .catch((err) => console.error("could not mark a confirm answered", token, err));
}

type FailedIntent = Pick<Stripe.PaymentIntent, "id" | "status"> &
  Partial<Pick<Stripe.PaymentIntent, "last_payment_error" | "receipt_email">>;

type Decline = {
  id: string;
  paymentIntentId: string;
  fingerprint: string | null;
  email: string | null;
  receiptEmail: string | null;
  clientHash: string | null;
};

/**
 * One decline row, once (its id is Stripe's failed Charge, or intent and PaymentMethod for a failure
 * without one). Only checkouts' intents count (not Pro renewals). What the caller does not know comes
 * from the checkout's last server-side confirm, its purchase (the email) and its start (the address).
 */
async function insertDecline(d1: D1Database, d: Decline, now: number): Promise<void> {
  const lastConfirm = (column: string) =>
    `(select ${column} from checkout_confirms where payment_intent_id = ?2 order by created_at desc limit 1)`;
  await d1
    .prepare(
      `insert into card_declines (id, payment_intent_id, fingerprint, email, client_hash, created_at)
       select ?1, ?2, coalesce(?3, ${lastConfirm("fingerprint")}),
         coalesce(?4, (select lower(buyer_email) from purchases where payment_intent_id = ?2), ?5),
         coalesce(?6, ${lastConfirm("client_hash")},
           (select client_hash from checkout_starts where payment_intent_id = ?2)), ?7
       where exists (select 1 from purchases where payment_intent_id = ?2)
       on conflict (id) do nothing`,
    )
    .bind(d.id, d.paymentIntentId, d.fingerprint, d.email, d.receiptEmail?.toLowerCase() ?? null, d.clientHash, now)
    .run();
}

/**
 * Records the card decline Stripe reports on `intent` (its last_payment_error): the confirm's 402,
 * and every read of a checkout's intent (the payment_intent.payment_failed webhook, a sync), so
 * both paths and any repeat count one decline. `known`: what the confirm knows of the payer.
 */
export async function recordDecline(
  d1: D1Database,
  intent: FailedIntent,
  known: Partial<Payer> = {},
  now = Date.now(),
): Promise<void> {
  const error = intent.last_payment_error;
  // A failed 3-D Secure counts too (Stripe types it invalid_request_error): a tester's stolen card
  // fails its bank's check exactly so, and the card limit leaves a real buyer room to retry.
  const counted = error?.type === "card_error" || error?.code === "payment_intent_authentication_failure";
  if (intent.status !== "requires_payment_method" || !counted) return;
  const pm = error.payment_method ?? null;
  const id = error.charge ?? (pm ? `${intent.id}:${pm.id}` : null);
  if (!id) return;
  await insertDecline(
    d1,
    {
      id,
      paymentIntentId: intent.id,
      fingerprint: pm?.card?.fingerprint ?? known.fingerprint ?? null,
      email: known.email ?? null,
      receiptEmail: intent.receipt_email ?? null,
      clientHash: known.clientHash ?? null,
    },
    now,
  );
}

/**
 * Declines of one checkout in an hour made straight at Stripe (beyond the confirms our server sent
 * for it, each of which meets the limits first), whatever the cards, after which it is canceled.
 */
const INTENT_DECLINE_LIMIT = 5;

/**
 * charge.failed: each failed Charge once (declines that land faster than the intent is re-read are
 * each counted), then a checkout whose PaymentIntent was declined INTENT_DECLINE_LIMIT times around
 * our confirm in the hour is canceled at Stripe, so a script confirming it straight at Stripe with
 * its client secret cannot go on testing cards on it; the buyer starts a new checkout. A buyer whose
 * cards were declined through our confirm keeps the checkout: another card still pays it.
 */
export async function onChargeFailed(deps: Pick<PurchaseDeps, "d1" | "stripe">, chargeId: string): Promise<void> {
  const charge = await deps.stripe.charges.retrieve(chargeId);
  const paymentIntentId = idOf(charge.payment_intent);
  if (charge.status !== "failed" || !paymentIntentId) return;
  const now = Date.now();
  await insertDecline(
    deps.d1,
    {
      id: charge.id,
      paymentIntentId,
      fingerprint: charge.payment_method_details?.card?.fingerprint ?? null,
      email: null,
      receiptEmail: charge.receipt_email ?? charge.billing_details?.email ?? null,
      clientHash: null,
    },
    now,
  );
  const tried = await deps.d1
    .prepare(
      `select (select count(*) from card_declines where payment_intent_id = ?1 and created_at > ?2)
         - (select count(*) from checkout_confirms where payment_intent_id = ?1 and created_at > ?2) as n
       where exists (select 1 from purchases where payment_intent_id = ?1 and status = 'pending')`,
    )
    .bind(paymentIntentId, now - DECLINE_WINDOW_MS)
    .first<{ n: number }>();
  if ((tried?.n ?? 0) < INTENT_DECLINE_LIMIT) return;
  const intent = await deps.stripe.paymentIntents.retrieve(paymentIntentId);
  if (intent.status !== "requires_payment_method") return;
  await deps.stripe.paymentIntents
    .cancel(
      paymentIntentId,
      { cancellation_reason: "abandoned" },
      { idempotencyKey: `card-testing:${paymentIntentId}` },
    )
    .catch((err: { code?: string }) => {
      // Paid or canceled meanwhile: nothing left to stop.
      if (err.code !== "payment_intent_unexpected_state") throw err;
    });
}

/** How long a checkout's confirms and start are kept: Stripe retries a webhook for 3 days, and a bank payment settles within days. */
const CONFIRMS_KEPT_MS = 7 * 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The daily sweep's part: declines go a day after (the limits read the last hour); confirms and
 * starts after CONFIRMS_KEPT_MS; a cheap receipt's booking keeps only its purchase and creator once
 * its day is over ("Send it again" needs the booking, the cap only the last day's payers).
 */
export async function sweepCardTesting(d1: D1Database, now = Date.now()) {
  const [declines, confirms, starts, receipts] = await d1.batch([
    d1.prepare("delete from card_declines where created_at < ?").bind(now - DAY_MS),
    d1.prepare("delete from checkout_confirms where created_at < ?").bind(now - CONFIRMS_KEPT_MS),
    d1.prepare("delete from checkout_starts where created_at < ?").bind(now - CONFIRMS_KEPT_MS),
    d1
      .prepare(
        `update cheap_receipts set email = '', fingerprint = null, client_hash = null, buyer_key_hash = null
         where created_at < ? and (email <> '' or fingerprint is not null or client_hash is not null or buyer_key_hash is not null)`,
      )
      .bind(now - DAY_MS),
  ]);
  return {
    declinesDeleted: declines.meta.changes,
    confirmsDeleted: confirms.meta.changes,
    startsDeleted: starts.meta.changes,
    cheapReceiptsCleared: receipts.meta.changes,
  };
}
