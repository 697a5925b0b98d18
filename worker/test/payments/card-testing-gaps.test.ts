// Card testing around our confirm (docs/security.md "Card testing"): a checkout's start checks the
// email and address limits and keeps who started it, so declines made straight at Stripe still
// count for them; confirms in flight count; Stripe's answers map to clear errors; old rows go.
import { beforeEach, describe, expect, it } from "vitest";
import { DECLINE_LIMIT_MESSAGES, DECLINE_LIMITS } from "../../../shared/card-testing";
import { dailySweep } from "../../cron";
import { clientHashOf } from "../../services/purchases/card-testing";
import type { PurchaseVerification } from "../../../shared/payments";
import {
  CARDS,
  call,
  confirmAsStripeJs,
  contentForm,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  standin,
} from "../support/helpers";
import { confirm, openCheckout, seedDeclines, startCheckoutAt, tokenFor, tokenUse } from "./card-testing-support";
import { bytes, creatorWithItem } from "./payment-fixtures";

const hashOf = async (ip: string) =>
  (await clientHashOf((env as unknown as { ACCESS_TOKEN_SECRET: string }).ACCESS_TOKEN_SECRET, ip))!;

/** The stand-in's events of `type` about PaymentIntent `pi` (its own, or its charges'), oldest first. */
async function eventsOf(type: string, pi: string) {
  const { body } = await standin<{
    data: { id: string; type: string; data: { object: { id: string; payment_intent?: string } } }[];
  }>("GET", "/v1/events", { type, limit: "100" });
  return body.data.filter((e) => e.data.object.id === pi || e.data.object.payment_intent === pi).reverse();
}

const purchasesOf = async (contentId: string) =>
  (await row<{ n: number }>("select count(*) as n from purchases where content_id = ?", contentId))!.n;

beforeEach(async () => {
  await env.DB.batch(
    ["card_declines", "checkout_confirms", "cheap_receipts", "checkout_starts"].map((t) =>
      env.DB.prepare(`delete from ${t}`),
    ),
  );
});

describe("a checkout's start", () => {
  it("an address or email over its decline limit gets no checkout: 429, the limit's message, nothing created", async () => {
    const { item } = await creatorWithItem("start-limits@example.com");
    await seedDeclines(DECLINE_LIMITS.client, { client_hash: await hashOf("192.0.2.60") });
    await seedDeclines(DECLINE_LIMITS.email, { email: "tester@example.com" });
    const fromAddress = await startCheckoutAt(item.id, { ip: "192.0.2.60" });
    expect(fromAddress.status).toBe(429);
    expect((await fromAddress.json<{ message: string }>()).message).toBe(DECLINE_LIMIT_MESSAGES.client);
    const forEmail = await startCheckoutAt(item.id, { ip: "192.0.2.61", buyerEmail: "Tester@Example.com" });
    expect(forEmail.status).toBe(429);
    expect((await forEmail.json<{ message: string }>()).message).toBe(DECLINE_LIMIT_MESSAGES.email);
    expect(await purchasesOf(item.id)).toBe(0);
    // Another address and email start one.
    expect((await startCheckoutAt(item.id, { ip: "192.0.2.61", buyerEmail: "buyer@example.com" })).status).toBe(200);
    expect(await purchasesOf(item.id)).toBe(1);
  });

  it("a decline made straight at Stripe counts for the address and email that started the checkout", async () => {
    const { item } = await creatorWithItem("start-direct@example.com");
    const { paymentIntent, clientSecret } = await openCheckout(item.id, undefined, {
      ip: "198.51.100.70",
      buyerEmail: "Script@Example.com",
    });
    expect((await confirmAsStripeJs(clientSecret, CARDS.declined)).status).toBe(402);
    const [failed] = await eventsOf("charge.failed", paymentIntent);
    expect((await deliver(failed as never)).status).toBe(200);
    expect(
      await row("select email, client_hash from card_declines where payment_intent_id = ?", paymentIntent),
    ).toEqual({ email: "script@example.com", client_hash: await hashOf("198.51.100.70") });
  });

  it("five declines on one checkout straight at Stripe cancel its PaymentIntent", async () => {
    const { item } = await creatorWithItem("start-cancel@example.com");
    const { paymentIntent, clientSecret } = await openCheckout(item.id, undefined, { ip: "198.51.100.71" });
    const cards = [CARDS.declined, CARDS.insufficient, "4000000000000341"];
    for (let i = 0; i < 5; i++) expect((await confirmAsStripeJs(clientSecret, cards[i % 3])).status).toBe(402);
    for (const event of await eventsOf("charge.failed", paymentIntent))
      expect((await deliver(event as never)).status).toBe(200);
    const { body } = await standin<{ status: string; cancellation_reason: string }>(
      "GET",
      `/v1/payment_intents/${paymentIntent}`,
    );
    expect(body).toMatchObject({ status: "canceled", cancellation_reason: "abandoned" });
  });
});

describe("declines through our confirm", () => {
  it("five declines sent by our server do not cancel the checkout: another card still pays it", async () => {
    const { item } = await creatorWithItem("own-declines@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const cards = [CARDS.declined, CARDS.insufficient, "4000000000000341"];
    for (let i = 0; i < 5; i++)
      expect((await confirm(paymentIntent, await tokenFor(cards[i % 3]), { cookie })).status).toBe(402);
    for (const event of await eventsOf("charge.failed", paymentIntent))
      expect((await deliver(event as never)).status).toBe(200);
    expect((await standin<{ status: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body.status).toBe(
      "requires_payment_method",
    );
    expect((await confirm(paymentIntent, await tokenFor(CARDS.ok), { cookie })).status).toBe(200);
  });
});

describe("cheap receipts and a shared address", () => {
  const receiptOf = async (pi: string) =>
    row<{ id: string }>(
      "select o.id from outbox_emails o join purchases p on o.id = 'purchase-access:' || p.id where p.payment_intent_id = ?",
      pi,
    );
  async function buy(contentId: string, email: string, card: string, opts: { cookie?: string; ip: string }) {
    const open = await openCheckout(contentId, opts.cookie, { ip: opts.ip });
    const paid = await confirm(open.paymentIntent, await tokenFor(card), { cookie: open.cookie, email, ip: opts.ip });
    expect(paid.status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", open.paymentIntent))).status).toBe(200);
    return open;
  }
  const verify = async (p: { paymentIntent: string; cookie: string }) => {
    const res = await call(`/api/purchase/verify?payment_intent=${p.paymentIntent}`, { cookie: p.cookie });
    expect(res.status).toBe(200);
    return (await res.json<PurchaseVerification>()).purchase;
  };

  it("buyers behind one address (campus, mobile NAT), each with their own browser and card, all get receipts", async () => {
    const { item } = await creatorWithItem("nat@example.com", { price: "0.5" });
    const ip = "203.0.113.90";
    const one = await buy(item.id, "nat-one@example.com", CARDS.ok, { ip });
    const two = await buy(item.id, "nat-two@example.com", "5555555555554444", { ip });
    expect(await receiptOf(one.paymentIntent)).not.toBeNull();
    expect(await receiptOf(two.paymentIntent)).not.toBeNull();
    expect((await verify(two)).receiptHeld).toBe(false);
  });

  it("a held receipt: the verify answer says so, and Send it again explains why it is refused", async () => {
    const { item, cookie: creator } = await creatorWithItem("held@example.com", { price: "0.5" });
    const first = await buy(item.id, "held-one@example.com", CARDS.ok, { ip: "203.0.113.91" });
    expect((await verify(first)).receiptHeld).toBe(false);
    const res = await postForm(
      "/api/content",
      contentForm({ title: "Sticker", price: "0.5", file: new File([bytes(10)], "s.png", { type: "image/png" }) }),
      creator,
    );
    const other = (await res.json<{ id: string }>()).id;
    // The same browser and card, another address: paid, its receipt held.
    const second = await buy(other, "held-two@example.com", CARDS.ok, { cookie: first.cookie, ip: "203.0.113.92" });
    expect(await receiptOf(second.paymentIntent)).toBeNull();
    expect(await verify(second)).toMatchObject({ receiptHeld: true, emailedTo: "h…@example.com" });
    const again = await postJson(
      "/api/purchase/send-access-email",
      { paymentIntentId: second.paymentIntent, contentId: other },
      first.cookie,
    );
    expect(again.status).toBe(429);
    expect((await again.json<{ message: string }>()).message).toBe(
      "To stop spam, receipts for orders under $1.00 are limited each day, and this order's can't be emailed now. Copy your access link to keep it.",
    );
  });
});

describe("the server-side confirm", () => {
  const fingerprintOf = async (token: string) =>
    (
      await standin<{ payment_method_preview: { card: { fingerprint: string } } }>(
        "GET",
        `/v1/confirmation_tokens/${token}`,
      )
    ).body.payment_method_preview.card.fingerprint;

  it("confirms still awaiting Stripe's answer count toward the limit, so confirms sent at once cannot all pass", async () => {
    const { item } = await creatorWithItem("inflight@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const token = await tokenFor(CARDS.ok);
    const fingerprint = await fingerprintOf(token);
    await seedDeclines(DECLINE_LIMITS.card - 1, {});
    await env.DB.prepare("update card_declines set fingerprint = ?").bind(fingerprint).run();
    // Another confirm of this card, sent a moment ago and not yet answered by Stripe.
    await env.DB.prepare(
      "insert into checkout_confirms (confirmation_token, payment_intent_id, fingerprint, created_at) values ('ctoken_inflight', 'pi_other', ?, ?)",
    )
      .bind(fingerprint, Date.now() - 1000)
      .run();
    const refused = await confirm(paymentIntent, token, { cookie });
    expect(refused.status).toBe(429);
    expect((await refused.json<{ message: string }>()).message).toBe(DECLINE_LIMIT_MESSAGES.card);
    expect(await row("select 1 as yes from checkout_confirms where confirmation_token = ?", token)).toBeNull();
    // Answered (it paid): the card is under its limit again, and this confirm is answered in turn.
    await env.DB.prepare("update checkout_confirms set answered_at = ?").bind(Date.now()).run();
    expect((await confirm(paymentIntent, token, { cookie })).status).toBe(200);
    expect(
      await row<{ answered: number }>(
        "select answered_at is not null as answered from checkout_confirms where confirmation_token = ?",
        token,
      ),
    ).toEqual({ answered: 1 });
  });

  it("a failure of our own bookkeeping after Stripe answered is not reported as Stripe unreachable", async () => {
    const { item } = await creatorWithItem("bookkeeping@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const { body: token } = await standin<{ id: string }>(
      "POST",
      "/v1/confirmation_tokens",
      { "payment_method_data[type]": "link", "payment_method_data[billing_details][email]": "saver+bank@example.com" },
      "pk_test_worker",
    );
    await env.DB.exec(
      "create trigger fail_processing before update of processing_since on purchases begin select raise(abort, 'd1 down'); end",
    );
    try {
      const res = await confirm(paymentIntent, token.id, { cookie, email: "saver+bank@example.com" });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ paymentIntent, status: "processing" });
    } finally {
      await env.DB.exec("drop trigger fail_processing");
    }
  });

  it("Stripe's idempotency error (the same checkout and token sent with other details) is a 409 saying so", async () => {
    const { item } = await creatorWithItem("idempotent@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const token = await tokenFor(CARDS.ok);
    // Another request already went to Stripe under this confirm's key, with other parameters.
    const secretKey = (env as unknown as { STRIPE_SECRET_KEY: string }).STRIPE_SECRET_KEY;
    const base = (env as unknown as { STRIPE_API_BASE: string }).STRIPE_API_BASE;
    const earlier = await fetch(`${base}/v1/customers`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${secretKey}`,
        "content-type": "application/x-www-form-urlencoded",
        "idempotency-key": `checkout-confirm:${paymentIntent}:${token}`,
      },
      body: "email=other%40example.com",
    });
    expect(earlier.status).toBe(200);
    const res = await confirm(paymentIntent, token, { cookie });
    expect(res.status).toBe(409);
    expect((await res.json<{ message: string }>()).message).toBe(
      "This payment is already being sent with other details. Please reload the page.",
    );
    expect(await tokenUse(token)).toBeNull();
  });
});

describe("the daily sweep", () => {
  it("drops declines after a day, confirms and starts after a week, and a cheap receipt's payer after its day", async () => {
    const now = Date.now();
    const day = 24 * 60 * 60 * 1000;
    await env.DB.batch([
      env.DB.prepare(
        "insert into card_declines (id, payment_intent_id, fingerprint, email, client_hash, created_at) values ('old', 'pi_a', 'fp', 'a@example.com', 'h', ?), ('new', 'pi_a', 'fp', 'a@example.com', 'h', ?)",
      ).bind(now - day - 1000, now - 1000),
      env.DB.prepare(
        "insert into checkout_confirms (confirmation_token, payment_intent_id, fingerprint, email, client_hash, created_at) values ('ctoken_old', 'pi_a', 'fp', 'a@example.com', 'h', ?), ('ctoken_new', 'pi_a', 'fp', 'a@example.com', 'h', ?)",
      ).bind(now - 8 * day, now - 2 * day),
      env.DB.prepare(
        "insert into checkout_starts (payment_intent_id, client_hash, created_at) values ('pi_old', 'h', ?), ('pi_new', 'h', ?)",
      ).bind(now - 8 * day, now - 2 * day),
      env.DB.prepare(
        "insert into cheap_receipts (purchase_id, creator_id, email, fingerprint, client_hash, buyer_key_hash, created_at) values ('p_old', 'c', 'a@example.com', 'fp', 'h', 'b', ?), ('p_new', 'c', 'b@example.com', 'fp', 'h', 'b', ?)",
      ).bind(now - day - 1000, now - 1000),
    ]);
    const swept = await dailySweep(env, now);
    expect(swept.cardTestingSwept).toEqual({
      declinesDeleted: 1,
      confirmsDeleted: 1,
      startsDeleted: 1,
      cheapReceiptsCleared: 1,
    });
    expect(await rows("select id from card_declines")).toEqual([{ id: "new" }]);
    expect(await rows("select confirmation_token from checkout_confirms")).toEqual([
      { confirmation_token: "ctoken_new" },
    ]);
    expect(await rows("select payment_intent_id from checkout_starts")).toEqual([{ payment_intent_id: "pi_new" }]);
    // The old booking stays (Send it again relies on it), without who paid.
    expect(
      await rows(
        "select purchase_id, email, fingerprint, client_hash, buyer_key_hash from cheap_receipts order by purchase_id",
      ),
    ).toEqual([
      { purchase_id: "p_new", email: "b@example.com", fingerprint: "fp", client_hash: "h", buyer_key_hash: "b" },
      { purchase_id: "p_old", email: "", fingerprint: null, client_hash: null, buyer_key_hash: null },
    ]);
    // A second run changes nothing.
    expect((await dailySweep(env, now)).cardTestingSwept).toEqual({
      declinesDeleted: 0,
      confirmsDeleted: 0,
      startsDeleted: 0,
      cheapReceiptsCleared: 0,
    });
  });
});

describe("a failed 3-D Secure", () => {
  it("is reported as Stripe does (invalid_request_error) and counts once toward the card's limit", async () => {
    const { item } = await creatorWithItem("threeds-fail@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const res = await confirm(paymentIntent, await tokenFor(CARDS.threeDS), { cookie });
    expect(await res.json()).toEqual({ paymentIntent, status: "requires_action" });
    const { body: open } = await standin<{ client_secret: string }>("GET", `/v1/payment_intents/${paymentIntent}`);
    const failed = await standin<{
      status: string;
      last_payment_error: { type: string; code: string; payment_method: { id: string } };
    }>(
      "POST",
      `/_standin/payment_intents/${paymentIntent}/authenticate`,
      { client_secret: open.client_secret, outcome: "fail" },
      "pk_test_worker",
    );
    expect(failed.body).toMatchObject({
      status: "requires_payment_method",
      last_payment_error: { type: "invalid_request_error", code: "payment_intent_authentication_failure" },
    });
    const event = await eventFor("payment_intent.payment_failed", paymentIntent);
    expect((await deliver(event)).status).toBe(200);
    expect((await deliver({ ...event, id: `${event.id}x` })).status).toBe(200);
    expect(await row("select id, email from card_declines where payment_intent_id = ?", paymentIntent)).toEqual({
      id: `${paymentIntent}:${failed.body.last_payment_error.payment_method.id}`,
      email: "buyer@example.com",
    });
  });
});
