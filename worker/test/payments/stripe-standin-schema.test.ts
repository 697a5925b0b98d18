// The Stripe stand-in against Stripe's published schema for the pinned API version: every object it
// answers with (and every object its events carry) has each property the schema says Stripe always
// sends, at the top and in the nested objects (dev/stripe-standin/required-properties.json, written
// by dev/stripe-standin/required-properties.mjs from the pinned stripe package's generated types).
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import required from "../../../dev/stripe-standin/required-properties.json";
import { missingRequired } from "../../../dev/stripe-standin/schema-check.mjs";
import { standin } from "../support/helpers";
import { env } from "cloudflare:workers";

type Obj = Record<string, unknown>;

describe("the Stripe stand-in's objects", () => {
  it("carry every property the pinned API version's schema requires, nested objects included", async () => {
    expect(required.apiVersion).toBe(Stripe.API_VERSION);
    const bodies: unknown[] = [];
    const recording: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if ((res.headers.get("content-type") ?? "").includes("json")) bodies.push(await res.clone().json());
      return res;
    };
    const base = new URL((env as unknown as { STRIPE_API_BASE: string }).STRIPE_API_BASE);
    const stripe = new Stripe("sk_test_worker", {
      host: base.hostname,
      port: base.port,
      protocol: "http",
      maxNetworkRetries: 0,
      httpClient: Stripe.createFetchHttpClient(recording),
    });
    const control = async (path: string, params: Record<string, string> = {}) => {
      const res = await standin<Obj>("POST", path, params);
      bodies.push(res.body);
      return res.body;
    };

    // A card payment, a Link payment, a refund and a dispute of each kind.
    const customer = await stripe.customers.create({ email: "schema@example.com" });
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
    const link = await stripe.paymentIntents.create({
      amount: 2500,
      currency: "usd",
      allowed_payment_method_types: ["card", "link"],
    });
    await stripe.paymentIntents.confirm(link.id, {
      payment_method_data: { type: "link", billing_details: { email: "wallet@example.com" } },
    } as Stripe.PaymentIntentConfirmParams);
    await stripe.charges.retrieve(paid.latest_charge as string, { expand: ["balance_transaction"] });
    await stripe.charges.retrieve((await stripe.paymentIntents.retrieve(link.id)).latest_charge as string);
    await stripe.paymentMethods.retrieve(paid.payment_method as string);
    // Confirmed on the server with a ConfirmationToken, as checkout is.
    const token = await stripe.testHelpers.confirmationTokens.create({ payment_method: "pm_card_visa" });
    const byToken = await stripe.paymentIntents.create({ amount: 1200, currency: "usd" });
    await stripe.paymentIntents.confirm(byToken.id, { confirmation_token: token.id });
    await stripe.confirmationTokens.retrieve(token.id);
    await stripe.refunds.create({ payment_intent: paid.id, amount: 500 });
    const dispute = (await control(`/_standin/charges/${paid.latest_charge}/dispute`)) as { id: string };
    await stripe.disputes.retrieve(dispute.id);
    await control(`/_standin/disputes/${dispute.id}/close`, { outcome: "lost" });
    await stripe.disputes.list({ charge: paid.latest_charge as string });

    // Connect: an Express account before and after onboarding, and the balance.
    const account = await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } });
    await control(`/_standin/accounts/${account.id}/onboard`);
    await stripe.accounts.retrieve(account.id);
    await stripe.balance.retrieve();

    // Billing: a subscription on a test clock, paid, renewed, cancelled at period end.
    const clock = await stripe.testHelpers.testClocks.create({ frozen_time: Math.floor(Date.now() / 1000) });
    const subscriber = await stripe.customers.create({ test_clock: clock.id });
    const price = await stripe.prices.create({
      currency: "usd",
      unit_amount: 9900,
      recurring: { interval: "month" },
      product_data: { name: "Schema Pro" },
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
    await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
    await stripe.subscriptions.retrieve(sub.id);

    const events = await stripe.events.list({ limit: 100 });
    bodies.push(...events.data);

    const seen = new Set<string>();
    const missing = new Set(bodies.flatMap((b) => missingRequired(b, required, seen)));
    expect([...missing].sort()).toEqual([]);
    // The objects this part of the schema is about were all checked.
    expect([...seen]).toEqual(
      expect.arrayContaining([
        "account",
        "balance",
        "charge",
        "dispute",
        "subscription",
        "payment_intent",
        "payment_method",
        "confirmation_token",
        "event",
      ]),
    );
  });
});
