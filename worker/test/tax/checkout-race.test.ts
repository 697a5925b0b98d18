// Review of tax at checkout (docs/tax.md, "A checkout's calculation"): the calculation a PaymentIntent
// carries when it is charged is the one its amount came from, even when a change of terms lands
// while a confirm is on its way to Stripe.
import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { purchaseDepsOf } from "../../deps";
import type { Bindings } from "../../lib/env";
import { confirmCheckout } from "../../services/purchases/server-confirm";
import { creatorWithItem } from "../payments/payment-fixtures";
import { env, postJson, standin } from "../support/helpers";
import { billingToken, intentOf, openAt, purchaseRow, taxRowOf } from "./tax-support";

const amountTotalOf = async (calculation: string) =>
  (await standin<{ amount_total: number }>("GET", `/v1/tax/calculations/${calculation}`)).body.amount_total;

/** The deps a confirm uses, with `beforeConfirm` run just before the PaymentIntent is confirmed at Stripe. */
function depsWithConfirmHook(beforeConfirm: () => Promise<void>) {
  const real = purchaseDepsOf(env as unknown as Bindings);
  const intents = Object.create(real.stripe.paymentIntents) as Stripe["paymentIntents"];
  const confirm = real.stripe.paymentIntents.confirm.bind(real.stripe.paymentIntents);
  Object.defineProperty(intents, "confirm", {
    value: async (...args: Parameters<typeof confirm>) => {
      await beforeConfirm();
      return confirm(...args);
    },
  });
  const stripe = Object.create(real.stripe) as Stripe;
  Object.defineProperty(stripe, "paymentIntents", { value: intents });
  return { ...real, stripe };
}

describe("a change of terms racing a confirm", () => {
  for (const billing of [null, { country: "US", postal_code: "98101" }] as const) {
    it(`a code applied while the confirm is on its way (billing ${billing ? "in Seattle" : "not sent"}): the calculation charged is the amount's`, async () => {
      const { item, cookie } = await creatorWithItem(`review-race-${billing ? "b" : "n"}@example.com`);
      expect(
        (await postJson("/api/discounts", { code: "RACETWO", kind: "fixed", amountOff: "2" }, cookie)).status,
      ).toBe(201);
      const c = await openAt("US-WA-98101", { contentId: item.id });
      expect(c.amount).toBe(11.03);
      const deps = depsWithConfirmHook(async () => {
        const res = await postJson(
          "/api/checkout/terms",
          { paymentIntent: c.paymentIntent, bump: false, discountCode: "RACETWO" },
          c.cookie,
        );
        expect(res.status).toBe(200);
      });
      const answer = await confirmCheckout(deps, {
        paymentIntentId: c.paymentIntent,
        confirmationToken: await billingToken(billing),
        email: "review-race@example.com",
        buyerKey: c.cookie.replace("aw_buyer=", ""),
        clientHash: null,
      });
      expect(answer).toMatchObject({ status: "succeeded" });
      const intent = await intentOf(c.paymentIntent);
      // Charged the discounted total: Stripe's tax transaction must be the calculation of that total.
      expect(intent.amount).toBe(882);
      const calculation = intent.hooks?.inputs?.tax?.calculation;
      expect(calculation).toBeTruthy();
      expect(await amountTotalOf(calculation!)).toBe(intent.amount);
      const p = (await purchaseRow(c.paymentIntent))!;
      expect(p).toMatchObject({ amount_cents: 882, tax_cents: 82 });
      expect((await taxRowOf(p.id))!.calculation_id).toBe(calculation);
    });
  }
});
