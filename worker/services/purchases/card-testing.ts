// Card testing: the declines Stripe reported, counted per card fingerprint, buyer email and client
// address over the last hour, and the limit a checkout meets before its card is sent to Stripe.
// Behaviour: docs/security.md ("Card testing").
import type Stripe from "stripe";
import { DECLINE_LIMITS } from "../../../shared/card-testing";

const DECLINE_WINDOW_MS = 60 * 60 * 1000;

export type Payer = { fingerprint: string | null; email: string | null; clientHash: string | null };

/**
 * The client's address as stored: an HMAC with the app's secret, so a row does not give the address
 * back (IPv4 addresses are few enough to hash them all).
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

type FailedIntent = Pick<Stripe.PaymentIntent, "id" | "status"> &
  Partial<Pick<Stripe.PaymentIntent, "last_payment_error" | "receipt_email">>;

/**
 * Records the card decline Stripe reports on `intent` (its last_payment_error), once: keyed by the
 * failed Charge, or by intent and PaymentMethod when the failure has no charge (3-D Secure failed),
 * so the confirm's answer, the webhook and any repeat count one decline. Only checkouts' intents
 * count (not Pro renewals). What the caller knows (`known`) fills what the intent does not say; the
 * rest comes from the checkout's last server-side confirm and its purchase.
 */
export async function recordDecline(
  d1: D1Database,
  intent: FailedIntent,
  known: Partial<Payer> = {},
  now = Date.now(),
): Promise<void> {
  const error = intent.last_payment_error;
  if (intent.status !== "requires_payment_method" || error?.type !== "card_error") return;
  const pm = error.payment_method ?? null;
  const id = error.charge ?? (pm ? `${intent.id}:${pm.id}` : null);
  if (!id) return;
  const lastConfirm = (column: string) =>
    `(select ${column} from checkout_confirms where payment_intent_id = ?2 order by created_at desc limit 1)`;
  await d1
    .prepare(
      `insert into card_declines (id, payment_intent_id, fingerprint, email, client_hash, created_at)
       select ?1, ?2, coalesce(?3, ${lastConfirm("fingerprint")}),
         coalesce(?4, (select lower(buyer_email) from purchases where payment_intent_id = ?2), ?5),
         coalesce(?6, ${lastConfirm("client_hash")}), ?7
       where exists (select 1 from purchases where payment_intent_id = ?2)
       on conflict (id) do nothing`,
    )
    .bind(
      id,
      intent.id,
      pm?.card?.fingerprint ?? known.fingerprint ?? null,
      known.email ?? null,
      intent.receipt_email?.toLowerCase() ?? null,
      known.clientHash ?? null,
      now,
    )
    .run();
}
