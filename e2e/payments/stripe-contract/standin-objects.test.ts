// The stand-in's objects: the API version of the pinned stripe package, every property the published
// schema requires, and state kept across a restart.
// Only the local stand-in plays these (its own instances, started here); real Stripe needs none of them.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { createStandin } from "../../../dev/stripe-standin/server.mjs";
import required from "../../../dev/stripe-standin/required-properties.json" with { type: "json" };
import { missingRequired } from "../../../dev/stripe-standin/schema-check.mjs";

describe("the stand-in's state file", () => {
  it("keeps payments across a restart", async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), "standin-")), "state.json");
    const first = createStandin({ stateFile });
    let url = new URL(await first.listen(0));
    let stripe = new Stripe("sk_test_state", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const intent = await stripe.paymentIntents.create({ amount: 900, currency: "usd" });
    await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
    await first.close();

    const second = createStandin({ stateFile });
    url = new URL(await second.listen(0));
    stripe = new Stripe("sk_test_state", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    expect(await stripe.paymentIntents.retrieve(intent.id)).toMatchObject({
      status: "succeeded",
      amount_received: 900,
    });
    await second.close();
  });
});

describe("the stand-in's objects", () => {
  it("report the API version of the pinned stripe package", async () => {
    const standin = createStandin();
    const url = new URL(await standin.listen(0));
    const res = await fetch(`${url.origin}/v1/customers`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_version" },
    });
    expect(res.headers.get("stripe-version")).toBe(Stripe.API_VERSION);
    const stripe = new Stripe("sk_test_version", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const events = await stripe.events.list({ type: "customer.created" });
    expect(events.data[0]?.api_version).toBe(Stripe.API_VERSION);
    await standin.close();
  });

  it("carry every property the published schema of the pinned API version requires (null when empty)", async () => {
    expect(required.apiVersion).toBe(Stripe.API_VERSION);
    const standin = createStandin();
    const url = new URL(await standin.listen(0));
    const bodies: unknown[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if ((res.headers.get("content-type") ?? "").includes("json")) bodies.push(await res.clone().json());
      return res;
    };
    const stripe = new Stripe("sk_test_shapes", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
      httpClient: Stripe.createFetchHttpClient(recording),
    });
    const control = (path: string, body: Record<string, string> = {}) =>
      recording(`${url.origin}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer sk_test_shapes", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(body),
      });

    // Every kind of object the app meets, in each of its states.
    const customer = await stripe.customers.create({ email: "shapes@example.com" });
    await stripe.customers.update(customer.id, { name: "Shapes" });
    await stripe.customers.list({ email: "shapes@example.com" });
    const paid = await stripe.paymentIntents.create({
      amount: 3000,
      currency: "usd",
      customer: customer.id,
      setup_future_usage: "off_session",
      payment_method: "pm_card_visa",
      confirm: true,
    });
    await stripe.paymentIntents
      .create({ amount: 3000, currency: "usd", payment_method: "pm_card_chargeDeclined", confirm: true })
      .catch(() => {});
    const held = await stripe.paymentIntents.create({
      amount: 3000,
      currency: "usd",
      payment_method: "pm_card_visa",
      capture_method: "manual",
      confirm: true,
    });
    await stripe.paymentIntents.capture(held.id);
    await stripe.paymentIntents.cancel((await stripe.paymentIntents.create({ amount: 3000, currency: "usd" })).id);
    // A ConfirmationToken, read before and after the PaymentIntent it confirms (the server-side confirm).
    const ctoken = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
    await stripe.confirmationTokens.retrieve(ctoken.id);
    const viaToken = await stripe.paymentIntents.create({ amount: 3000, currency: "usd" });
    await stripe.paymentIntents.confirm(viaToken.id, {
      confirmation_token: ctoken.id,
      return_url: "https://example.com/back",
    });
    await stripe.confirmationTokens.retrieve(ctoken.id);
    await stripe.paymentMethods.retrieve(paid.payment_method as string);
    await stripe.customers.listPaymentMethods(customer.id, { type: "card" });
    await stripe.charges.retrieve(paid.latest_charge as string, { expand: ["refunds", "balance_transaction"] });
    await stripe.refunds.create({ payment_intent: paid.id, amount: 1000 });
    const refunded = await stripe.refunds.create({ payment_intent: paid.id, amount: 500 });
    await stripe.refunds.retrieve(refunded.id);
    await control(`/_standin/refunds/${refunded.id}/settle`, { outcome: "failed" });
    await stripe.refunds.list({ charge: paid.latest_charge as string, limit: 1 });
    await stripe.charges.retrieve(paid.latest_charge as string, { expand: ["refunds"] });
    const disputeRes = await control(`/_standin/charges/${held.latest_charge}/dispute`);
    const dispute = (await disputeRes.json()) as { id: string };
    await stripe.disputes.retrieve(dispute.id);
    await control(`/_standin/disputes/${dispute.id}/close`, { outcome: "won" });
    const inquiry = (await (
      await control(`/_standin/charges/${paid.latest_charge}/dispute`, { inquiry: "true" })
    ).json()) as { id: string };
    await control(`/_standin/disputes/${inquiry.id}/escalate`);
    await stripe.disputes.list({ charge: paid.latest_charge as string });
    const product = await stripe.products.create({
      name: "Shapes",
      default_price_data: { currency: "usd", unit_amount: 1500 },
    });
    await stripe.prices.retrieve(product.default_price as string);
    await stripe.products.list();
    const account = await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } });
    await stripe.accountLinks.create({
      account: account.id,
      refresh_url: "https://example.com/r",
      return_url: "https://example.com/x",
      type: "account_onboarding",
    });
    await control(`/_standin/accounts/${account.id}/onboard`);
    await stripe.accounts.retrieve(account.id);
    await stripe.accounts.createLoginLink(account.id);
    await control("/_standin/balance/top_up", { amount: "100000" });
    const transfer = await stripe.transfers.create({ amount: 2000, currency: "usd", destination: account.id });
    await stripe.transfers.createReversal(transfer.id, { amount: 500 });
    await stripe.transfers.retrieve(transfer.id);
    await stripe.balance.retrieve();
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000) });
    const subscriber = await stripe.customers.create({ test_clock: clock.id });
    const price = await stripe.prices.create({
      currency: "usd",
      unit_amount: 9900,
      recurring: { interval: "month" },
      product_data: { name: "Shapes Pro" },
    });
    const sub = await stripe.subscriptions.create({
      customer: subscriber.id,
      items: [{ price: price.id }],
      payment_behavior: "default_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      expand: ["latest_invoice.confirmation_secret"],
    });
    await stripe.paymentIntents.confirm(
      (sub.latest_invoice as Stripe.Invoice).confirmation_secret!.client_secret.split("_secret_")[0],
      { payment_method: "pm_card_visa" },
    );
    const advancing = await stripe.testHelpers.testClocks.advance(clock.id, {
      frozen_time: clock.frozen_time + 40 * 86400,
    });
    expect(advancing.status).toBe("advancing");
    for (let i = 0; i < 60 && (await stripe.testHelpers.testClocks.retrieve(clock.id)).status !== "ready"; i++)
      await new Promise((r) => setTimeout(r, 100));
    await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true, expand: ["latest_invoice"] });
    const invoices = await stripe.invoices.list({ subscription: sub.id });
    await stripe.invoicePayments.list({ invoice: invoices.data[0]!.id });
    await stripe.testHelpers.testClocks.retrieve(clock.id);
    // Stripe Tax: a registration, a calculation and its lines, a payment that commits it, a refund's reversal.
    await stripe.tax.registrations.create({
      country: "GB",
      country_options: { gb: { type: "standard" } },
      active_from: "now",
    });
    const calc = await stripe.tax.calculations.create({
      currency: "usd",
      line_items: [{ amount: 1200, reference: "L1", tax_behavior: "inclusive" }],
      customer_details: { address: { country: "GB" }, address_source: "billing" },
      expand: ["line_items.data.tax_breakdown"],
    });
    const taxed = await stripe.paymentIntents.create({
      amount: calc.amount_total,
      currency: "usd",
      hooks: { inputs: { tax: { calculation: calc.id! } } },
      payment_method: "pm_card_visa",
      confirm: true,
    });
    await stripe.refunds.create({ payment_intent: taxed.id, amount: 600 });
    const association = await stripe.tax.associations.find({ payment_intent: taxed.id });
    for (const attempt of association.tax_transaction_attempts ?? [])
      await stripe.tax.transactions.retrieve(attempt.committed!.transaction, { expand: ["line_items"] });
    const events = await stripe.events.list({ limit: 100 });
    bodies.push(...events.data.map((e) => e.data.object));

    // Nested objects too (a charge's card details, an account's requirements…).
    const seen = new Set<string>();
    const missing = bodies.flatMap((b) => missingRequired(b, required, seen));
    expect([...new Set(missing)].sort()).toEqual([]);
    // The check saw every kind of object it has a list for.
    expect([...seen].sort()).toEqual(Object.keys(required.objects).sort());
    await standin.close();
  });
});
