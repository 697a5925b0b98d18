// Review of tax at checkout (docs/tax.md, "Business buyers"): a VAT number given with a checkout the
// edge could not place is kept until the card's billing address places it.
import { describe, expect, it } from "vitest";
import { creatorWithItem } from "../payments/payment-fixtures";
import { postJson } from "../support/helpers";
import { billingToken, confirmWith, openAt, purchaseRow, taxRowOf } from "./tax-support";

describe("a business buyer the edge cannot place", () => {
  it("the VAT number given at start decides the reverse charge at confirm", async () => {
    const { item } = await creatorWithItem("review-vat-unplaced@example.com");
    const c = await openAt(null, { contentId: item.id, vatId: "DE123456789" });
    expect(c.tax).toMatchObject({ amount: 0, text: null });
    const paid = await confirmWith(c.paymentIntent, await billingToken({ country: "DE" }), c.cookie);
    expect(paid.status).toBe(200);
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p).toMatchObject({ amount_cents: 1000, tax_cents: 0 });
    expect(await taxRowOf(p.id)).toMatchObject({ vat_id: "DE123456789", taxability_reason: "reverse_charge" });
  });

  it("a VAT number given at a change of terms is kept through later changes until confirm; blank removes it", async () => {
    const { item } = await creatorWithItem("review-vat-terms@example.com");
    const c = await openAt(null, { contentId: item.id });
    const terms = (body: Record<string, unknown>) =>
      postJson("/api/checkout/terms", { paymentIntent: c.paymentIntent, bump: false, ...body }, c.cookie);
    expect((await terms({ vatId: "de 123 456 789" })).status).toBe(200);
    expect((await terms({})).status).toBe(200);
    const paid = await confirmWith(c.paymentIntent, await billingToken({ country: "DE" }), c.cookie);
    expect(paid.status).toBe(200);
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p).toMatchObject({ amount_cents: 1000, tax_cents: 0 });
    expect(await taxRowOf(p.id)).toMatchObject({ vat_id: "DE123456789", taxability_reason: "reverse_charge" });

    const d = await openAt(null, { contentId: item.id, vatId: "DE123456789" });
    expect(
      (await postJson("/api/checkout/terms", { paymentIntent: d.paymentIntent, bump: false, vatId: "" }, d.cookie))
        .status,
    ).toBe(200);
    expect((await confirmWith(d.paymentIntent, await billingToken({ country: "DE" }), d.cookie)).status).toBe(200);
    expect(await purchaseRow(d.paymentIntent)).toMatchObject({ amount_cents: 1000, tax_cents: 160 });
  });
});
