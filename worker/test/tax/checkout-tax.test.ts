// Tax on every checkout (docs/tax.md): a Stripe Tax calculation from the edge's evidence at start,
// the PaymentIntent for its total carrying it, each purchase's gross and tax and its purchase_taxes
// row; a VAT number's reverse charge; places not registered; the billing address deciding at confirm.
import { describe, expect, it } from "vitest";
import { REVERSE_CHARGE_TEXT, type TaxEvidence, VAT_ID_INVALID } from "../../../shared/tax";
import { edgeEvidence } from "../../services/tax/evidence";
import { creatorWithItem, ledgerOf } from "../payments/payment-fixtures";
import { call, postJson, rows } from "../support/helpers";
import { billingToken, confirmWith, intentOf, openAt, purchaseRow, startAt, taxRowOf } from "./tax-support";

describe("the first estimate, from the edge", () => {
  it("a French consumer: the $10 price includes $1.67 VAT; the PaymentIntent is $10 and carries the calculation", async () => {
    const { item } = await creatorWithItem("tax-fr@example.com");
    const c = await openAt("FR", { contentId: item.id });
    expect(c.amount).toBe(10);
    expect(c.tax).toEqual({
      amount: 1.67,
      net: 8.33,
      total: 10,
      inclusive: true,
      type: "vat",
      rate: "20",
      country: "FR",
      region: null,
      reverseCharge: false,
      reason: "standard_rated",
      text: "Includes $1.67 VAT (20%, France)",
    });
    const intent = await intentOf(c.paymentIntent);
    expect(intent.amount).toBe(1000);
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p).toMatchObject({ amount_cents: 1000, tax_cents: 167 });
    const t = (await taxRowOf(p.id))!;
    expect(intent.hooks?.inputs?.tax?.calculation).toBe(t.calculation_id);
    expect(t).toMatchObject({ country: "FR", tax_type: "vat", inclusive: 1, net_cents: 833, tax_cents: 167 });
    expect(JSON.parse(t.evidence)).toEqual({
      edge: { country: "FR", region: null, postalCode: null },
      billing: null,
      cardCountry: null,
      decidedBy: "edge",
    } satisfies TaxEvidence);

    // Paid with a French card: the billing address agrees, the calculation stands, the buyer is charged $10.
    const paid = await confirmWith(c.paymentIntent, await billingToken({ country: "FR" }), c.cookie, "FR");
    expect(paid.status).toBe(200);
    expect((await paid.json<{ status: string }>()).status).toBe("succeeded");
    const after = await intentOf(c.paymentIntent);
    expect(after).toMatchObject({ amount: 1000, status: "succeeded" });
    expect(after.hooks?.inputs?.tax?.calculation).toBe(t.calculation_id);
    expect(JSON.parse((await taxRowOf(p.id))!.evidence)).toMatchObject({
      billing: { country: "FR" },
      decidedBy: "billing",
    });
    // Fulfilled: the tax is booked to the tax account, the fee on the net, and the order has its invoice.
    expect((await call(`/api/payments/${c.paymentIntent}/complete`, { method: "POST", cookie: c.cookie })).status).toBe(
      200,
    );
    expect((await ledgerOf(p.id)).map((l) => [l.account, l.kind, l.amount_cents])).toEqual([
      ["creator", "sale", 666],
      ["platform", "platform_fee", 167],
      ["tax", "tax", 167],
    ]);
    expect(await rows("select number from tax_invoices where purchase_id = ?", p.id)).toHaveLength(1);
  });

  it("a buyer in Washington: sales tax is added on top of the price (the default for US buyers)", async () => {
    const { item } = await creatorWithItem("tax-wa@example.com");
    const c = await openAt("US-WA-98101", { contentId: item.id });
    expect(c.tax).toMatchObject({ inclusive: false, type: "sales_tax", country: "US", region: "WA" });
    expect(c.tax.amount).toBeGreaterThanOrEqual(1.02);
    expect(c.tax.amount).toBeLessThanOrEqual(1.03);
    expect(c.amount).toBe(Number((10 + c.tax.amount).toFixed(2)));
    expect(c.tax.text).toBe(`+ $${c.tax.amount.toFixed(2)} sales tax (Washington)`);
    const cents = Math.round(c.amount * 100);
    expect((await intentOf(c.paymentIntent)).amount).toBe(cents);
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p).toMatchObject({ amount_cents: cents, tax_cents: cents - 1000 });
    expect(await taxRowOf(p.id)).toMatchObject({ inclusive: 0, net_cents: 1000, region: "WA" });
  });

  it("a German business with a VAT number: reverse charge, no tax; a VAT number of the wrong format is refused", async () => {
    const { item } = await creatorWithItem("tax-de@example.com");
    const bad = await startAt("DE", { contentId: item.id, vatId: "DE12" });
    expect(bad.status).toBe(400);
    expect((await bad.json<{ message: string }>()).message).toContain(VAT_ID_INVALID);
    const c = await openAt("DE", { contentId: item.id, vatId: "de 123 456 789" });
    expect(c.amount).toBe(10);
    expect(c.tax).toMatchObject({
      amount: 0,
      reverseCharge: true,
      reason: "reverse_charge",
      text: REVERSE_CHARGE_TEXT,
    });
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p).toMatchObject({ amount_cents: 1000, tax_cents: 0 });
    expect(await taxRowOf(p.id)).toMatchObject({ vat_id: "DE123456789", taxability_reason: "reverse_charge" });
  });

  it("places where ApeWall is not registered (Switzerland, Ohio): no tax, and the calculation says why", async () => {
    const { item } = await creatorWithItem("tax-none@example.com");
    for (const geo of ["CH", "US-OH-43004"]) {
      const c = await openAt(geo, { contentId: item.id });
      expect(c.amount).toBe(10);
      expect(c.tax).toMatchObject({ amount: 0, reason: "not_collecting", text: null, reverseCharge: false });
      const p = (await purchaseRow(c.paymentIntent))!;
      expect(p.tax_cents).toBe(0);
      expect((await taxRowOf(p.id))?.taxability_reason).toBe("not_collecting");
    }
  });

  it("a buyer the edge cannot place (no country, or the US without a postal code): no estimate, no calculation", async () => {
    const { item } = await creatorWithItem("tax-unplaced@example.com");
    for (const geo of [null, "US-WA"]) {
      const c = await openAt(geo, { contentId: item.id });
      expect(c.amount).toBe(10);
      expect(c.tax).toMatchObject({ amount: 0, text: null, reason: null });
      expect((await intentOf(c.paymentIntent)).hooks?.inputs?.tax?.calculation ?? null).toBeNull();
      expect(await taxRowOf((await purchaseRow(c.paymentIntent))!.id)).toBeNull();
    }
  });

  it("request.cf places the buyer in production; in development only the header does (a local run's request.cf is made up)", () => {
    const cf = { country: "US", regionCode: "WA", postalCode: "98101" };
    expect(edgeEvidence(cf, undefined, false)).toEqual({ country: "US", region: "WA", postalCode: "98101" });
    expect(edgeEvidence(cf, "FR", false)).toEqual({ country: "US", region: "WA", postalCode: "98101" });
    expect(edgeEvidence({ country: "T1" }, undefined, false)).toEqual({
      country: null,
      region: null,
      postalCode: null,
    });
    expect(edgeEvidence(cf, undefined, true)).toEqual({ country: null, region: null, postalCode: null });
    expect(edgeEvidence(cf, "us-wa-98101", true)).toEqual({ country: "US", region: "WA", postalCode: "98101" });
    expect(edgeEvidence(undefined, "nonsense!", true)).toEqual({ country: null, region: null, postalCode: null });
  });
});

describe("discount codes and the order bump", () => {
  it("a discount code on a taxed order: tax on the discounted amount", async () => {
    const { item, cookie } = await creatorWithItem("tax-code@example.com");
    expect(
      (await postJson("/api/discounts", { code: "HALFTAX", kind: "percent", percentOff: 50 }, cookie)).status,
    ).toBe(201);
    const c = await openAt("FR", { contentId: item.id, discountCode: "halftax" });
    expect(c.amount).toBe(5);
    expect(c.tax).toMatchObject({ amount: 0.83, net: 4.17, total: 5 });
    // Removed at the terms call: tax on the full price again, the same PaymentIntent.
    const res = await postJson("/api/checkout/terms", { paymentIntent: c.paymentIntent, bump: false }, c.cookie);
    expect(res.status).toBe(200);
    const terms = await res.json<{ amount: number; tax: { amount: number } }>();
    expect(terms).toMatchObject({ amount: 10, tax: { amount: 1.67 } });
    expect((await intentOf(c.paymentIntent)).amount).toBe(1000);
    expect((await purchaseRow(c.paymentIntent))!.tax_cents).toBe(167);
  });

  it("a bump on a taxed order: two lines, one calculation, both rows taxed", async () => {
    const { item, cookie } = await creatorWithItem("tax-bump@example.com");
    const { item: addOn } = await creatorWithItem("tax-bump@example.com", { title: "Stems" });
    const bump = await call(`/api/content/${item.id}/bump`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contentId: addOn.id, price: "5" }),
      cookie,
    });
    expect(bump.status).toBe(200);
    const c = await openAt("US-WA-98101", { contentId: item.id, bump: true });
    const main = (await purchaseRow(c.paymentIntent))!;
    const added = (
      await rows<{ id: string; amount_cents: number; tax_cents: number }>(
        "select id, amount_cents, tax_cents from purchases where bump_of = ?",
        main.id,
      )
    )[0];
    expect(main.tax_cents).toBeGreaterThan(100);
    expect(added.tax_cents).toBeGreaterThan(50);
    expect(added.amount_cents).toBe(500 + added.tax_cents);
    const [a, b] = [await taxRowOf(main.id), await taxRowOf(added.id)];
    expect(a!.calculation_id).toBe(b!.calculation_id);
    expect(c.amount * 100).toBeCloseTo(main.amount_cents + added.amount_cents, 5);
    // The add-on is shown at its price; its tax is in the order's one tax line.
    expect((c as unknown as { bump: { amount: number } }).bump.amount).toBe(5);
    expect(c.tax.amount * 100).toBeCloseTo(main.tax_cents + added.tax_cents, 5);
    expect((await intentOf(c.paymentIntent)).hooks?.inputs?.tax?.calculation).toBe(a!.calculation_id);
  });
});
