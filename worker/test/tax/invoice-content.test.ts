// What an invoice says about ApeWall's registration (docs/tax.md, "Invoices", "Registrations"):
// every place the demo registrations cover where tax is charged names a registration, and a place
// where Stripe says ApeWall collects nothing (`not_collecting`) names none, whatever the
// configuration lists. The checkout and payment steps are stood in for by writing their rows.
import { describe, expect, it } from "vitest";
import type { Invoice } from "../../../shared/invoices";
import { call, checkout, deliver, env, eventFor, row } from "../support/helpers";
import { creatorWithItem } from "../payments/payment-fixtures";

type Place = { country: string; region?: string; type: string | null; rate: string | null; reason: string };

/** A $10 sale taxed in `place` (tax on top where `tax` > 0), its invoice issued and paid; the invoice as the paying browser reads it. */
async function invoiceFor(tag: string, place: Place, tax: number): Promise<Invoice> {
  const { item } = await creatorWithItem(`rv-inv-${tag}-seller@example.com`);
  const { paymentIntent, buyerCookie } = await checkout(item.id, { email: `rv-inv-${tag}@example.com` });
  const id = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!.id;
  await env.DB.batch([
    env.DB.prepare("update purchases set tax_cents = ? where id = ?").bind(tax, id),
    env.DB.prepare(
      `insert into purchase_taxes (purchase_id, calculation_id, country, region, tax_type, rate_percent, taxability_reason,
         inclusive, net_cents, tax_cents, evidence) values (?, 'taxcalc_test', ?, ?, ?, ?, ?, 0, ?, ?, '{}')`,
    ).bind(id, place.country, place.region ?? null, place.type, place.rate, place.reason, 1000 - tax, tax),
    env.DB.prepare("insert or ignore into tax_invoices (purchase_id, issued_at) values (?, ?)").bind(id, Date.now()),
  ]);
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const res = await call(`/api/purchases/${id}/invoice`, { cookie: buyerCookie });
  expect(res.status).toBe(200);
  return res.json<Invoice>();
}

describe("ApeWall's registration on the invoice", () => {
  it("each US state ApeWall is registered in (WA, TX, NY, PA) names its registration on a taxed sale", async () => {
    for (const [state, rate] of [
      ["WA", "10.25"],
      ["TX", "8.25"],
      ["NY", "8.875"],
      ["PA", "6.0"],
    ]) {
      const inv = await invoiceFor(
        `us-${state.toLowerCase()}`,
        {
          country: "US",
          region: state,
          type: "sales_tax",
          rate,
          reason: "standard_rated",
        },
        80,
      );
      expect(inv.title).toBe("Tax invoice");
      expect(inv.seller.registration, state).not.toBeNull();
    }
  });

  it("a place where Stripe says ApeWall collects nothing (Switzerland) names no registration", async () => {
    const inv = await invoiceFor("ch", { country: "CH", type: null, rate: null, reason: "not_collecting" }, 0);
    expect(inv).toMatchObject({ title: "Invoice", taxLabel: null, buyer: { place: "Switzerland" } });
    expect(inv.seller.registration).toBeNull();
  });
});
