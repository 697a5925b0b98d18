// Changing a taxed checkout's terms (docs/tax.md): a VAT number given at the terms call turns on the
// reverse charge, a bad one is refused and changes nothing, and fulfilment's repair writes back each
// part's tax as the PaymentIntent charged it.
import { describe, expect, it } from "vitest";
import { REVERSE_CHARGE_TEXT, VAT_ID_INVALID } from "../../../shared/tax";
import { creatorWithItem } from "../payments/payment-fixtures";
import { confirmAsStripeJs, deliver, env, eventFor, postJson } from "../support/helpers";
import { intentOf, openAt, purchaseRow, taxRowOf } from "./tax-support";

describe("a taxed checkout's terms", () => {
  it("a VAT number at the terms call: reverse charge on the same PaymentIntent; blank removes it; a bad one changes nothing", async () => {
    const { item } = await creatorWithItem("tax-terms-vat@example.com", { price: "12" });
    const c = await openAt("NL", { contentId: item.id });
    expect(c.tax).toMatchObject({ rate: "21", inclusive: true, amount: 2.08 });
    const bad = await postJson(
      "/api/checkout/terms",
      { paymentIntent: c.paymentIntent, bump: false, vatId: "NL123" },
      c.cookie,
    );
    expect(bad.status).toBe(400);
    expect((await bad.json<{ message: string }>()).message).toContain(VAT_ID_INVALID);
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p.tax_cents).toBe(208);

    const res = await postJson(
      "/api/checkout/terms",
      { paymentIntent: c.paymentIntent, bump: false, vatId: "NL123456789B01" },
      c.cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      amount: 12,
      tax: { amount: 0, reverseCharge: true, text: REVERSE_CHARGE_TEXT },
    });
    const row = (await taxRowOf(p.id))!;
    expect(row).toMatchObject({ vat_id: "NL123456789B01", tax_cents: 0, taxability_reason: "reverse_charge" });
    expect((await intentOf(c.paymentIntent)).hooks?.inputs?.tax?.calculation).toBe(row.calculation_id);

    // Absent keeps it; blank removes it.
    const kept = await postJson("/api/checkout/terms", { paymentIntent: c.paymentIntent, bump: false }, c.cookie);
    expect((await kept.json<{ tax: { reverseCharge: boolean } }>()).tax.reverseCharge).toBe(true);
    const removed = await postJson(
      "/api/checkout/terms",
      { paymentIntent: c.paymentIntent, bump: false, vatId: "" },
      c.cookie,
    );
    expect((await removed.json<{ tax: { amount: number } }>()).tax.amount).toBe(2.08);
    expect(await taxRowOf(p.id)).toMatchObject({ vat_id: null, tax_cents: 208 });
  });

  it("rows left apart from what the PaymentIntent charged: fulfilment writes back each part's cents and tax", async () => {
    const { item, cookie } = await creatorWithItem("tax-terms-repair@example.com");
    expect((await postJson("/api/discounts", { code: "TAXTWO", kind: "fixed", amountOff: "2" }, cookie)).status).toBe(
      201,
    );
    const c = await openAt("US-WA-98101", { contentId: item.id });
    const res = await postJson(
      "/api/checkout/terms",
      { paymentIntent: c.paymentIntent, bump: false, discountCode: "TAXTWO" },
      c.cookie,
    );
    const answer = await res.json<{ amount: number; tax: { amount: number } }>();
    const charged = Math.round(answer.amount * 100);
    const taxCents = Math.round(answer.tax.amount * 100);
    expect(charged).toBe(800 + taxCents);
    await confirmAsStripeJs(c.clientSecret);
    const p = (await purchaseRow(c.paymentIntent))!;
    // A change that gave up left the rows at the full price and its tax.
    await env.DB.batch([
      env.DB.prepare(
        "update purchases set amount_cents = 1103, tax_cents = 103, discount_code_id = null, discount_cents = 0 where id = ?",
      ).bind(p.id),
      env.DB.prepare("update purchase_taxes set tax_cents = 103, net_cents = 1000 where purchase_id = ?").bind(p.id),
      env.DB.prepare("delete from discount_redemptions where purchase_id = ?").bind(p.id),
    ]);
    expect((await deliver(await eventFor("payment_intent.succeeded", c.paymentIntent))).status).toBe(200);
    expect(await purchaseRow(c.paymentIntent)).toMatchObject({
      status: "paid",
      amount_cents: charged,
      tax_cents: taxCents,
    });
    expect(await taxRowOf(p.id)).toMatchObject({ tax_cents: taxCents, net_cents: 800 });
  });
});
