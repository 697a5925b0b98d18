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
import required from "../dev/stripe-standin/required-properties.json" with { type: "json" };
import { missingRequired } from "../dev/stripe-standin/schema-check.mjs";
import { describe, expect, inject, it } from "vitest";

const realKey = process.env.STRIPE_TEST_SECRET_KEY;
if (!realKey)
  console.log(
    "stripe contract: STRIPE_TEST_SECRET_KEY is not set, so the run against real Stripe test mode is skipped",
  );

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
    expect(intent).toMatchObject({
      object: "payment_intent",
      amount: 1234,
      currency: "usd",
      status: "requires_payment_method",
      customer: customer.id,
      setup_future_usage: "off_session",
    });
    expect(intent.client_secret).toMatch(new RegExp(`^${intent.id}_secret_`));
    const replay = await stripe.paymentIntents.create(params, { idempotencyKey: key });
    expect(replay.id).toBe(intent.id);
    await expect(
      stripe.paymentIntents.create({ ...params, amount: 999 }, { idempotencyKey: key }),
    ).rejects.toMatchObject({ type: "StripeIdempotencyError" });

    await expect(
      stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_chargeDeclined" }),
    ).rejects.toMatchObject({
      type: "StripeCardError",
      code: "card_declined",
    });
    // A decline sends the intent back for another card and leaves a failed Charge behind.
    const declined = await stripe.paymentIntents.retrieve(intent.id);
    expect(declined).toMatchObject({
      status: "requires_payment_method",
      last_payment_error: { type: "card_error", code: "card_declined" },
    });
    expect(typeof declined.latest_charge).toBe("string");
    const failedCharge = await stripe.charges.retrieve(declined.latest_charge as string);
    expect(failedCharge).toMatchObject({
      object: "charge",
      status: "failed",
      paid: false,
      captured: false,
      failure_code: "card_declined",
      payment_intent: intent.id,
    });
    const paid = await stripe.paymentIntents.confirm(intent.id, {
      payment_method: "pm_card_visa",
      receipt_email: email,
    });
    expect(paid).toMatchObject({
      status: "succeeded",
      amount_received: 1234,
      receipt_email: email,
      metadata: params.metadata,
    });
    expect(typeof paid.latest_charge).toBe("string");
    expect(paid.latest_charge).not.toBe(declined.latest_charge);
    const retrieved = await stripe.paymentIntents.retrieve(intent.id);
    expect(retrieved.status).toBe("succeeded");
    await expect(stripe.paymentIntents.confirm(intent.id)).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      code: "payment_intent_unexpected_state",
    });
    await expect(stripe.paymentIntents.cancel(intent.id)).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      code: "payment_intent_unexpected_state",
    });
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("succeeded");

    const refund = await stripe.refunds.create({ payment_intent: intent.id });
    expect(refund).toMatchObject({ object: "refund", amount: 1234, status: "succeeded" });
    // Since API version 2022-11-15 a charge lists its refunds only when asked (expand[]=refunds).
    const plain = await stripe.charges.retrieve(paid.latest_charge as string);
    expect(plain).toMatchObject({ object: "charge", amount_refunded: 1234, refunded: true });
    expect(plain.refunds).toBeUndefined();
    const charge = await stripe.charges.retrieve(paid.latest_charge as string, { expand: ["refunds"] });
    expect(charge).toMatchObject({
      object: "charge",
      amount: 1234,
      amount_refunded: 1234,
      refunded: true,
      payment_intent: intent.id,
    });
    expect(charge.refunds?.data.map((r) => r.id)).toContain(refund.id);
    await expect(stripe.refunds.create({ payment_intent: intent.id })).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      code: "charge_already_refunded",
    });
    await expect(stripe.refunds.create({ charge: charge.id, amount: 1 })).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      code: "charge_already_refunded",
    });
  });
});

describe.each(targets)("checkout's payment methods against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "a PaymentIntent names card and link (allowed_payment_method_types), not the Dashboard's automatic ones; a card pays it",
    async () => {
      const stripe = client();
      const intent = await stripe.paymentIntents.create({
        amount: 1500,
        currency: "usd",
        allowed_payment_method_types: ["card", "link"],
      });
      expect(intent).toMatchObject({
        status: "requires_payment_method",
        automatic_payment_methods: null,
        allowed_payment_method_types: ["card", "link"],
      });
      expect([...intent.payment_method_types].sort()).toEqual(["card", "link"]);
      const paid = await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
      expect(paid.status).toBe("succeeded");
      const charge = await stripe.charges.retrieve(paid.latest_charge as string);
      expect(charge).toMatchObject({
        status: "succeeded",
        paid: true,
        payment_method_details: { type: "card", card: { brand: "visa", last4: "4242" } },
      });
    },
  );
});

describe("the stand-in's Link wallet and payments that settle later", () => {
  it("Link pays with a link PaymentMethod; a Link bank payment stays processing until settled, then succeeds or fails with Stripe's events", async () => {
    const stripe = standinClient();
    const intent = await stripe.paymentIntents.create({
      amount: 1500,
      currency: "usd",
      allowed_payment_method_types: ["card", "link"],
    });
    const viaLink = await stripe.paymentIntents.confirm(intent.id, {
      payment_method_data: { type: "link", billing_details: { email: "wallet@example.com" } },
    } as Stripe.PaymentIntentConfirmParams);
    expect(viaLink.status).toBe("succeeded");
    expect((await stripe.charges.retrieve(viaLink.latest_charge as string)).payment_method_details?.type).toBe("link");
    // A card-only PaymentIntent refuses a Link PaymentMethod.
    const cardOnly = await stripe.paymentIntents.create({
      amount: 1500,
      currency: "usd",
      allowed_payment_method_types: ["card"],
    });
    await expect(
      stripe.paymentIntents.confirm(cardOnly.id, {
        payment_method_data: { type: "link" },
      } as Stripe.PaymentIntentConfirmParams),
    ).rejects.toMatchObject({ code: "payment_intent_incompatible_payment_method" });

    const url = new URL(inject("stripeUrl"));
    const settle = (id: string, outcome: string) =>
      fetch(`${url.origin}/_standin/payment_intents/${id}/settle`, {
        method: "POST",
        headers: { authorization: "Bearer sk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ outcome }),
      });
    for (const outcome of ["succeeded", "failed"] as const) {
      const slow = await stripe.paymentIntents.create({
        amount: 1500,
        currency: "usd",
        allowed_payment_method_types: ["card", "link"],
      });
      const processing = await stripe.paymentIntents.confirm(slow.id, {
        payment_method_data: { type: "link", billing_details: { email: "saver+bank@example.com" } },
      } as Stripe.PaymentIntentConfirmParams);
      expect(processing.status).toBe("processing");
      expect((await stripe.charges.retrieve(processing.latest_charge as string)).status).toBe("pending");
      await expect(stripe.paymentIntents.confirm(slow.id)).rejects.toMatchObject({
        code: "payment_intent_unexpected_state",
      });
      expect((await settle(slow.id, outcome)).status).toBe(200);
      const after = await stripe.paymentIntents.retrieve(slow.id);
      expect(after.status).toBe(outcome === "succeeded" ? "succeeded" : "requires_payment_method");
      const types = (await stripe.events.list({ limit: 100 })).data
        .filter(
          (e) =>
            (e.data.object as { id?: string; payment_intent?: string }).id === slow.id ||
            (e.data.object as { payment_intent?: string }).payment_intent === slow.id,
        )
        .map((e) => e.type)
        .reverse();
      expect(types).toEqual([
        "payment_intent.created",
        "charge.pending",
        "payment_intent.processing",
        ...(outcome === "succeeded"
          ? ["charge.succeeded", "payment_intent.succeeded"]
          : ["charge.failed", "payment_intent.payment_failed"]),
      ]);
    }
  });
});

describe.each(targets)("refunds scenario against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "partial refunds listed page by page; a charge carries them only when expanded; no disputes",
    async () => {
      const stripe = client();
      const intent = await stripe.paymentIntents.create({
        amount: 2000,
        currency: "usd",
        automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      });
      const paid = await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
      const chargeId = paid.latest_charge as string;
      const made: string[] = [];
      for (let i = 0; i < 3; i++) made.push((await stripe.refunds.create({ charge: chargeId, amount: 100 })).id);
      expect((await stripe.charges.retrieve(chargeId)).refunds).toBeUndefined();
      const firstPage = await stripe.refunds.list({ charge: chargeId, limit: 2 });
      expect([firstPage.data.length, firstPage.has_more]).toEqual([2, true]);
      const all = await stripe.refunds.list({ charge: chargeId, limit: 2 }).autoPagingToArray({ limit: 10 });
      expect(all.map((r) => r.id).sort()).toEqual([...made].sort());
      expect(all.every((r) => r.status === "succeeded" && r.amount === 100)).toBe(true);
      expect((await stripe.charges.retrieve(chargeId)).amount_refunded).toBe(300);
      expect((await stripe.disputes.list({ charge: chargeId })).data).toEqual([]);
    },
  );
});

describe.each(targets)("one-click upsell scenario against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "upsell product and price, saved cards, off-session charge, authentication required, a saved card that declines",
    async () => {
      const stripe = client();
      const productKey = `contract-product-${Date.now()}`;
      const productParams: Stripe.ProductCreateParams = {
        name: "Contract workbook",
        default_price_data: { currency: "usd", unit_amount: 1500 },
        metadata: { userId: "u1", kind: "upsell" },
      };
      const product = await stripe.products.create(productParams, { idempotencyKey: productKey });
      expect((await stripe.products.create(productParams, { idempotencyKey: productKey })).id).toBe(product.id);
      const price = await stripe.prices.retrieve(product.default_price as string);
      expect(price).toMatchObject({
        object: "price",
        unit_amount: 1500,
        currency: "usd",
        type: "one_time",
        product: product.id,
      });

      const customer = await stripe.customers.create({ email: `upsell-${Date.now()}@example.com` });
      const offSession = async (paymentMethod: string) => {
        const intent = await stripe.paymentIntents.create({
          amount: 1500,
          currency: "usd",
          customer: customer.id,
          payment_method: paymentMethod,
          metadata: { purchaseId: "contract2" },
        });
        // Naming the card (without confirm) leaves the intent waiting for confirmation, not for a card.
        expect(intent).toMatchObject({
          status: "requires_confirmation",
          payment_method: paymentMethod,
          last_payment_error: null,
          latest_charge: null,
        });
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
      await expect(needsAuth.confirm()).rejects.toMatchObject({
        type: "StripeCardError",
        code: "authentication_required",
      });
      const afterAuthError = await stripe.paymentIntents.retrieve(needsAuth.intent.id);
      expect(afterAuthError.status).toBe("requires_payment_method");
      expect(afterAuthError.last_payment_error?.code).toBe("authentication_required");
      const canceled = await stripe.paymentIntents.cancel(needsAuth.intent.id, { cancellation_reason: "abandoned" });
      expect(canceled).toMatchObject({ status: "canceled", cancellation_reason: "abandoned" });
      expect(canceled.canceled_at).toBeGreaterThan(0);
      // A canceled intent is final: it can be neither confirmed (charged) nor canceled again.
      await expect(
        stripe.paymentIntents.confirm(needsAuth.intent.id, { payment_method: visa.id, off_session: true }),
      ).rejects.toMatchObject({ type: "StripeInvalidRequestError", code: "payment_intent_unexpected_state" });
      await expect(stripe.paymentIntents.cancel(needsAuth.intent.id)).rejects.toMatchObject({
        type: "StripeInvalidRequestError",
        code: "payment_intent_unexpected_state",
      });
      expect(await stripe.paymentIntents.retrieve(needsAuth.intent.id)).toMatchObject({
        status: "canceled",
        amount_received: 0,
      });

      const failing = await stripe.paymentMethods.attach("pm_card_chargeCustomerFail", { customer: customer.id });
      expect(
        (await stripe.customers.listPaymentMethods(customer.id, { type: "card" })).data.map((pm) => pm.id),
      ).toEqual(expect.arrayContaining([visa.id, threeDs.id, failing.id]));
      const declines = await offSession(failing.id);
      await expect(declines.confirm()).rejects.toMatchObject({ type: "StripeCardError", code: "card_declined" });
      const afterDecline = await stripe.paymentIntents.retrieve(declines.intent.id);
      expect(afterDecline).toMatchObject({
        status: "requires_payment_method",
        last_payment_error: { code: "card_declined" },
      });
      expect(await stripe.charges.retrieve(afterDecline.latest_charge as string)).toMatchObject({
        status: "failed",
        paid: false,
        payment_method: failing.id,
      });
      // Declining an offer cancels an intent that never charged.
      expect(await stripe.paymentIntents.cancel(declines.intent.id)).toMatchObject({ status: "canceled" });

      // A card on another customer cannot be charged off-session.
      const stranger = await stripe.customers.create({});
      await expect(
        stripe.paymentIntents.create({
          amount: 1500,
          currency: "usd",
          customer: stranger.id,
          payment_method: visa.id,
          confirm: true,
          off_session: true,
        }),
      ).rejects.toMatchObject({
        type: "StripeInvalidRequestError",
      });
    },
  );
});

describe.each(targets)("creator money against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "Connect: Express account, onboarding link, status, login link refused before onboarding, transfer refused without capability, balance",
    async () => {
      const stripe = client();
      const email = `connect-${Date.now()}@example.com`;
      const key = `contract-acct-${Date.now()}`;
      const account = await stripe.accounts.create(
        { type: "express", email, capabilities: { transfers: { requested: true } }, metadata: { userId: "u1" } },
        { idempotencyKey: key },
      );
      expect(account).toMatchObject({
        object: "account",
        type: "express",
        email,
        details_submitted: false,
        payouts_enabled: false,
        metadata: { userId: "u1" },
      });
      expect(
        (
          await stripe.accounts.create(
            { type: "express", email, capabilities: { transfers: { requested: true } }, metadata: { userId: "u1" } },
            { idempotencyKey: key },
          )
        ).id,
      ).toBe(account.id);
      const link = await stripe.accountLinks.create({
        account: account.id,
        refresh_url: "https://example.com/connect?refresh=true",
        return_url: "https://example.com/connect?connected=true",
        type: "account_onboarding",
      });
      expect(link).toMatchObject({ object: "account_link" });
      expect(link.url).toMatch(/^https?:\/\//);
      expect(link.expires_at).toBeGreaterThan(link.created);
      expect(await stripe.accounts.retrieve(account.id)).toMatchObject({ id: account.id, details_submitted: false });
      await expect(stripe.accounts.createLoginLink(account.id)).rejects.toMatchObject({
        type: "StripeInvalidRequestError",
      });
      await expect(
        stripe.transfers.create(
          { amount: 100, currency: "usd", destination: account.id },
          { idempotencyKey: `${key}-tr` },
        ),
      ).rejects.toMatchObject({ type: "StripeInvalidRequestError" });
      const balance = await stripe.balance.retrieve();
      expect(balance.object).toBe("balance");
      expect(balance.available[0]).toMatchObject({ currency: "usd" });
    },
  );

  it.runIf(enabled)(
    "Billing: recurring price, default_incomplete subscription with the invoice's confirmation secret, pay it, renew on a test clock, cancel at period end",
    async () => {
      const stripe = client();
      const start = Math.floor(Date.now() / 1000);
      const clock = await stripe.testHelpers.testClocks.create({ frozen_time: start });
      expect(clock).toMatchObject({ object: "test_helpers.test_clock", status: "ready", frozen_time: start });
      const customer = await stripe.customers.create({ email: `pro-${Date.now()}@example.com`, test_clock: clock.id });
      const price = await stripe.prices.create({
        currency: "usd",
        unit_amount: 9900,
        recurring: { interval: "month" },
        product_data: { name: "Contract Pro" },
      });
      const sub = await stripe.subscriptions.create(
        {
          customer: customer.id,
          items: [{ price: price.id }],
          payment_behavior: "default_incomplete",
          payment_settings: { save_default_payment_method: "on_subscription" },
          expand: ["latest_invoice.confirmation_secret"],
          metadata: { userId: "u1" },
        },
        { idempotencyKey: `contract-sub-${Date.now()}` },
      );
      expect(sub).toMatchObject({ object: "subscription", status: "incomplete", cancel_at_period_end: false });
      const invoice = sub.latest_invoice as Stripe.Invoice;
      expect(invoice).toMatchObject({
        object: "invoice",
        status: "open",
        amount_due: 9900,
        billing_reason: "subscription_create",
      });
      expect(invoice.parent?.subscription_details?.subscription).toBe(sub.id);
      expect(invoice.confirmation_secret).toMatchObject({ type: "payment_intent" });
      const intentId = invoice.confirmation_secret!.client_secret.split("_secret_")[0];
      await stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_visa" });
      const active = await stripe.subscriptions.retrieve(sub.id);
      expect(active.status).toBe("active");
      const periodEnd = active.items.data[0].current_period_end;
      expect(periodEnd).toBeGreaterThan(start + 27 * 86400);
      expect((await stripe.invoices.retrieve(invoice.id)).status).toBe("paid");

      // Test clocks advance in the background: the advance answers `advancing`, then the clock is `ready`.
      expect((await stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: periodEnd + 3600 })).status).toBe(
        "advancing",
      );
      for (let i = 0; i < 60 && (await stripe.testHelpers.testClocks.retrieve(clock.id)).status !== "ready"; i++)
        await new Promise((r) => setTimeout(r, 2000));
      expect(await stripe.testHelpers.testClocks.retrieve(clock.id)).toMatchObject({
        status: "ready",
        frozen_time: periodEnd + 3600,
      });
      const renewed = await stripe.subscriptions.retrieve(sub.id);
      expect(renewed.items.data[0].current_period_end).toBeGreaterThan(periodEnd);
      const invoices = await stripe.invoices.list({ subscription: sub.id, limit: 10 });
      expect(invoices.data.some((i) => i.billing_reason === "subscription_cycle")).toBe(true);

      const canceling = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
      expect(canceling).toMatchObject({ cancel_at_period_end: true, status: "active" });
    },
  );
});

describe("the stand-in's transfers (for the payout run)", () => {
  it("pays a connected account from the platform balance, reverses it, refuses more than the balance", async () => {
    const stripe = standinClient();
    const base = inject("stripeUrl");
    const account = await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } });
    await fetch(`${base}/_standin/accounts/${account.id}/onboard`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_e2e" },
    });
    expect(await stripe.accounts.retrieve(account.id)).toMatchObject({
      details_submitted: true,
      payouts_enabled: true,
      capabilities: { transfers: "active" },
    });
    // Card payments wait in the pending balance; the 0077 card (pm_card_bypassPending) adds to the available one.
    const start = await stripe.balance.retrieve();
    const pending = await stripe.paymentIntents.create({
      amount: 5000,
      currency: "usd",
      payment_method: "pm_card_visa",
      confirm: true,
    });
    expect(pending.status).toBe("succeeded");
    const afterCard = await stripe.balance.retrieve();
    // A charge adds its net to the balance: the amount less Stripe's processing fee.
    const netOf = async (pi: Stripe.PaymentIntent) =>
      (
        (await stripe.charges.retrieve(pi.latest_charge as string, { expand: ["balance_transaction"] }))
          .balance_transaction as Stripe.BalanceTransaction
      ).net;
    const pendingNet = await netOf(pending);
    expect(pendingNet).toBeLessThan(5000);
    expect(afterCard.available[0].amount).toBe(start.available[0].amount);
    expect(afterCard.pending[0].amount).toBe(start.pending[0].amount + pendingNet);
    const intent = await stripe.paymentIntents.create({
      amount: 5000,
      currency: "usd",
      payment_method: "pm_card_bypassPending",
      confirm: true,
    });
    expect(intent.status).toBe("succeeded");
    const before = (await stripe.balance.retrieve()).available[0].amount;
    expect(before).toBe(start.available[0].amount + (await netOf(intent)));
    if (before < 3000)
      await fetch(`${base}/_standin/balance/top_up`, {
        method: "POST",
        headers: { authorization: "Bearer sk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
        body: "amount=100000",
      });
    const funded = (await stripe.balance.retrieve()).available[0].amount;

    const key = `payout-${Date.now()}`;
    const transfer = await stripe.transfers.create(
      {
        amount: 3000,
        currency: "usd",
        destination: account.id,
        transfer_group: "payout_2026_12",
        metadata: { payoutId: "po1" },
      },
      { idempotencyKey: key },
    );
    expect(transfer).toMatchObject({
      object: "transfer",
      amount: 3000,
      amount_reversed: 0,
      destination: account.id,
      reversed: false,
      transfer_group: "payout_2026_12",
      metadata: { payoutId: "po1" },
    });
    expect(
      (
        await stripe.transfers.create(
          {
            amount: 3000,
            currency: "usd",
            destination: account.id,
            transfer_group: "payout_2026_12",
            metadata: { payoutId: "po1" },
          },
          { idempotencyKey: key },
        )
      ).id,
    ).toBe(transfer.id);
    expect((await stripe.balance.retrieve()).available[0].amount).toBe(funded - 3000);
    const events = await stripe.events.list({ type: "transfer.created", limit: 5 });
    expect(events.data.map((e) => (e.data.object as Stripe.Transfer).id)).toContain(transfer.id);

    const reversal = await stripe.transfers.createReversal(transfer.id, { amount: 1000 });
    expect(reversal).toMatchObject({ object: "transfer_reversal", amount: 1000, transfer: transfer.id });
    expect(await stripe.transfers.retrieve(transfer.id)).toMatchObject({ amount_reversed: 1000, reversed: false });
    const reversedEvents = await stripe.events.list({ type: "transfer.reversed", limit: 5 });
    expect(reversedEvents.data.map((e) => (e.data.object as Stripe.Transfer).id)).toContain(transfer.id);

    await expect(
      stripe.transfers.create({ amount: 100_000_000, currency: "usd", destination: account.id }),
    ).rejects.toMatchObject({ type: "StripeInvalidRequestError", code: "balance_insufficient" });
    await fetch(`${base}/_standin/accounts/${account.id}/restrict`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_e2e" },
    });
    await expect(
      stripe.transfers.create({ amount: 100, currency: "usd", destination: account.id }),
    ).rejects.toMatchObject({ code: "insufficient_capabilities_for_transfer" });
  });
});

/** On the stand-in: an onboarded Express account and platform funds to pay it (stand-in controls). */
async function standinConnectedAccount(stripe: Stripe, base: string): Promise<string> {
  const account = await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } });
  const control = (path: string, body?: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
      body: body && new URLSearchParams(body),
    });
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
  it.runIf(enabled)(
    "transfer with idempotency and transfer_group, list by group, reversal, unknown destination",
    async () => {
      const stripe = client();
      const destination = connectedAccount || (await standinConnectedAccount(stripe, inject("stripeUrl")));
      const group = `payouts-contract-${Date.now()}`;
      const params: Stripe.TransferCreateParams = {
        amount: 2500,
        currency: "usd",
        destination,
        transfer_group: group,
        metadata: { payout_id: "po_contract" },
      };
      const key = `po_contract_${Date.now()}`;
      const transfer = await stripe.transfers.create(params, { idempotencyKey: key });
      expect(transfer).toMatchObject({
        object: "transfer",
        amount: 2500,
        amount_reversed: 0,
        currency: "usd",
        destination,
        transfer_group: group,
        reversed: false,
        metadata: { payout_id: "po_contract" },
      });
      expect(transfer.reversals).toMatchObject({ object: "list", data: [] });
      expect((await stripe.transfers.create(params, { idempotencyKey: key })).id).toBe(transfer.id);
      await expect(stripe.transfers.create({ ...params, amount: 2600 }, { idempotencyKey: key })).rejects.toMatchObject(
        { type: "StripeIdempotencyError" },
      );

      const listed = await stripe.transfers.list({ destination, transfer_group: group, limit: 10 });
      expect(listed.data.map((t) => t.id)).toEqual([transfer.id]);

      const reversal = await stripe.transfers.createReversal(transfer.id);
      expect(reversal).toMatchObject({ object: "transfer_reversal", amount: 2500, transfer: transfer.id });
      expect(await stripe.transfers.retrieve(transfer.id)).toMatchObject({ reversed: true, amount_reversed: 2500 });

      await expect(
        stripe.transfers.create({ amount: 100, currency: "usd", destination: "nope_not_an_account" }),
      ).rejects.toMatchObject({ type: "StripeInvalidRequestError", param: "destination" });
    },
  );
});

describe("the stand-in's transfer controls", () => {
  it("fail the next transfer to an account with Stripe's error, then transfers work again", async () => {
    const standin = createStandin();
    const url = new URL(await standin.listen(0));
    const stripe = new Stripe("sk_test_transfers", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const broke = await standinConnectedAccount(stripe, url.origin);
    const control = await fetch(`${url.origin}/_standin/transfers/fail_next`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_transfers", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ destination: broke, code: "balance_insufficient" }),
    });
    expect(control.status).toBe(200);
    await expect(stripe.transfers.create({ amount: 100, currency: "usd", destination: broke })).rejects.toMatchObject({
      type: "StripeInvalidRequestError",
      code: "balance_insufficient",
      statusCode: 400,
    });
    expect(await stripe.transfers.create({ amount: 100, currency: "usd", destination: broke })).toMatchObject({
      object: "transfer",
      amount: 100,
    });
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
    const standin = createStandin({
      webhookUrls: [`http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`],
      webhookSecret: "whsec_contract",
    });
    const url = new URL(await standin.listen(0));
    const stripe = new Stripe("sk_test_contract", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const intent = await stripe.paymentIntents.create({ amount: 700, currency: "usd" });
    await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
    await standin.flushWebhooks();
    const types = [];
    for (const { body, signature } of received) {
      const event = await Stripe.webhooks.constructEventAsync(body, signature, "whsec_contract");
      types.push(event.type);
      await expect(Stripe.webhooks.constructEventAsync(body, signature, "whsec_other")).rejects.toThrow();
    }
    expect(types).toEqual(
      expect.arrayContaining(["payment_intent.created", "charge.succeeded", "payment_intent.succeeded"]),
    );
    await standin.close();
    sink.close();
  });
});

describe("webhook endpoints of the stand-in", () => {
  it("each endpoint gets only its kind of event (its account's, or connected accounts'), every delivery signed with its own secret, retries included", async () => {
    // Two endpoints, as docs/operations.md sets up for the app: "Your account" and "Connected accounts".
    const got: Record<string, { body: string; signature: string }[]> = { platform: [], connect: [] };
    const tries = new Map<string, number>();
    const sink = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      const which = req.url === "/connect" ? "connect" : "platform";
      got[which].push({ body, signature: String(req.headers["stripe-signature"]) });
      // Every fifth event is refused once, so its retry is checked too.
      const id = (JSON.parse(body) as { id: string }).id;
      const n = (tries.get(`${which}:${id}`) ?? 0) + 1;
      tries.set(`${which}:${id}`, n);
      res.statusCode = n === 1 && tries.size % 5 === 0 ? 500 : 200;
      res.end();
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", () => r()));
    const hook = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
    const standin = createStandin({
      webhookUrls: [`${hook}/platform`],
      connectWebhookUrls: [`${hook}/connect`],
      webhookSecret: "whsec_platform",
      connectWebhookSecret: "whsec_connected",
    });
    const url = new URL(await standin.listen(0));
    const stripe = new Stripe("sk_test_sigs", {
      host: url.hostname,
      port: url.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    const control = (path: string, body: Record<string, string> = {}) =>
      fetch(`${url.origin}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer sk_test_sigs", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(body),
      }).then((r) => r.json() as Promise<{ id: string }>);
    for (let i = 0; i < 4; i++) {
      const customer = await stripe.customers.create({ email: `sigs-${i}@example.com`, name: "Zoë ✓ 😀" });
      const paid = await stripe.paymentIntents.create({
        amount: 1000 + i,
        currency: "usd",
        customer: customer.id,
        description: "Café – naïve 😀",
        payment_method: "pm_card_visa",
        confirm: true,
      });
      await stripe.refunds.create({ payment_intent: paid.id, amount: 100 });
      await control(`/_standin/charges/${paid.latest_charge}/dispute`);
      const account = await stripe.accounts.create({
        type: "express",
        email: `sigs-${i}@example.com`,
        capabilities: { transfers: { requested: true } },
      });
      await control(`/_standin/accounts/${account.id}/onboard`);
      await control(`/_standin/accounts/${account.id}/restrict`);
      await control("/_standin/balance/top_up", { amount: "100000" });
      const transfer = await stripe.transfers.create({
        amount: 500,
        currency: "usd",
        destination: (
          await control(
            `/_standin/accounts/${(await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } })).id}/onboard`,
          )
        ).id,
      });
      await stripe.transfers.createReversal(transfer.id, { amount: 100 });
    }
    await standin.flushWebhooks();
    const problems: string[] = [];
    for (const [which, secret, other] of [
      ["platform", "whsec_platform", "whsec_connected"],
      ["connect", "whsec_connected", "whsec_platform"],
    ] as const) {
      for (const { body, signature } of got[which]) {
        const event = await Stripe.webhooks.constructEventAsync(body, signature, secret).catch(() => null);
        if (!event)
          problems.push(
            `${which}: ${(JSON.parse(body) as { type: string }).type} not signed with this endpoint's secret`,
          );
        else if ((which === "connect") !== !!event.account)
          problems.push(`${which}: ${event.type} (account ${event.account ?? "none"}) sent to the wrong endpoint`);
        if (
          await Stripe.webhooks.constructEventAsync(body, signature, other).then(
            () => true,
            () => false,
          )
        )
          problems.push(`${which}: also valid under the other secret`);
      }
    }
    expect(problems).toEqual([]);
    expect(got.platform.length).toBeGreaterThan(40);
    expect(got.connect.length).toBeGreaterThan(8);
    await standin.close();
    sink.close();
  });
});

describe.each(targets)("refund balance against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "a refund takes its amount out of the balance by a negative balance transaction of type refund",
    async () => {
      const stripe = client();
      const availableUsd = (b: Stripe.Balance) => b.available.find((x) => x.currency === "usd")?.amount ?? 0;
      // The 0077 card puts its funds in the available balance at once, so the refund is taken from there.
      const paid = await stripe.paymentIntents.create({
        amount: 3000,
        currency: "usd",
        allowed_payment_method_types: ["card"],
        payment_method: "pm_card_bypassPending",
        confirm: true,
      });
      const before = availableUsd(await stripe.balance.retrieve());
      const refund = await stripe.refunds.create({ payment_intent: paid.id, amount: 1200 });
      expect(typeof refund.balance_transaction).toBe("string");
      const txn = await stripe.balanceTransactions.retrieve(refund.balance_transaction as string);
      expect(txn).toMatchObject({
        object: "balance_transaction",
        type: "refund",
        amount: -1200,
        net: -1200,
        source: refund.id,
      });
      expect(availableUsd(await stripe.balance.retrieve())).toBe(before - 1200);
    },
  );
});

/** A stand-in of the test's own, its SDK client, and a way to call its controls and confirm with a raw test card. */
async function ownStandin() {
  const standin = createStandin();
  const url = new URL(await standin.listen(0));
  const stripe = new Stripe("sk_test_money", {
    host: url.hostname,
    port: url.port,
    protocol: "http",
    maxNetworkRetries: 0,
  });
  const post = async <T>(path: string, body: Record<string, string> = {}) => {
    const res = await fetch(`${url.origin}${path}`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_money", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  /** A succeeded card payment with a raw test card number (Stripe's refund test cards have no pm_card_ id). */
  const pay = async (amount: number, card = "4242424242424242") => {
    const intent = await stripe.paymentIntents.create({
      amount,
      currency: "usd",
      allowed_payment_method_types: ["card"],
    });
    const paid = await post<Stripe.PaymentIntent>(`/v1/payment_intents/${intent.id}/confirm`, {
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": card,
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 3),
      "payment_method_data[card][cvc]": "123",
    });
    expect(paid.body.status).toBe("succeeded");
    return { intent: paid.body.id, charge: paid.body.latest_charge as string };
  };
  const balance = async () => {
    const b = await stripe.balance.retrieve();
    const usd = (xs: { amount: number; currency: string }[]) => xs.find((x) => x.currency === "usd")?.amount ?? 0;
    return usd(b.available) + usd(b.pending);
  };
  return { standin, stripe, post, pay, balance };
}

describe("the stand-in's refunds and disputes move its balance as Stripe's do", () => {
  it("a pending refund is taken at once; one that fails later comes back by its failure_balance_transaction and leaves the charge unrefunded", async () => {
    const { standin, stripe, post, pay, balance } = await ownStandin();
    const { charge } = await pay(4000, "4000000000007726");
    const start = await balance();
    const pending = await stripe.refunds.create({ charge, amount: 1500 });
    expect(pending.status).toBe("pending");
    expect(await stripe.balanceTransactions.retrieve(pending.balance_transaction as string)).toMatchObject({
      type: "refund",
      amount: -1500,
    });
    expect(await balance()).toBe(start - 1500);
    expect(await stripe.charges.retrieve(charge)).toMatchObject({ amount_refunded: 1500, refunded: false });
    expect((await post(`/_standin/refunds/${pending.id}/settle`, { outcome: "failed" })).status).toBe(200);
    const failed = await stripe.refunds.retrieve(pending.id);
    expect(failed).toMatchObject({ status: "failed", failure_reason: expect.any(String) });
    expect(await stripe.balanceTransactions.retrieve(failed.failure_balance_transaction as string)).toMatchObject({
      amount: 1500,
      reporting_category: "refund_failure",
      source: pending.id,
    });
    expect(await balance()).toBe(start);
    const after = await stripe.charges.retrieve(charge, { expand: ["refunds"] });
    expect(after).toMatchObject({ amount_refunded: 0, refunded: false });
    expect(after.refunds?.data.map((r) => [r.id, r.status])).toEqual([[pending.id, "failed"]]);
    // Its amount can be refunded again, in full, and then the charge is refunded and refuses more.
    await stripe.refunds.create({ charge });
    expect(await stripe.charges.retrieve(charge)).toMatchObject({ amount_refunded: 4000, refunded: true });
    await expect(stripe.refunds.create({ charge, amount: 1 })).rejects.toMatchObject({
      code: "charge_already_refunded",
    });
    await standin.close();
  });

  it("a chargeback withdraws the disputed amount and Stripe's $15 dispute fee, a won dispute reinstates both; an inquiry moves nothing until it escalates", async () => {
    const { standin, stripe, post, pay, balance } = await ownStandin();
    const lost = await pay(2500);
    const start = await balance();
    const chargeback = await post<Stripe.Dispute>(`/_standin/charges/${lost.charge}/dispute`);
    expect(chargeback.body.status).toBe("needs_response");
    expect(chargeback.body.balance_transactions).toMatchObject([
      {
        object: "balance_transaction",
        type: "adjustment",
        reporting_category: "dispute",
        amount: -2500,
        fee: 1500,
        net: -4000,
        source: chargeback.body.id,
      },
    ]);
    expect(chargeback.body.balance_transactions[0].fee_details).toMatchObject([{ amount: 1500, type: "stripe_fee" }]);
    expect(await balance()).toBe(start - 4000);
    await expect(stripe.refunds.create({ charge: lost.charge })).rejects.toMatchObject({ code: "charge_disputed" });
    await post(`/_standin/disputes/${chargeback.body.id}/close`, { outcome: "lost" });
    expect((await stripe.disputes.retrieve(chargeback.body.id)).balance_transactions).toHaveLength(1);
    expect(await balance()).toBe(start - 4000);

    const won = await pay(1000);
    // The charge adds its net: the amount less Stripe's processing fee.
    const wonCharge = await stripe.charges.retrieve(won.charge, { expand: ["balance_transaction"] });
    const wonNet = (wonCharge.balance_transaction as Stripe.BalanceTransaction).net;
    expect(wonNet).toBeLessThan(1000);
    const inquiry = await post<Stripe.Dispute>(`/_standin/charges/${won.charge}/dispute`, { inquiry: "true" });
    expect(inquiry.body).toMatchObject({ status: "warning_needs_response", balance_transactions: [] });
    expect(await balance()).toBe(start - 4000 + wonNet);
    await post(`/_standin/disputes/${inquiry.body.id}/escalate`);
    expect(await balance()).toBe(start - 4000 + wonNet - 2500);
    await post(`/_standin/disputes/${inquiry.body.id}/close`, { outcome: "won" });
    const closed = await stripe.disputes.retrieve(inquiry.body.id);
    expect(closed.status).toBe("won");
    expect(closed.balance_transactions.map((t) => [t.amount, t.fee, t.reporting_category])).toEqual([
      [-1000, 1500, "dispute"],
      [1000, -1500, "dispute_reversal"],
    ]);
    for (const t of closed.balance_transactions)
      expect(await stripe.balanceTransactions.retrieve(t.id)).toMatchObject({
        id: t.id,
        amount: t.amount,
        fee: t.fee,
        net: t.net,
      });
    expect(await balance()).toBe(start - 4000 + wonNet);
    expect((await stripe.disputes.list({ charge: won.charge })).data.map((d) => d.id)).toEqual([inquiry.body.id]);
    await standin.close();
  });
});

describe.each(targets)("PaymentIntent lifecycle against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "create with and without a card, confirm, decline, manual capture, authentication, cancel: the documented status after every step",
    async () => {
      const stripe = client();
      const base = { amount: 2000, currency: "usd", allowed_payment_method_types: ["card"] };

      const bare = await stripe.paymentIntents.create(base);
      expect(bare).toMatchObject({
        status: "requires_payment_method",
        payment_method: null,
        canceled_at: null,
        cancellation_reason: null,
        latest_charge: null,
      });
      const bareCanceled = await stripe.paymentIntents.cancel(bare.id, {
        cancellation_reason: "requested_by_customer",
      });
      expect(bareCanceled).toMatchObject({ status: "canceled", cancellation_reason: "requested_by_customer" });
      expect(bareCanceled.canceled_at).toBeGreaterThan(0);

      const named = await stripe.paymentIntents.create({ ...base, payment_method: "pm_card_visa" });
      expect(named.status).toBe("requires_confirmation");
      expect(named.payment_method).toMatch(/^pm_/);
      const confirmed = await stripe.paymentIntents.confirm(named.id);
      expect(confirmed).toMatchObject({ status: "succeeded", amount_received: 2000, amount_capturable: 0 });
      expect(await stripe.charges.retrieve(confirmed.latest_charge as string)).toMatchObject({
        status: "succeeded",
        paid: true,
        captured: true,
        amount_captured: 2000,
      });

      // confirm=true with a test PaymentMethod charges in the one call.
      const oneCall = await stripe.paymentIntents.create({ ...base, payment_method: "pm_card_visa", confirm: true });
      expect(oneCall).toMatchObject({ status: "succeeded", amount_received: 2000 });

      // A decline in the one call: 402, and the intent waits for another card.
      const declinedError = await stripe.paymentIntents
        .create({ ...base, payment_method: "pm_card_chargeDeclined", confirm: true })
        .catch((e: Stripe.errors.StripeCardError) => e);
      expect(declinedError).toMatchObject({ type: "StripeCardError", code: "card_declined", statusCode: 402 });
      const declinedIntent = (declinedError as Stripe.errors.StripeCardError).payment_intent!;
      expect(declinedIntent.status).toBe("requires_payment_method");
      expect(await stripe.paymentIntents.retrieve(declinedIntent.id)).toMatchObject({
        status: "requires_payment_method",
        last_payment_error: { code: "card_declined" },
      });

      // Manual capture: authorised and held, then captured; a held one can be canceled instead.
      const held = await stripe.paymentIntents.create({
        ...base,
        capture_method: "manual",
        payment_method: "pm_card_visa",
        confirm: true,
      });
      expect(held).toMatchObject({ status: "requires_capture", amount_capturable: 2000, amount_received: 0 });
      const captured = await stripe.paymentIntents.capture(held.id);
      expect(captured).toMatchObject({ status: "succeeded", amount_capturable: 0, amount_received: 2000 });
      await expect(stripe.paymentIntents.capture(held.id)).rejects.toMatchObject({
        type: "StripeInvalidRequestError",
        code: "payment_intent_unexpected_state",
      });
      const released = await stripe.paymentIntents.create({
        ...base,
        capture_method: "manual",
        payment_method: "pm_card_visa",
        confirm: true,
      });
      expect(released.status).toBe("requires_capture");
      expect(await stripe.paymentIntents.cancel(released.id)).toMatchObject({
        status: "canceled",
        amount_capturable: 0,
        amount_received: 0,
      });

      // A card that always asks its bank: the intent waits for the cardholder, and can be canceled.
      const asks = await stripe.paymentIntents.create({
        ...base,
        payment_method: "pm_card_authenticationRequired",
        confirm: true,
        return_url: "https://example.com/return",
      });
      expect(asks.status).toBe("requires_action");
      expect(asks.next_action).not.toBeNull();
      expect(await stripe.paymentIntents.cancel(asks.id)).toMatchObject({ status: "canceled", next_action: null });
      await expect(stripe.paymentIntents.confirm(asks.id, { payment_method: "pm_card_visa" })).rejects.toMatchObject({
        code: "payment_intent_unexpected_state",
      });
      expect((await stripe.paymentIntents.retrieve(asks.id)).status).toBe("canceled");
    },
  );

  it.runIf(enabled)(
    "a request that fails validation is not kept under its Idempotency-Key, and a missing parameter says which",
    async () => {
      const stripe = client();
      const key = `contract-validation-${Date.now()}`;
      await expect(
        stripe.paymentIntents.create({ amount: 1500 } as Stripe.PaymentIntentCreateParams, { idempotencyKey: key }),
      ).rejects.toMatchObject({
        type: "StripeInvalidRequestError",
        code: "parameter_missing",
        param: "currency",
      });
      const corrected = await stripe.paymentIntents.create({ amount: 1500, currency: "usd" }, { idempotencyKey: key });
      expect(corrected).toMatchObject({ status: "requires_payment_method", amount: 1500 });
      expect((await stripe.paymentIntents.create({ amount: 1500, currency: "usd" }, { idempotencyKey: key })).id).toBe(
        corrected.id,
      );
    },
  );

  it.runIf(enabled)(
    "a card payment waits in the pending balance until available_on; the 0077 card goes straight to available",
    async () => {
      const stripe = client();
      const pendingUsd = (b: Stripe.Balance) => b.pending.find((x) => x.currency === "usd")?.amount ?? 0;
      const before = await stripe.balance.retrieve();
      const paid = await stripe.paymentIntents.create({
        amount: 5000,
        currency: "usd",
        allowed_payment_method_types: ["card"],
        payment_method: "pm_card_visa",
        confirm: true,
      });
      expect(paid.status).toBe("succeeded");
      const charge = await stripe.charges.retrieve(paid.latest_charge as string, { expand: ["balance_transaction"] });
      const txn = charge.balance_transaction as Stripe.BalanceTransaction;
      expect(txn).toMatchObject({
        object: "balance_transaction",
        status: "pending",
        type: "charge",
        amount: 5000,
        source: charge.id,
      });
      expect(txn.available_on).toBeGreaterThan(txn.created);
      expect(pendingUsd(await stripe.balance.retrieve())).toBeGreaterThan(pendingUsd(before));

      const direct = await stripe.paymentIntents.create({
        amount: 5000,
        currency: "usd",
        allowed_payment_method_types: ["card"],
        payment_method: "pm_card_bypassPending",
        confirm: true,
      });
      expect(direct.status).toBe("succeeded");
      const directTxn = (
        await stripe.charges.retrieve(direct.latest_charge as string, { expand: ["balance_transaction"] })
      ).balance_transaction as Stripe.BalanceTransaction;
      expect(directTxn).toMatchObject({ status: "available", type: "charge", amount: 5000 });
    },
  );

  it.runIf(enabled)(
    "a declined first subscription payment leaves the subscription incomplete, never past_due",
    async () => {
      const stripe = client();
      const customer = await stripe.customers.create({ email: `incomplete-${Date.now()}@example.com` });
      const price = await stripe.prices.create({
        currency: "usd",
        unit_amount: 9900,
        recurring: { interval: "month" },
        product_data: { name: "Contract Pro (declined)" },
      });
      const failing = await stripe.paymentMethods.attach("pm_card_chargeCustomerFail", { customer: customer.id });

      const allowed = await stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: price.id }],
        default_payment_method: failing.id,
        payment_behavior: "allow_incomplete",
        expand: ["latest_invoice"],
      });
      expect(allowed.status).toBe("incomplete");
      expect(allowed.latest_invoice).toMatchObject({ status: "open", amount_paid: 0, attempted: true });
      expect((await stripe.subscriptions.retrieve(allowed.id)).status).toBe("incomplete");

      await expect(
        stripe.subscriptions.create({
          customer: customer.id,
          items: [{ price: price.id }],
          default_payment_method: failing.id,
          payment_behavior: "error_if_incomplete",
        }),
      ).rejects.toMatchObject({
        type: "StripeCardError",
        code: "card_declined",
      });

      const waiting = await stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: price.id }],
        payment_behavior: "default_incomplete",
        expand: ["latest_invoice.confirmation_secret"],
      });
      expect(waiting.status).toBe("incomplete");
      const intentId = (waiting.latest_invoice as Stripe.Invoice).confirmation_secret!.client_secret.split(
        "_secret_",
      )[0];
      await expect(
        stripe.paymentIntents.confirm(intentId, { payment_method: "pm_card_chargeDeclined" }),
      ).rejects.toMatchObject({ type: "StripeCardError" });
      expect(await stripe.paymentIntents.retrieve(intentId)).toMatchObject({ status: "requires_payment_method" });
      expect((await stripe.subscriptions.retrieve(waiting.id)).status).toBe("incomplete");
    },
  );
});

describe("the stand-in's cards that ask their bank (no API call can authenticate on real Stripe)", () => {
  it("4000 0025 0000 3155 set up with authentication is charged off-session without asking again; 4000 0027 6000 3184 always asks", async () => {
    const stripe = standinClient();
    const base = inject("stripeUrl");
    const customer = await stripe.customers.create({ email: `setup-${Date.now()}@example.com` });
    /** An on-session payment that saves the card, authenticated by the cardholder (3DS). */
    const setUpWithAuthentication = async (testCard: string) => {
      const intent = await stripe.paymentIntents.create({
        amount: 1000,
        currency: "usd",
        customer: customer.id,
        setup_future_usage: "off_session",
        allowed_payment_method_types: ["card"],
      });
      const asked = await stripe.paymentIntents.confirm(intent.id, {
        payment_method: testCard,
        return_url: "https://example.com/return",
      });
      expect(asked.status).toBe("requires_action");
      const res = await fetch(`${base}/_standin/payment_intents/${intent.id}/authenticate`, {
        method: "POST",
        headers: { authorization: "Bearer pk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ client_secret: asked.client_secret! }),
      });
      expect(res.status).toBe(200);
      const paid = await stripe.paymentIntents.retrieve(intent.id);
      expect(paid.status).toBe("succeeded");
      return paid.payment_method as string;
    };
    const offSession = (paymentMethod: string) =>
      stripe.paymentIntents.create({
        amount: 700,
        currency: "usd",
        customer: customer.id,
        payment_method: paymentMethod,
        off_session: true,
        confirm: true,
      });

    const onSetup = await setUpWithAuthentication("pm_card_authenticationRequiredOnSetup");
    expect((await stripe.paymentMethods.retrieve(onSetup)).card?.last4).toBe("3155");
    expect(await offSession(onSetup)).toMatchObject({ status: "succeeded", amount_received: 700 });

    const always = await setUpWithAuthentication("pm_card_authenticationRequired");
    expect((await stripe.paymentMethods.retrieve(always)).card?.last4).toBe("3184");
    await expect(offSession(always)).rejects.toMatchObject({
      type: "StripeCardError",
      code: "authentication_required",
    });

    // A 3155 card saved without authentication (attached directly) still asks off-session.
    const attached = await stripe.paymentMethods.attach("pm_card_authenticationRequiredOnSetup", {
      customer: customer.id,
    });
    await expect(offSession(attached.id)).rejects.toMatchObject({
      type: "StripeCardError",
      code: "authentication_required",
    });
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
