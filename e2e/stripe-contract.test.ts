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
    // Created with a payment_method and not confirmed: Stripe waits for the confirm (the upsell confirms from here).
    expect(ok.intent.status).toBe("requires_confirmation");
    expect(await ok.confirm()).toMatchObject({ status: "succeeded", amount_received: 1500 });

    const threeDs = await stripe.paymentMethods.attach("pm_card_authenticationRequired", { customer: customer.id });
    const needsAuth = await offSession(threeDs.id);
    await expect(needsAuth.confirm()).rejects.toMatchObject({ type: "StripeCardError", code: "authentication_required" });
    const afterAuthError = await stripe.paymentIntents.retrieve(needsAuth.intent.id);
    expect(afterAuthError.status).toBe("requires_payment_method");
    expect(afterAuthError.last_payment_error?.code).toBe("authentication_required");
    expect(await stripe.paymentIntents.cancel(needsAuth.intent.id)).toMatchObject({ status: "canceled" });
    // A declined upsell relies on this: a cancelled PaymentIntent can be neither confirmed nor cancelled again.
    await expect(needsAuth.confirm()).rejects.toMatchObject({ type: "StripeInvalidRequestError", code: "payment_intent_unexpected_state" });
    await expect(stripe.paymentIntents.cancel(needsAuth.intent.id)).rejects.toMatchObject({ type: "StripeInvalidRequestError", code: "payment_intent_unexpected_state" });
    expect((await stripe.paymentIntents.retrieve(needsAuth.intent.id)).status).toBe("canceled");

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

describe.each(targets)("creator money against %s", (_name, client, enabled) => {
  it.runIf(enabled)("Connect: Express account, onboarding link, status, login link refused before onboarding, transfer refused without capability, balance", async () => {
    const stripe = client();
    const email = `connect-${Date.now()}@example.com`;
    const key = `contract-acct-${Date.now()}`;
    const account = await stripe.accounts.create({ type: "express", email, capabilities: { transfers: { requested: true } }, metadata: { userId: "u1" } }, { idempotencyKey: key });
    expect(account).toMatchObject({ object: "account", type: "express", email, details_submitted: false, payouts_enabled: false, metadata: { userId: "u1" } });
    expect((await stripe.accounts.create({ type: "express", email, capabilities: { transfers: { requested: true } }, metadata: { userId: "u1" } }, { idempotencyKey: key })).id).toBe(account.id);
    const link = await stripe.accountLinks.create({ account: account.id, refresh_url: "https://example.com/connect?refresh=true", return_url: "https://example.com/connect?connected=true", type: "account_onboarding" });
    expect(link).toMatchObject({ object: "account_link" });
    expect(link.url).toMatch(/^https?:\/\//);
    expect(link.expires_at).toBeGreaterThan(link.created);
    expect(await stripe.accounts.retrieve(account.id)).toMatchObject({ id: account.id, details_submitted: false });
    await expect(stripe.accounts.createLoginLink(account.id)).rejects.toMatchObject({ type: "StripeInvalidRequestError" });
    await expect(stripe.transfers.create({ amount: 100, currency: "usd", destination: account.id }, { idempotencyKey: `${key}-tr` })).rejects.toMatchObject({ type: "StripeInvalidRequestError" });
    const balance = await stripe.balance.retrieve();
    expect(balance.object).toBe("balance");
    expect(balance.available[0]).toMatchObject({ currency: "usd" });
  });

  it.runIf(enabled)("Billing: recurring price, default_incomplete subscription with the invoice's confirmation secret, pay it, renew on a test clock, cancel at period end", async () => {
    const stripe = client();
    const start = Math.floor(Date.now() / 1000);
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: start });
    expect(clock).toMatchObject({ object: "test_helpers.test_clock", status: "ready", frozen_time: start });
    const customer = await stripe.customers.create({ email: `pro-${Date.now()}@example.com`, test_clock: clock.id });
    const price = await stripe.prices.create({ currency: "usd", unit_amount: 9900, recurring: { interval: "month" }, product_data: { name: "Contract Pro" } });
    const sub = await stripe.subscriptions.create(
      { customer: customer.id, items: [{ price: price.id }], payment_behavior: "default_incomplete", payment_settings: { save_default_payment_method: "on_subscription" }, expand: ["latest_invoice.confirmation_secret"], metadata: { userId: "u1" } },
      { idempotencyKey: `contract-sub-${Date.now()}` },
    );
    expect(sub).toMatchObject({ object: "subscription", status: "incomplete", cancel_at_period_end: false });
    const invoice = sub.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({ object: "invoice", status: "open", amount_due: 9900, billing_reason: "subscription_create" });
    expect(invoice.parent?.subscription_details?.subscription).toBe(sub.id);
    expect(invoice.confirmation_secret).toMatchObject({ type: "payment_intent" });
    const intentId = invoice.confirmation_secret!.client_secret.split("_secret_")[0];
    await stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_visa" });
    const active = await stripe.subscriptions.retrieve(sub.id);
    expect(active.status).toBe("active");
    const periodEnd = active.items.data[0].current_period_end;
    expect(periodEnd).toBeGreaterThan(start + 27 * 86400);
    expect((await stripe.invoices.retrieve(invoice.id)).status).toBe("paid");

    await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: periodEnd + 3600 });
    // Real test clocks advance in the background.
    for (let i = 0; i < 60 && (await stripe.testHelpers.testClocks.retrieve(clock.id)).status !== "ready"; i++) await new Promise((r) => setTimeout(r, 2000));
    const renewed = await stripe.subscriptions.retrieve(sub.id);
    expect(renewed.items.data[0].current_period_end).toBeGreaterThan(periodEnd);
    const invoices = await stripe.invoices.list({ subscription: sub.id, limit: 10 });
    expect(invoices.data.some((i) => i.billing_reason === "subscription_cycle")).toBe(true);

    const canceling = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
    expect(canceling).toMatchObject({ cancel_at_period_end: true, status: "active" });
  });
});

describe("the stand-in's transfers (for the payout run)", () => {
  it("pays a connected account from the platform balance, reverses it, refuses more than the balance", async () => {
    const stripe = standinClient();
    const base = inject("stripeUrl");
    const account = await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } });
    await fetch(`${base}/_standin/accounts/${account.id}/onboard`, { method: "POST", headers: { authorization: "Bearer sk_test_e2e" } });
    expect(await stripe.accounts.retrieve(account.id)).toMatchObject({ details_submitted: true, payouts_enabled: true, capabilities: { transfers: "active" } });
    const intent = await stripe.paymentIntents.create({ amount: 5000, currency: "usd" });
    await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
    const before = (await stripe.balance.retrieve()).available[0].amount;
    expect(before).toBeGreaterThanOrEqual(5000);

    const key = `payout-${Date.now()}`;
    const transfer = await stripe.transfers.create({ amount: 3000, currency: "usd", destination: account.id, transfer_group: "payout_2026_12", metadata: { payoutId: "po1" } }, { idempotencyKey: key });
    expect(transfer).toMatchObject({ object: "transfer", amount: 3000, amount_reversed: 0, destination: account.id, reversed: false, transfer_group: "payout_2026_12", metadata: { payoutId: "po1" } });
    expect((await stripe.transfers.create({ amount: 3000, currency: "usd", destination: account.id, transfer_group: "payout_2026_12", metadata: { payoutId: "po1" } }, { idempotencyKey: key })).id).toBe(transfer.id);
    expect((await stripe.balance.retrieve()).available[0].amount).toBe(before - 3000);
    const events = await stripe.events.list({ type: "transfer.created", limit: 5 });
    expect(events.data.map((e) => (e.data.object as Stripe.Transfer).id)).toContain(transfer.id);

    const reversal = await stripe.transfers.createReversal(transfer.id, { amount: 1000 });
    expect(reversal).toMatchObject({ object: "transfer_reversal", amount: 1000, transfer: transfer.id });
    expect(await stripe.transfers.retrieve(transfer.id)).toMatchObject({ amount_reversed: 1000, reversed: false });
    const reversedEvents = await stripe.events.list({ type: "transfer.reversed", limit: 5 });
    expect(reversedEvents.data.map((e) => (e.data.object as Stripe.Transfer).id)).toContain(transfer.id);

    await expect(stripe.transfers.create({ amount: 100_000_000, currency: "usd", destination: account.id })).rejects.toMatchObject({ type: "StripeInvalidRequestError", code: "balance_insufficient" });
    await fetch(`${base}/_standin/accounts/${account.id}/restrict`, { method: "POST", headers: { authorization: "Bearer sk_test_e2e" } });
    await expect(stripe.transfers.create({ amount: 100, currency: "usd", destination: account.id })).rejects.toMatchObject({ code: "insufficient_capabilities_for_transfer" });
  });
});

/** On the stand-in: an onboarded Express account and platform funds to pay it (stand-in controls). */
async function standinConnectedAccount(stripe: Stripe, base: string): Promise<string> {
  const account = await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } });
  const control = (path: string, body?: Record<string, string>) =>
    fetch(`${base}${path}`, { method: "POST", headers: { authorization: "Bearer sk_test_e2e", "content-type": "application/x-www-form-urlencoded" }, body: body && new URLSearchParams(body) });
  await control(`/_standin/accounts/${account.id}/onboard`);
  await control("/_standin/balance/top_up", { amount: "1000000" });
  return account.id;
}

// Payouts: transfers to a connected account. Real test mode needs an account that can receive
// transfers (STRIPE_TEST_CONNECTED_ACCOUNT, with funds in the platform's test balance).
const connected = process.env.STRIPE_TEST_CONNECTED_ACCOUNT;
const transferTargets: [string, () => Stripe, string, boolean][] = [
  ["the local stand-in", standinClient, "", true],
  ["Stripe test mode", () => new Stripe(realKey ?? "sk_test_missing"), connected ?? "", !!realKey && !!connected],
];

describe.each(transferTargets)("payout transfers against %s", (_name, client, connectedAccount, enabled) => {
  it.runIf(enabled)("transfer with idempotency and transfer_group, list by group, reversal, unknown destination", async () => {
    const stripe = client();
    const destination = connectedAccount || (await standinConnectedAccount(stripe, inject("stripeUrl")));
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
    const broke = await standinConnectedAccount(stripe, url.origin);
    const control = await fetch(`${url.origin}/_standin/transfers/fail_next`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_transfers", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ destination: broke, code: "balance_insufficient" }),
    });
    expect(control.status).toBe(200);
    await expect(stripe.transfers.create({ amount: 100, currency: "usd", destination: broke })).rejects.toMatchObject({ type: "StripeInvalidRequestError", code: "balance_insufficient", statusCode: 400 });
    expect(await stripe.transfers.create({ amount: 100, currency: "usd", destination: broke })).toMatchObject({ object: "transfer", amount: 100 });
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
