// One-click upsells on a taxed order (docs/tax.md): the offer shows its tax at the first purchase's
// place, and the charge is its own PaymentIntent with its own calculation, on the first purchase's
// evidence (decidedBy first_purchase), the rows written as a checkout's are.
import { describe, expect, it } from "vitest";
import { accept, funnelSetup, offer } from "../funnels/funnel-helpers";
import { ledgerOf } from "../payments/payment-fixtures";
import { call, row } from "../support/helpers";
import { billingToken, confirmWith, intentOf, openAt, purchaseRow, taxRowOf } from "./tax-support";

type OfferAnswer = { offer: { stepId: string; price: number; tax: { amount: number; text: string | null } | null } };

describe("an upsell on a taxed order", () => {
  it("a French buyer's upsell: offered with its VAT, charged with a calculation of its own on the first purchase's evidence", async () => {
    const { mainId, upsell } = await funnelSetup("tax-upsell@example.com");
    const c = await openAt("FR", { contentId: mainId, buyerEmail: "tax-fan@example.com" });
    expect((await confirmWith(c.paymentIntent, await billingToken({ country: "FR" }), c.cookie)).status).toBe(200);
    expect((await call(`/api/payments/${c.paymentIntent}/complete`, { method: "POST", cookie: c.cookie })).status).toBe(
      200,
    );
    const root = (await purchaseRow(c.paymentIntent))!;
    expect(root).toMatchObject({ status: "paid", amount_cents: 1000, tax_cents: 167 });

    const shown = await (await offer(root.id, c.cookie)).json<OfferAnswer>();
    expect(shown.offer).toMatchObject({
      stepId: upsell.id,
      price: 15,
      tax: { amount: 2.5, text: "Includes $2.50 VAT (20%, France)" },
    });
    const res = await accept(root.id, upsell.id, c.cookie);
    expect(res.status).toBe(200);
    const done = await res.json<{ status: string; purchaseId: string }>();
    expect(done.status).toBe("paid");
    const child = (await taxRowOf(done.purchaseId))!;
    expect(child).toMatchObject({ country: "FR", tax_cents: 250, net_cents: 1250, inclusive: 1 });
    expect(child.calculation_id).not.toBe((await taxRowOf(root.id))!.calculation_id);
    expect(JSON.parse(child.evidence)).toMatchObject({
      edge: { country: "FR" },
      billing: { country: "FR" },
      decidedBy: "first_purchase",
    });
    const p = (await row<{ amount_cents: number; tax_cents: number; payment_intent_id: string; status: string }>(
      "select * from purchases where id = ?",
      done.purchaseId,
    ))!;
    expect(p).toMatchObject({ amount_cents: 1500, tax_cents: 250, status: "paid" });
    const intent = await intentOf(p.payment_intent_id);
    expect(intent).toMatchObject({ amount: 1500, status: "succeeded" });
    expect(intent.hooks?.inputs?.tax?.calculation).toBe(child.calculation_id);
    // Its own ledger rows: the tax on the tax account, the creator's share of the net.
    expect((await ledgerOf(done.purchaseId)).map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", 1000],
      ["platform", 250],
      ["tax", 250],
    ]);
  });

  it("a Washington buyer's upsell: sales tax on top, as shown on the offer", async () => {
    const { mainId, upsell } = await funnelSetup("tax-upsell-wa@example.com");
    const c = await openAt("US-WA-98101", { contentId: mainId, buyerEmail: "tax-fan3@example.com" });
    const token = await billingToken({ country: "US", postal_code: "98101" });
    expect((await confirmWith(c.paymentIntent, token, c.cookie)).status).toBe(200);
    await call(`/api/payments/${c.paymentIntent}/complete`, { method: "POST", cookie: c.cookie });
    const root = (await purchaseRow(c.paymentIntent))!;
    const shown = await (await offer(root.id, c.cookie)).json<OfferAnswer>();
    const shownTax = Math.round(shown.offer.tax!.amount * 100);
    expect(shownTax).toBeGreaterThanOrEqual(153);
    expect(shown.offer.tax!.text).toBe(`+ $${shown.offer.tax!.amount.toFixed(2)} sales tax (Washington)`);
    const done = await (await accept(root.id, upsell.id, c.cookie)).json<{ status: string; purchaseId: string }>();
    expect(done.status).toBe("paid");
    const p = (await row<{ amount_cents: number; tax_cents: number }>(
      "select * from purchases where id = ?",
      done.purchaseId,
    ))!;
    expect(p).toEqual({ ...p, tax_cents: shownTax, amount_cents: 1500 + shownTax });
    expect(await taxRowOf(done.purchaseId)).toMatchObject({ inclusive: 0, net_cents: 1500, region: "WA" });
  });

  it("an untaxed first purchase: the upsell is untaxed too and its offer has no tax line", async () => {
    const { mainId, upsell } = await funnelSetup("tax-upsell-none@example.com");
    const c = await openAt(null, { contentId: mainId, buyerEmail: "tax-fan2@example.com" });
    expect((await confirmWith(c.paymentIntent, await billingToken(null), c.cookie)).status).toBe(200);
    await call(`/api/payments/${c.paymentIntent}/complete`, { method: "POST", cookie: c.cookie });
    const root = (await purchaseRow(c.paymentIntent))!;
    const shown = await (await offer(root.id, c.cookie)).json<OfferAnswer>();
    expect(shown.offer.tax).toBeNull();
    const done = await (await accept(root.id, upsell.id, c.cookie)).json<{ status: string; purchaseId: string }>();
    expect(done.status).toBe("paid");
    expect(await taxRowOf(done.purchaseId)).toBeNull();
  });
});
