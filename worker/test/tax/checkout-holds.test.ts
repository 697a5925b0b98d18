// Review of tax at checkout (docs/tax.md, "A checkout's calculation"; docs/checkout-and-codes.md): a
// change of terms refused while its tax is calculated changes nothing, the code's hold included.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { purchaseDepsOf } from "../../deps";
import type { Bindings } from "../../lib/env";
import { changeCheckoutTerms } from "../../services/purchases/checkout-terms";
import { TAX_UNAVAILABLE } from "../../services/tax/calculate";
import { creatorWithItem } from "../payments/payment-fixtures";
import { env, postJson } from "../support/helpers";
import { openAt, purchaseRow } from "./tax-support";

/** The deps with Stripe Tax down. */
function taxDown() {
  const real = purchaseDepsOf(env as unknown as Bindings);
  const down = Object.create(real.stripe) as Stripe;
  Object.defineProperty(down, "tax", {
    value: {
      calculations: {
        create: async () => {
          throw new Stripe.errors.StripeConnectionError({ message: "Stripe Tax is down" });
        },
      },
    },
  });
  return { ...real, stripe: down };
}

const rowOf = (pi: string) =>
  env.DB.prepare("select amount_cents, discount_code_id from purchases where payment_intent_id = ?").bind(pi).first();

const holdOf = (purchaseId: string) =>
  env.DB.prepare("select code_id from discount_redemptions where purchase_id = ?")
    .bind(purchaseId)
    .first<{ code_id: string }>();

describe("a change of terms refused while its tax is calculated", () => {
  it("a code applied while Stripe Tax is down: 502, and the code's one use is not held by the checkout", async () => {
    const { item, cookie } = await creatorWithItem("review-hold@example.com");
    expect(
      (await postJson("/api/discounts", { code: "LASTONE", kind: "fixed", amountOff: "2", maxUses: 1 }, cookie)).status,
    ).toBe(201);
    const c = await openAt("FR", { contentId: item.id });
    const p = (await purchaseRow(c.paymentIntent))!;
    const err = await changeCheckoutTerms(taxDown(), {
      paymentIntentId: c.paymentIntent,
      buyerKey: c.cookie.replace("aw_buyer=", ""),
      discountCode: "LASTONE",
      bump: false,
    }).catch((e) => e);
    expect(err).toMatchObject({ status: 502, message: TAX_UNAVAILABLE });
    // Nothing changed: the rows, and the code's use (still free for anyone).
    expect(await rowOf(c.paymentIntent)).toMatchObject({ amount_cents: 1000, discount_code_id: null });
    expect(await holdOf(p.id)).toBeNull();
    const other = await openAt("FR", { contentId: item.id, discountCode: "LASTONE" });
    expect(other.amount).toBe(8);
  });

  it("a second code refused while Stripe Tax is down: the checkout keeps the hold of the code it has", async () => {
    const { item, cookie } = await creatorWithItem("review-hold-swap@example.com");
    for (const code of ["KEEPME", "SWAPME"])
      expect(
        (await postJson("/api/discounts", { code, kind: "fixed", amountOff: "1", maxUses: 1 }, cookie)).status,
      ).toBe(201);
    const c = await openAt("FR", { contentId: item.id, discountCode: "KEEPME" });
    const p = (await purchaseRow(c.paymentIntent))!;
    const keep = (await holdOf(p.id))!.code_id;
    const err = await changeCheckoutTerms(taxDown(), {
      paymentIntentId: c.paymentIntent,
      buyerKey: c.cookie.replace("aw_buyer=", ""),
      discountCode: "SWAPME",
      bump: false,
    }).catch((e) => e);
    expect(err).toMatchObject({ status: 502 });
    expect(await rowOf(c.paymentIntent)).toMatchObject({ amount_cents: 900, discount_code_id: keep });
    expect((await holdOf(p.id))?.code_id).toBe(keep);
    // SWAPME's one use is free; KEEPME's stays this checkout's.
    expect((await openAt("FR", { contentId: item.id, discountCode: "SWAPME" })).amount).toBe(9);
    expect((await startAtCode(item.id, "KEEPME")).status).toBe(409);
  });
});

const startAtCode = (contentId: string, discountCode: string) =>
  postJson("/api/create-payment-intent", { contentId, discountCode });
