// Card testing around our confirm (docs/security.md "Card testing"): a checkout's start checks the
// email and address limits and keeps who started it, so declines made straight at Stripe still
// count for them; confirms in flight count; Stripe's answers map to clear errors; old rows go.
import { beforeEach, describe, expect, it } from "vitest";
import { DECLINE_LIMIT_MESSAGES, DECLINE_LIMITS } from "../../../shared/card-testing";
import { clientHashOf } from "../../services/purchases/card-testing";
import { CARDS, confirmAsStripeJs, deliver, env, row, standin } from "../support/helpers";
import { openCheckout, seedDeclines, startCheckoutAt } from "./card-testing-support";
import { creatorWithItem } from "./payment-fixtures";

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
