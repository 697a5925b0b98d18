// The Stripe contract for a purchase: customer, PaymentIntent with idempotency, confirm, charge, decline,
// checkout's payment methods, and the stand-in's Link wallet and payments that settle later.
// Scenarios `describe.each(targets)` run against the local stand-in and, when STRIPE_TEST_SECRET_KEY is
// set, against real Stripe test mode (support.ts); the others play what only the stand-in can.
import type Stripe from "stripe";
import { describe, expect, inject, it } from "vitest";
import { standinClient, targets } from "./support";

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
      // Its amount can no longer change (Stripe allows that only before the payment is under way).
      await expect(stripe.paymentIntents.update(slow.id, { amount: 1600 })).rejects.toMatchObject({
        code: "payment_intent_unexpected_state",
        message: expect.stringContaining("because it has a status of processing"),
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
