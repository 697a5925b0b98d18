// What the card-testing tests share: Stripe.js's ConfirmationToken for a card, our server-side
// confirm, a checkout started by a browser, declines seeded in the last hour (docs/security.md).
import { expect } from "vitest";
import { call, cookieValue, env, standin } from "../support/helpers";

const year = String(new Date().getFullYear() + 3);

/** What Stripe.js's createConfirmationToken makes from a card typed into the Payment Element. */
export async function tokenFor(card: string): Promise<string> {
  const { status, body } = await standin<{ id: string }>(
    "POST",
    "/v1/confirmation_tokens",
    {
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": card,
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": year,
      "payment_method_data[card][cvc]": "123",
    },
    "pk_test_worker",
  );
  expect(status).toBe(200);
  return body.id;
}

export function confirm(
  paymentIntent: string,
  confirmationToken: string,
  opts: { cookie?: string; email?: string; ip?: string } = {},
) {
  return call("/api/checkout/confirm", {
    method: "POST",
    headers: { "content-type": "application/json", ...(opts.ip ? { "cf-connecting-ip": opts.ip } : {}) },
    body: JSON.stringify({ paymentIntent, confirmationToken, email: opts.email ?? "buyer@example.com" }),
    cookie: opts.cookie,
  });
}

/** POST /api/create-payment-intent from `ip` (CF-Connecting-IP), with the email typed, if any. */
export function startCheckoutAt(contentId: string, opts: { cookie?: string; ip?: string; buyerEmail?: string }) {
  return call("/api/create-payment-intent", {
    method: "POST",
    headers: { "content-type": "application/json", ...(opts.ip ? { "cf-connecting-ip": opts.ip } : {}) },
    body: JSON.stringify({ contentId, ...(opts.buyerEmail ? { buyerEmail: opts.buyerEmail } : {}) }),
    cookie: opts.cookie,
  });
}

export async function openCheckout(
  contentId: string,
  cookie?: string,
  opts: { ip?: string; buyerEmail?: string } = {},
) {
  const res = await startCheckoutAt(contentId, { cookie, ...opts });
  expect(res.status).toBe(200);
  const { clientSecret } = await res.json<{ clientSecret: string }>();
  return {
    paymentIntent: clientSecret.split("_secret_")[0],
    clientSecret,
    cookie: cookie ?? `aw_buyer=${cookieValue(res, "aw_buyer")}`,
  };
}

export const tokenUse = async (id: string) =>
  (await standin<{ payment_intent: string | null }>("GET", `/v1/confirmation_tokens/${id}`)).body.payment_intent;
export const failedEvents = async (pi: string) =>
  (
    await standin<{ data: { data: { object: { id: string } } }[] }>("GET", "/v1/events", {
      type: "payment_intent.payment_failed",
      limit: "100",
    })
  ).body.data.filter((e) => e.data.object.id === pi).length;

export async function seedDeclines(n: number, fields: { email?: string; client_hash?: string }) {
  for (let i = 0; i < n; i++)
    await env.DB.prepare(
      "insert into card_declines (id, payment_intent_id, email, client_hash, created_at) values (?, 'pi_seed', ?, ?, ?)",
    )
      .bind(`seed-${crypto.randomUUID()}`, fields.email ?? null, fields.client_hash ?? null, Date.now() - 60_000)
      .run();
}
