// Review of tax at checkout (docs/tax.md, "When Stripe Tax cannot answer"): Stripe keeps the result of
// the first request made with an Idempotency-Key, a 500 included, and answers it again to every
// request with that key for 24 hours. A calculation Stripe failed once must not fail a checkout's
// every later attempt with the same inputs.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { purchaseDepsOf } from "../../deps";
import type { Bindings } from "../../lib/env";
import { confirmCheckout } from "../../services/purchases/server-confirm";
import { TAX_UNAVAILABLE } from "../../services/tax/calculate";
import { creatorWithItem } from "../payments/payment-fixtures";
import { env } from "../support/helpers";
import { billingToken, intentOf, openAt, purchaseRow } from "./tax-support";

/** Stripe Tax as Stripe answers: while `down`, a 500, kept under the request's key and replayed to it. */
function replayingStripe() {
  const real = purchaseDepsOf(env as unknown as Bindings);
  const state = { down: true, failedKeys: new Set<string>(), calls: 0 };
  const fail = (replayed = false) => {
    throw new Stripe.errors.StripeAPIError({
      message: "An unknown error occurred",
      type: "api_error",
      statusCode: 500,
      headers: replayed ? { "idempotent-replayed": "true" } : {},
    });
  };
  const calculations = Object.create(real.stripe.tax.calculations) as Stripe["tax"]["calculations"];
  Object.defineProperty(calculations, "create", {
    value: async (params: Stripe.Tax.CalculationCreateParams, options?: Stripe.RequestOptions) => {
      state.calls++;
      const key = options?.idempotencyKey ?? "";
      if (state.failedKeys.has(key)) fail(true);
      if (state.down) {
        state.failedKeys.add(key);
        fail();
      }
      return real.stripe.tax.calculations.create(params, options);
    },
  });
  const stripe = Object.create(real.stripe) as Stripe;
  Object.defineProperty(stripe, "tax", { value: Object.assign(Object.create(real.stripe.tax), { calculations }) });
  return { deps: { ...real, stripe }, state };
}

describe("a calculation Stripe answered with a 500", () => {
  it("Pay again once Stripe Tax is back calculates afresh and charges, though the inputs are the same", async () => {
    const { item } = await creatorWithItem("review-replay@example.com");
    const c = await openAt(null, { contentId: item.id });
    const { deps, state } = replayingStripe();
    const confirm = async () =>
      confirmCheckout(deps, {
        paymentIntentId: c.paymentIntent,
        confirmationToken: await billingToken({ country: "FR" }),
        email: "review-replay@example.com",
        buyerKey: c.cookie.replace("aw_buyer=", ""),
        clientHash: null,
      }).catch((e) => e);
    expect(await confirm()).toMatchObject({ status: 502, message: TAX_UNAVAILABLE });
    expect(await intentOf(c.paymentIntent)).toMatchObject({ status: "requires_payment_method" });

    state.down = false;
    expect(await confirm()).toMatchObject({ status: "succeeded" });
    expect(await purchaseRow(c.paymentIntent)).toMatchObject({ amount_cents: 1000, tax_cents: 167 });
  });
});
