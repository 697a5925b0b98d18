// Review of tax at checkout (docs/tax.md, "A checkout's calculation"; docs/checkout-and-codes.md): when
// Stripe keeps a checkout's old amount, its rows go back to what Stripe charges, the add-on's gross
// included (with prices excluding tax, a change of VAT number changes the add-on's gross too).
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { parseVatId } from "../../../shared/tax";
import { purchaseDepsOf } from "../../deps";
import type { Bindings } from "../../lib/env";
import { changeCheckoutTerms } from "../../services/purchases/checkout-terms";
import { creatorWithItem } from "../payments/payment-fixtures";
import { call, env } from "../support/helpers";
import { intentOf, openAt, purchaseRow, taxRowOf } from "./tax-support";

const putJson = (path: string, body: unknown, cookie?: string) =>
  call(path, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

/** The deps with PaymentIntent updates failing before they reach Stripe. */
function updatesDown() {
  const real = purchaseDepsOf(env as unknown as Bindings);
  const intents = Object.create(real.stripe.paymentIntents) as Stripe["paymentIntents"];
  Object.defineProperty(intents, "update", {
    value: async () => {
      throw new Stripe.errors.StripeConnectionError({ message: "Stripe is unreachable" });
    },
  });
  const stripe = Object.create(real.stripe) as Stripe;
  Object.defineProperty(stripe, "paymentIntents", { value: intents });
  return { ...real, stripe };
}

describe("a change of terms Stripe did not take", () => {
  it("exclusive prices, a bump, a VAT number added: 502, and both rows are back at what the PaymentIntent charges", async () => {
    const { item, cookie } = await creatorWithItem("review-restore@example.com");
    const { item: addOn } = await creatorWithItem("review-restore@example.com", { title: "Stems" });
    expect((await putJson(`/api/content/${item.id}/bump`, { contentId: addOn.id, price: "5" }, cookie)).status).toBe(
      200,
    );
    expect((await putJson("/api/settings/tax", { behavior: "exclusive" }, cookie)).status).toBe(200);
    const c = await openAt("FR", { contentId: item.id, bump: true });
    expect(c.amount).toBe(18);
    const main = (await purchaseRow(c.paymentIntent))!;
    const bumpRow = () =>
      env.DB.prepare("select id, amount_cents, tax_cents from purchases where bump_of = ?")
        .bind(main.id)
        .first<{ id: string; amount_cents: number; tax_cents: number }>();
    const before = (await bumpRow())!;
    expect(before).toMatchObject({ amount_cents: 600, tax_cents: 100 });

    const err = await changeCheckoutTerms(updatesDown(), {
      paymentIntentId: c.paymentIntent,
      buyerKey: c.cookie.replace("aw_buyer=", ""),
      discountCode: null,
      bump: true,
      vatId: parseVatId("DE123456789"),
    }).catch((e) => e);
    expect(err).toMatchObject({ status: 502 });
    expect((await intentOf(c.paymentIntent)).amount).toBe(1800);
    expect(await purchaseRow(c.paymentIntent)).toMatchObject({ amount_cents: 1200, tax_cents: 200 });
    expect(await bumpRow()).toMatchObject({ amount_cents: 600, tax_cents: 100 });
    expect(await taxRowOf(before.id)).toMatchObject({ tax_cents: 100, net_cents: 500, vat_id: null });

    // The bump unticked, Stripe unreachable: the add-on comes back with its tax and its tax row.
    const unticked = await changeCheckoutTerms(updatesDown(), {
      paymentIntentId: c.paymentIntent,
      buyerKey: c.cookie.replace("aw_buyer=", ""),
      discountCode: null,
      bump: false,
    }).catch((e) => e);
    expect(unticked).toMatchObject({ status: 502 });
    expect(await bumpRow()).toMatchObject({ id: before.id, amount_cents: 600, tax_cents: 100 });
    expect(await taxRowOf(before.id)).toMatchObject({ tax_cents: 100, net_cents: 500 });
  });
});
