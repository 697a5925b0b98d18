// Card testing (docs/security.md "Card testing"): a checkout is confirmed by our server with Stripe's
// ConfirmationToken, which refuses a card, email or address over its decline limit before Stripe is
// asked; declines count once from every path; cheap orders cannot mass-mail receipts.
import { beforeEach, describe, expect, it } from "vitest";
import { CHEAP_RESEND_REFUSED, DECLINE_LIMIT_MESSAGES, DECLINE_LIMITS } from "../../../shared/card-testing";
import { clientHashOf } from "../../services/purchases/card-testing";
import {
  CARDS,
  call,
  contentForm,
  confirmAsStripeJs,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  standin,
} from "../support/helpers";
import { bytes, creatorWithItem } from "./payment-fixtures";
import { confirm, failedEvents, openCheckout, seedDeclines, tokenFor, tokenUse } from "./card-testing-support";

beforeEach(async () => {
  await env.DB.batch(
    ["card_declines", "checkout_confirms", "cheap_receipts"].map((t) => env.DB.prepare(`delete from ${t}`)),
  );
});

describe("declines per card", () => {
  it("five declines of one card in an hour: the sixth is refused before Stripe, from any browser; another card pays", async () => {
    const { item } = await creatorWithItem("cards@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    for (let i = 0; i < DECLINE_LIMITS.card; i++) {
      const res = await confirm(paymentIntent, await tokenFor(CARDS.declined), { cookie, ip: "203.0.113.7" });
      expect(res.status).toBe(402);
      expect((await res.json<{ message: string }>()).message).toBe("Your card was declined.");
    }
    const recorded = await rows<{ fingerprint: string; email: string; client_hash: string }>(
      "select fingerprint, email, client_hash from card_declines",
    );
    expect(recorded).toHaveLength(5);
    expect(new Set(recorded.map((r) => `${r.fingerprint}|${r.email}|${r.client_hash}`)).size).toBe(1);
    expect(recorded[0]).toMatchObject({ email: "buyer@example.com", fingerprint: expect.any(String) });
    expect(recorded[0].client_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(recorded[0].client_hash).not.toContain("203.0.113.7");

    const sixth = await tokenFor(CARDS.declined);
    const refused = await confirm(paymentIntent, sixth, { cookie, ip: "203.0.113.7" });
    expect(refused.status).toBe(429);
    expect((await refused.json<{ message: string }>()).message).toBe(DECLINE_LIMIT_MESSAGES.card);
    // Stripe never saw it: the token is unused and no sixth attempt failed there.
    expect(await tokenUse(sixth)).toBeNull();
    expect(await failedEvents(paymentIntent)).toBe(5);

    // The same card from another browser, address and email: refused too.
    const other = await openCheckout(item.id);
    const elsewhere = await confirm(other.paymentIntent, await tokenFor(CARDS.declined), {
      cookie: other.cookie,
      ip: "198.51.100.9",
      email: "someone-else@example.com",
    });
    expect(elsewhere.status).toBe(429);

    // Another card pays this very checkout.
    const good = await tokenFor(CARDS.ok);
    const paid = await confirm(paymentIntent, good, { cookie, ip: "203.0.113.7" });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ paymentIntent, status: "succeeded" });
    expect(await tokenUse(good)).toBe(paymentIntent);
    const { body } = await standin<{ status: string; receipt_email: string }>(
      "GET",
      `/v1/payment_intents/${paymentIntent}`,
    );
    expect(body).toMatchObject({ status: "succeeded", receipt_email: "buyer@example.com" });
  });

  it("a card that asks its bank answers requires_action; the browser finishes it with Stripe.js", async () => {
    const { item } = await creatorWithItem("threeds@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const res = await confirm(paymentIntent, await tokenFor(CARDS.threeDS), { cookie });
    expect(await res.json()).toEqual({ paymentIntent, status: "requires_action" });
    const { body } = await standin<{ client_secret: string }>("GET", `/v1/payment_intents/${paymentIntent}`);
    // What Stripe.js's handleNextAction does once the buyer completes the bank's screen.
    const done = await standin<{ status: string }>(
      "POST",
      `/_standin/payment_intents/${paymentIntent}/authenticate`,
      { client_secret: body.client_secret },
      "pk_test_worker",
    );
    expect(done.body.status).toBe("succeeded");
  });
});

describe("wallets through the server", () => {
  it("a Link wallet paying from a bank answers processing, and the checkout is marked on its way", async () => {
    const { item } = await creatorWithItem("wallet@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    // What createConfirmationToken makes from the Express Checkout Element's approved Link wallet.
    const { body: token } = await standin<{ id: string; payment_method_preview: { type: string } }>(
      "POST",
      "/v1/confirmation_tokens",
      { "payment_method_data[type]": "link", "payment_method_data[billing_details][email]": "saver+bank@example.com" },
      "pk_test_worker",
    );
    expect(token.payment_method_preview.type).toBe("link");
    const res = await confirm(paymentIntent, token.id, { cookie, email: "saver+bank@example.com" });
    expect(await res.json()).toEqual({ paymentIntent, status: "processing" });
    expect(
      await row(
        "select processing_since is not null as marked from purchases where payment_intent_id = ?",
        paymentIntent,
      ),
    ).toEqual({ marked: 1 });
  });
});

describe("declines per email and per client address", () => {
  it("an email with ten declines in the hour is refused, and nothing is sent to Stripe; another email pays", async () => {
    const { item } = await creatorWithItem("emails@example.com");
    await seedDeclines(DECLINE_LIMITS.email, { email: "tester@example.com" });
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const token = await tokenFor(CARDS.ok);
    const res = await confirm(paymentIntent, token, { cookie, email: "Tester@Example.com" });
    expect(res.status).toBe(429);
    expect((await res.json<{ message: string }>()).message).toBe(DECLINE_LIMIT_MESSAGES.email);
    expect(await tokenUse(token)).toBeNull();
    // Declines older than an hour do not count.
    await env.DB.prepare("update card_declines set created_at = ?")
      .bind(Date.now() - 61 * 60_000)
      .run();
    expect((await confirm(paymentIntent, token, { cookie, email: "tester@example.com" })).status).toBe(200);
  });

  it("an address with twenty declines in the hour is refused; another address pays", async () => {
    const { item } = await creatorWithItem("addresses@example.com");
    const secret = (env as unknown as { ACCESS_TOKEN_SECRET: string }).ACCESS_TOKEN_SECRET;
    await seedDeclines(DECLINE_LIMITS.client, { client_hash: (await clientHashOf(secret, "192.0.2.44"))! });
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const token = await tokenFor(CARDS.ok);
    const res = await confirm(paymentIntent, token, { cookie, ip: "192.0.2.44", email: "new@example.com" });
    expect(res.status).toBe(429);
    expect((await res.json<{ message: string }>()).message).toBe(DECLINE_LIMIT_MESSAGES.client);
    expect(await tokenUse(token)).toBeNull();
    expect((await confirm(paymentIntent, token, { cookie, ip: "192.0.2.45", email: "new@example.com" })).status).toBe(
      200,
    );
  });
});

describe("an IPv6 client is its /64", () => {
  it("declines from one address count for every address of its /64; another /64 pays", async () => {
    const { item } = await creatorWithItem("addresses-v6@example.com");
    const secret = (env as unknown as { ACCESS_TOKEN_SECRET: string }).ACCESS_TOKEN_SECRET;
    await seedDeclines(DECLINE_LIMITS.client, { client_hash: (await clientHashOf(secret, "2001:db8:0:7::/64"))! });
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const token = await tokenFor(CARDS.ok);
    const res = await confirm(paymentIntent, token, { cookie, ip: "2001:DB8:0:7:abcd::99", email: "v6@example.com" });
    expect(res.status).toBe(429);
    expect((await res.json<{ message: string }>()).message).toBe(DECLINE_LIMIT_MESSAGES.client);
    expect(
      (await confirm(paymentIntent, token, { cookie, ip: "2001:db8:0:8::1", email: "v6@example.com" })).status,
    ).toBe(200);
  });
});

describe("a decline counts once", () => {
  it("the confirm's answer, the webhook, a repeat of it and a sync are one decline; one made around our confirm counts too", async () => {
    const { item } = await creatorWithItem("once@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    expect((await confirm(paymentIntent, await tokenFor(CARDS.declined), { cookie, ip: "203.0.113.8" })).status).toBe(
      402,
    );
    const count = async () => (await row<{ n: number }>("select count(*) as n from card_declines"))!.n;
    expect(await count()).toBe(1);
    const event = await eventFor("payment_intent.payment_failed", paymentIntent);
    expect((await deliver(event)).status).toBe(200);
    expect((await deliver({ ...event, id: `${event.id}x` })).status).toBe(200);
    expect((await deliver(await eventFor("charge.failed", paymentIntent))).status).toBe(200);
    expect((await call(`/api/payments/${paymentIntent}/complete`, { method: "POST", cookie })).status).toBe(200);
    expect(await count()).toBe(1);

    // A script confirming straight at Stripe with the client secret: the webhook still counts it,
    // with the address of the checkout's last confirm.
    const { clientSecret } = await standin<{ client_secret: string }>(
      "GET",
      `/v1/payment_intents/${paymentIntent}`,
    ).then((r) => ({ clientSecret: r.body.client_secret }));
    expect((await confirmAsStripeJs(clientSecret, CARDS.insufficient)).status).toBe(402);
    const events = await standin<{ data: { id: string; data: { object: { id: string } } }[] }>("GET", "/v1/events", {
      type: "payment_intent.payment_failed",
      limit: "100",
    });
    const latest = events.body.data.find((e) => e.data.object.id === paymentIntent && e.id !== event.id)!;
    expect((await deliver(latest as never)).status).toBe(200);
    expect(await count()).toBe(2);
    const direct = await row<{ client_hash: string | null; fingerprint: string | null }>(
      "select client_hash, fingerprint from card_declines order by created_at desc, rowid desc limit 1",
    );
    expect(direct?.client_hash).toMatch(/^[0-9a-f]{32}$/);
    expect(direct?.fingerprint).toBeTruthy();
  });
});

/** The stand-in's events of `type` about PaymentIntent `pi` (its own, or its charges'), oldest first. */
async function eventsOf(type: string, pi: string) {
  const { body } = await standin<{
    data: { id: string; type: string; data: { object: { id: string; payment_intent?: string } } }[];
  }>("GET", "/v1/events", { type, limit: "100" });
  return body.data.filter((e) => e.data.object.id === pi || e.data.object.payment_intent === pi).reverse();
}

describe("a script confirming at Stripe with the client secret", () => {
  it("every failed charge counts once, and after five the checkout's PaymentIntent is canceled at Stripe", async () => {
    const { item } = await creatorWithItem("script@example.com");
    const { paymentIntent, clientSecret, cookie } = await openCheckout(item.id);
    // Ten declines, faster than any webhook: only then are Stripe's events delivered (the fifth cancels).
    const cards = [CARDS.declined, CARDS.insufficient, "4000000000000341"];
    for (let i = 0; i < 10; i++) expect((await confirmAsStripeJs(clientSecret, cards[i % 3])).status).toBe(402);
    const failed = await eventsOf("charge.failed", paymentIntent);
    expect(failed).toHaveLength(10);
    for (const event of failed) expect((await deliver(event as never)).status).toBe(200);
    for (const event of await eventsOf("payment_intent.payment_failed", paymentIntent))
      expect((await deliver(event as never)).status).toBe(200);
    const byCard = await rows<{ fingerprint: string; n: number }>(
      "select fingerprint, count(*) as n from card_declines where payment_intent_id = ? group by fingerprint",
      paymentIntent,
    );
    expect(byCard.map((r) => r.n).sort()).toEqual([3, 3, 4]);
    const { body } = await standin<{ status: string; cancellation_reason: string }>(
      "GET",
      `/v1/payment_intents/${paymentIntent}`,
    );
    expect(body).toMatchObject({ status: "canceled", cancellation_reason: "abandoned" });
    expect((await confirmAsStripeJs(clientSecret, CARDS.declined)).status).toBe(400);
    // Our own confirm says so, and the buyer starts again.
    const res = await confirm(paymentIntent, await tokenFor(CARDS.ok), { cookie });
    expect(res.status).toBe(409);
  });
});

describe("who may confirm", () => {
  it("only the browser that started the checkout, while it is open; a used token is refused", async () => {
    const { item } = await creatorWithItem("owner@example.com");
    const { paymentIntent, cookie } = await openCheckout(item.id);
    const stranger = await openCheckout(item.id);
    const token = await tokenFor(CARDS.ok);
    for (const c of [undefined, stranger.cookie, "aw_buyer=not-a-real-key-but-long-enough"]) {
      const res = await confirm(paymentIntent, token, { cookie: c });
      expect(res.status).toBe(404);
    }
    expect(await tokenUse(token)).toBeNull();
    expect(
      (await postJson("/api/checkout/confirm", { paymentIntent, confirmationToken: "pm_card_visa" }, cookie)).status,
    ).toBe(400);
    expect((await confirm(paymentIntent, "ctoken_doesnotexist", { cookie })).status).toBe(400);

    // Spent on the stranger's own checkout, the token cannot pay this one.
    expect((await confirm(stranger.paymentIntent, token, { cookie: stranger.cookie })).status).toBe(200);
    const reused = await confirm(paymentIntent, token, { cookie });
    expect(reused.status).toBe(400);
    expect((await reused.json<{ message: string }>()).message).toContain("already used");
    // Paid: no longer open.
    expect(
      (await call(`/api/payments/${stranger.paymentIntent}/complete`, { method: "POST", cookie: stranger.cookie }))
        .status,
    ).toBe(200);
    expect((await confirm(stranger.paymentIntent, await tokenFor(CARDS.ok), { cookie: stranger.cookie })).status).toBe(
      404,
    );
  });
});

describe("cheap orders cannot mass-mail receipts", () => {
  const receiptOf = async (pi: string) =>
    row<{ id: string }>(
      "select o.id from outbox_emails o join purchases p on o.id = 'purchase-access:' || p.id where p.payment_intent_id = ?",
      pi,
    );
  async function buy(contentId: string, email: string, card: string, cookie?: string) {
    const open = await openCheckout(contentId, cookie);
    expect((await confirm(open.paymentIntent, await tokenFor(card), { cookie: open.cookie, email })).status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", open.paymentIntent))).status).toBe(200);
    expect(await row("select status from purchases where payment_intent_id = ?", open.paymentIntent)).toEqual({
      status: "paid",
    });
    return open;
  }

  /** Another $0.50 item of the same creator (a browser buys each item once). */
  async function cheapItem(cookie: string): Promise<string> {
    const res = await postForm(
      "/api/content",
      contentForm({ title: "Sticker", price: "0.5", file: new File([bytes(10)], "s.png", { type: "image/png" }) }),
      cookie,
    );
    expect(res.status).toBe(201);
    return (await res.json<{ id: string }>()).id;
  }

  it("one payer's $0.50 orders reach one address a day; another payer and a $10 order get theirs", async () => {
    const { item: cheap, cookie: creator } = await creatorWithItem("cheap@example.com", { price: "0.5" });
    const { item: dear } = await creatorWithItem("dear@example.com");
    const first = await buy(cheap.id, "one@example.com", CARDS.ok);
    expect(await receiptOf(first.paymentIntent)).not.toBeNull();
    // The same browser and card, other addresses: paid, but no receipt is written, and "Send it
    // again" cannot send it either; the first order's can.
    const secondItem = await cheapItem(creator);
    const second = await buy(secondItem, "two@example.com", CARDS.ok, first.cookie);
    expect(await receiptOf(second.paymentIntent)).toBeNull();
    const again2 = await postJson(
      "/api/purchase/send-access-email",
      { paymentIntentId: second.paymentIntent, contentId: secondItem },
      first.cookie,
    );
    expect(again2.status).toBe(429);
    expect((await again2.json<{ message: string }>()).message).toBe(CHEAP_RESEND_REFUSED);
    expect(
      await row("select id from outbox_emails where id like 'purchase-access%' and job like '%two@example.com%'"),
    ).toBeNull();
    const again1 = await postJson(
      "/api/purchase/send-access-email",
      { paymentIntentId: first.paymentIntent, contentId: cheap.id },
      first.cookie,
    );
    expect(again1.status).toBe(200);
    // The same card from a fresh browser: still the same payer.
    const third = await buy(await cheapItem(creator), "three@example.com", CARDS.ok);
    expect(await receiptOf(third.paymentIntent)).toBeNull();
    // The first address again: its receipt comes.
    const again = await buy(await cheapItem(creator), "one@example.com", CARDS.ok, first.cookie);
    expect(await receiptOf(again.paymentIntent)).not.toBeNull();
    // Another payer (browser and card); and a $10 order is not capped.
    const otherPayer = await buy(cheap.id, "four@example.com", "5555555555554444");
    expect(await receiptOf(otherPayer.paymentIntent)).not.toBeNull();
    const expensive = await buy(dear.id, "five@example.com", CARDS.ok, first.cookie);
    expect(await receiptOf(expensive.paymentIntent)).not.toBeNull();
  });

  it("a creator's cheap sales reach at most fifty addresses a day", async () => {
    const { item, creatorId, cookie: creator } = await creatorWithItem("many@example.com", { price: "0.5" });
    for (let i = 0; i < 50; i++)
      await env.DB.prepare(
        "insert into cheap_receipts (purchase_id, creator_id, email, created_at) values (?, ?, ?, ?)",
      )
        .bind(`seed${i}`, creatorId, `seed${i}@example.com`, Date.now() - 60_000)
        .run();
    const fresh = await buy(item.id, "fresh@example.com", "5555555555554444");
    expect(await receiptOf(fresh.paymentIntent)).toBeNull();
    // Seen earlier today, an address still gets its receipt.
    const known = await buy(await cheapItem(creator), "seed3@example.com", "5555555555554444", fresh.cookie);
    expect(await receiptOf(known.paymentIntent)).not.toBeNull();
  });
});
