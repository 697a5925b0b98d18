// The purchase scenario, run with the real `stripe` SDK against the local stand-in and, when
// STRIPE_TEST_SECRET_KEY is set, against real Stripe test mode: the stand-in must answer the way
// Stripe does for every call the app makes.
import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";
import { createStandin } from "../dev/stripe-standin/server.mjs";
import { describe, expect, inject, it } from "vitest";

const realKey = process.env.STRIPE_TEST_SECRET_KEY;
if (!realKey) console.log("stripe contract: STRIPE_TEST_SECRET_KEY is not set, so the run against real Stripe test mode is skipped");

function standinClient() {
  const url = new URL(inject("stripeUrl"));
  return new Stripe("sk_test_e2e", { host: url.hostname, port: url.port, protocol: "http", maxNetworkRetries: 0 });
}

const targets: [string, () => Stripe, boolean][] = [
  ["the local stand-in", standinClient, true],
  ["Stripe test mode", () => new Stripe(realKey ?? "sk_test_missing"), !!realKey],
];

describe.each(targets)("purchase scenario against %s", (_name, client, enabled) => {
  it.runIf(enabled)("customer, payment intent with idempotency, confirm, charge, refund, decline", async () => {
    const stripe = client();
    const email = `contract-${Date.now()}@example.com`;
    const customer = await stripe.customers.create({ email });
    expect(customer).toMatchObject({ object: "customer", email });
    expect((await stripe.customers.list({ email, limit: 1 })).data.map((c) => c.id)).toContain(customer.id);

    const params: Stripe.PaymentIntentCreateParams = {
      amount: 1234,
      currency: "usd",
      customer: customer.id,
      setup_future_usage: "off_session",
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      description: "Contract test",
      metadata: { purchaseId: "contract1", contentId: "c1", creatorId: "u1" },
    };
    const key = `contract-${Date.now()}`;
    const intent = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(intent).toMatchObject({ object: "payment_intent", amount: 1234, currency: "usd", status: "requires_payment_method", customer: customer.id, setup_future_usage: "off_session" });
    expect(intent.client_secret).toMatch(new RegExp(`^${intent.id}_secret_`));
    const replay = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(replay.id).toBe(intent.id);
    await expect(stripe.paymentIntents.create({ ...params, amount: 999 }, { idempotencyKey: key })).rejects.toMatchObject({ type: "StripeIdempotencyError" });

    await expect(stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_chargeDeclined" })).rejects.toMatchObject({
      type: "StripeCardError",
      code: "card_declined",
    });
    const paid = await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa", receipt_email: email });
    expect(paid).toMatchObject({ status: "succeeded", amount_received: 1234, receipt_email: email, metadata: params.metadata });
    expect(typeof paid.latest_charge).toBe("string");
    const retrieved = await stripe.paymentIntents.retrieve(intent.id);
    expect(retrieved.status).toBe("succeeded");

    const refund = await stripe.refunds.create({ payment_intent: intent.id });
    expect(refund).toMatchObject({ object: "refund", amount: 1234, status: "succeeded" });
    const charge = await stripe.charges.retrieve(paid.latest_charge as string, { expand: ["refunds"] });
    expect(charge).toMatchObject({ object: "charge", amount: 1234, amount_refunded: 1234, refunded: true, payment_intent: intent.id });
    expect(charge.refunds?.data.map((r) => r.id)).toContain(refund.id);
  });
});

describe.each(targets)("one-click upsell scenario against %s", (_name, client, enabled) => {
  it.runIf(enabled)("upsell product and price, saved cards, off-session charge, authentication required, a saved card that declines", async () => {
    const stripe = client();
    const productKey = `contract-product-${Date.now()}`;
    const productParams: Stripe.ProductCreateParams = { name: "Contract workbook", default_price_data: { currency: "usd", unit_amount: 1500 }, metadata: { userId: "u1", kind: "upsell" } };
    const product = await stripe.products.create(productParams, { idempotencyKey: productKey });
    expect((await stripe.products.create(productParams, { idempotencyKey: productKey })).id).toBe(product.id);
    const price = await stripe.prices.retrieve(product.default_price as string);
    expect(price).toMatchObject({ object: "price", unit_amount: 1500, currency: "usd", type: "one_time", product: product.id });

    const customer = await stripe.customers.create({ email: `upsell-${Date.now()}@example.com` });
    const offSession = async (paymentMethod: string) => {
      const intent = await stripe.paymentIntents.create({ amount: 1500, currency: "usd", customer: customer.id, payment_method: paymentMethod, metadata: { purchaseId: "contract2" } });
      return { intent, confirm: () => stripe.paymentIntents.confirm(intent.id, { off_session: true }) };
    };

    const visa = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    expect(visa).toMatchObject({ object: "payment_method", customer: customer.id, card: { last4: "4242" } });
    const saved = await stripe.customers.listPaymentMethods(customer.id, { type: "card", limit: 1 });
    expect(saved.data.map((pm) => pm.id)).toEqual([visa.id]);
    const ok = await offSession(visa.id);
    expect(await ok.confirm()).toMatchObject({ status: "succeeded", amount_received: 1500 });

    const threeDs = await stripe.paymentMethods.attach("pm_card_authenticationRequired", { customer: customer.id });
    const needsAuth = await offSession(threeDs.id);
    await expect(needsAuth.confirm()).rejects.toMatchObject({ type: "StripeCardError", code: "authentication_required" });
    const afterAuthError = await stripe.paymentIntents.retrieve(needsAuth.intent.id);
    expect(afterAuthError.status).toBe("requires_payment_method");
    expect(afterAuthError.last_payment_error?.code).toBe("authentication_required");
    expect(await stripe.paymentIntents.cancel(needsAuth.intent.id)).toMatchObject({ status: "canceled" });

    const failing = await stripe.paymentMethods.attach("pm_card_chargeCustomerFail", { customer: customer.id });
    expect((await stripe.customers.listPaymentMethods(customer.id, { type: "card" })).data.map((pm) => pm.id)).toEqual(expect.arrayContaining([visa.id, threeDs.id, failing.id]));
    const declines = await offSession(failing.id);
    await expect(declines.confirm()).rejects.toMatchObject({ type: "StripeCardError", code: "card_declined" });

    // A card on another customer cannot be charged off-session.
    const stranger = await stripe.customers.create({});
    await expect(stripe.paymentIntents.create({ amount: 1500, currency: "usd", customer: stranger.id, payment_method: visa.id, confirm: true, off_session: true })).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
    });
  });
});

describe("the stand-in's state file", () => {
  it("keeps payments across a restart", async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "standin-")), "state.json");
    const first = createStandin({ stateFile });
    let url = new URL(await first.listen(0));
    let stripe = new Stripe("sk_test_state", { host: url.hostname, port: url.port, protocol: "http", maxNetworkRetries: 0 });
    const intent = await stripe.paymentIntents.create({ amount: 900, currency: "usd" });
    await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
    await first.close();

    const second = createStandin({ stateFile });
    url = new URL(await second.listen(0));
    stripe = new Stripe("sk_test_state", { host: url.hostname, port: url.port, protocol: "http", maxNetworkRetries: 0 });
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({ status: "succeeded", amount_received: 900 });
    await second.close();
  });
});

describe("webhooks sent by the stand-in", () => {
  it("carry a Stripe-Signature that the SDK's own checker accepts", async () => {
    const received: { body: string; signature: string }[] = [];
    const sink = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      received.push({ body, signature: String(req.headers["stripe-signature"]) });
      res.end("ok");
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", () => r()));
    const standin = createStandin({ webhookUrls: [`http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`], webhookSecret: "whsec_contract" });
    const url = new URL(await standin.listen(0));
    const stripe = new Stripe("sk_test_contract", { host: url.hostname, port: url.port, protocol: "http", maxNetworkRetries: 0 });
    const intent = await stripe.paymentIntents.create({ amount: 700, currency: "usd" });
    await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
    await standin.flushWebhooks();
    const types = [];
    for (const { body, signature } of received) {
      const event = await Stripe.webhooks.constructEventAsync(body, signature, "whsec_contract");
      types.push(event.type);
      await expect(Stripe.webhooks.constructEventAsync(body, signature, "whsec_other")).rejects.toThrow();
    }
    expect(types).toEqual(expect.arrayContaining(["payment_intent.created", "charge.succeeded", "payment_intent.succeeded"]));
    await standin.close();
    sink.close();
  });
});
