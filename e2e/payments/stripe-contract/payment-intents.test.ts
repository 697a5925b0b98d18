// The Stripe contract for PaymentIntents: the documented status after every step, validation and
// Idempotency-Key, the pending balance, a declined first subscription payment, and the stand-in's
// cards that ask their bank.
// Scenarios `describe.each(targets)` run against the local stand-in and, when STRIPE_TEST_SECRET_KEY is
// set, against real Stripe test mode (support.ts); the others play what only the stand-in can.
import type Stripe from "stripe";
import { describe, expect, inject, it } from "vitest";
import { standinClient, targets } from "./support";

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
    "update: the amount changes before the payment (requires_payment_method, requires_confirmation, requires_action) and is refused after it; metadata keys unset by an empty value",
    async () => {
      const stripe = client();
      const base = { amount: 2000, currency: "usd", allowed_payment_method_types: ["card"] };
      const refusedAt = async (id: string, status: string) => {
        const err = await stripe.paymentIntents.update(id, { amount: 999 }).catch((e: Stripe.errors.StripeError) => e);
        expect(err).toMatchObject({
          type: "StripeInvalidRequestError",
          statusCode: 400,
          code: "payment_intent_unexpected_state",
        });
        expect((err as Stripe.errors.StripeError).message).toContain(`because it has a status of ${status}`);
      };

      const open = await stripe.paymentIntents.create({ ...base, metadata: { discountCode: "SPRING", keep: "1" } });
      const moved = await stripe.paymentIntents.update(open.id, { amount: 2500, metadata: { discountCode: "" } });
      expect(moved).toMatchObject({ status: "requires_payment_method", amount: 2500, metadata: { keep: "1" } });
      expect(moved.metadata.discountCode).toBeUndefined();
      // The same update again is the same state (a set, not an increment).
      expect((await stripe.paymentIntents.update(open.id, { amount: 2500 })).amount).toBe(2500);

      const named = await stripe.paymentIntents.create({ ...base, payment_method: "pm_card_visa" });
      expect((await stripe.paymentIntents.update(named.id, { amount: 3000 })).amount).toBe(3000);
      const paid = await stripe.paymentIntents.confirm(named.id);
      expect(paid).toMatchObject({ status: "succeeded", amount: 3000, amount_received: 3000 });
      await refusedAt(named.id, "succeeded");
      expect((await stripe.paymentIntents.retrieve(named.id)).amount).toBe(3000);
      // Other fields may still change once paid.
      expect((await stripe.paymentIntents.update(named.id, { metadata: { note: "x" } })).metadata.note).toBe("x");

      const asks = await stripe.paymentIntents.create({
        ...base,
        payment_method: "pm_card_authenticationRequired",
        confirm: true,
        return_url: "https://example.com/return",
      });
      expect(asks.status).toBe("requires_action");
      expect((await stripe.paymentIntents.update(asks.id, { amount: 2100 })).amount).toBe(2100);
      await stripe.paymentIntents.cancel(asks.id);
      await refusedAt(asks.id, "canceled");

      const held = await stripe.paymentIntents.create({
        ...base,
        capture_method: "manual",
        payment_method: "pm_card_visa",
        confirm: true,
      });
      await refusedAt(held.id, "requires_capture");
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
