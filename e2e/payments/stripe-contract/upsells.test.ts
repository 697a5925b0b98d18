// The Stripe contract for the one-click upsell: product and price, saved cards, off-session charges,
// authentication required, a saved card that declines.
// Scenarios `describe.each(targets)` run against the local stand-in and, when STRIPE_TEST_SECRET_KEY is
// set, against real Stripe test mode (support.ts); the others play what only the stand-in can.
import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { targets } from "./support";

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
