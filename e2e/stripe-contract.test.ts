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

// Payouts: transfers to a connected account. Real test mode needs an account that can receive
// transfers (STRIPE_TEST_CONNECTED_ACCOUNT, with funds in the platform's test balance).
const connected = process.env.STRIPE_TEST_CONNECTED_ACCOUNT;
const transferTargets: [string, () => Stripe, string, boolean][] = [
  ["the local stand-in", standinClient, "acct_contract1", true],
  ["Stripe test mode", () => new Stripe(realKey ?? "sk_test_missing"), connected ?? "", !!realKey && !!connected],
];

describe.each(transferTargets)("payout transfers against %s", (_name, client, destination, enabled) => {
  it.runIf(enabled)("transfer with idempotency and transfer_group, list by group, reversal, unknown destination", async () => {
    const stripe = client();
    const group = `payouts-contract-${Date.now()}`;
    const params: Stripe.TransferCreateParams = { amount: 2500, currency: "usd", destination, transfer_group: group, metadata: { payout_id: "po_contract" } };
    const key = `po_contract_${Date.now()}`;
    const transfer = await stripe.transfers.create(params, { idempotencyKey: key });
    expect(transfer).toMatchObject({ object: "transfer", amount: 2500, amount_reversed: 0, currency: "usd", destination, transfer_group: group, reversed: false, metadata: { payout_id: "po_contract" } });
    expect(transfer.reversals).toMatchObject({ object: "list", data: [] });
    expect((await stripe.transfers.create(params, { idempotencyKey: key })).id).toBe(transfer.id);
    await expect(stripe.transfers.create({ ...params, amount: 2600 }, { idempotencyKey: key })).rejects.toMatchObject({ type: "StripeIdempotencyError" });

    const listed = await stripe.transfers.list({ destination, transfer_group: group, limit: 10 });
    expect(listed.data.map((t) => t.id)).toEqual([transfer.id]);

    const reversal = await stripe.transfers.createReversal(transfer.id);
    expect(reversal).toMatchObject({ object: "transfer_reversal", amount: 2500, transfer: transfer.id });
    expect(await stripe.transfers.retrieve(transfer.id)).toMatchObject({ reversed: true, amount_reversed: 2500 });

    await expect(stripe.transfers.create({ amount: 100, currency: "usd", destination: "nope_not_an_account" })).rejects.toMatchObject({ type: "StripeInvalidRequestError", param: "destination" });
  });
});

describe("the stand-in's transfer controls", () => {
  it("fail the next transfer to an account with Stripe's error, then transfers work again", async () => {
    const standin = createStandin();
    const url = new URL(await standin.listen(0));
    const stripe = new Stripe("sk_test_transfers", { host: url.hostname, port: url.port, protocol: "http", maxNetworkRetries: 0 });
    const control = await fetch(`${url.origin}/_standin/transfers/fail_next`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_transfers", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ destination: "acct_broke", code: "balance_insufficient" }),
    });
    expect(control.status).toBe(200);
    await expect(stripe.transfers.create({ amount: 100, currency: "usd", destination: "acct_broke" })).rejects.toMatchObject({ type: "StripeInvalidRequestError", code: "balance_insufficient", statusCode: 400 });
    expect(await stripe.transfers.create({ amount: 100, currency: "usd", destination: "acct_broke" })).toMatchObject({ object: "transfer", amount: 100 });
    const events = await stripe.events.list({ type: "transfer.created" });
    expect(events.data).toHaveLength(1);
    await standin.close();
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
