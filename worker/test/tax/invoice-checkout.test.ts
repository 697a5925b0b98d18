// An invoice from a real checkout (docs/tax.md, "Invoices"): a Washington buyer with a discount code
// and the order bump (tax on top), and a German business with a VAT number (reverse charge), paid
// through the server-side confirm — the invoice's lines and totals are what the PaymentIntent
// charged, the purchases' tax and Stripe's tax transaction; the receipt says the same.
import { describe, expect, it, vi } from "vitest";
import type { Invoice } from "../../../shared/invoices";
import { REVERSE_CHARGE_TEXT } from "../../../shared/tax";
import { creatorWithItem } from "../payments/payment-fixtures";
import { call, deliver, eventFor, outbox, postJson, rows } from "../support/helpers";
import { billingToken, confirmWith, intentOf, openAt, purchaseRow } from "./tax-support";

/** Pays checkout `c` with a card billed to `address`, delivers the webhook, and reads the order's invoice as the paying browser. */
async function payAndRead(
  c: { paymentIntent: string; cookie: string },
  address: { country: string; postal_code?: string },
  geo: string,
) {
  const paid = await confirmWith(c.paymentIntent, await billingToken(address), c.cookie, geo);
  expect(paid.status).toBe(200);
  expect((await deliver(await eventFor("payment_intent.succeeded", c.paymentIntent))).status).toBe(200);
  const main = (await purchaseRow(c.paymentIntent))!;
  const res = await call(`/api/purchases/${main.id}/invoice`, { cookie: c.cookie });
  expect(res.status).toBe(200);
  return { main, inv: await res.json<Invoice>() };
}

const cents = (d: number) => Math.round(d * 100);
const receiptOf = (purchaseId: string) =>
  vi.waitUntil(
    async () =>
      (await outbox()).find((m) => m.links.some((l) => l.includes(`/api/purchases/${purchaseId}/invoice.pdf`))),
    { timeout: 10_000, interval: 100 },
  );

describe("the invoice of a checkout as it was charged", () => {
  it("Washington, a 50% code and the bump: lines, sales tax on top and total as charged", async () => {
    const { item, cookie } = await creatorWithItem("rv-inv-wa-seller@example.com");
    const { item: addOn } = await creatorWithItem("rv-inv-wa-seller@example.com", { title: "Stems" });
    expect((await postJson("/api/discounts", { code: "RVHALF", kind: "percent", percentOff: 50 }, cookie)).status).toBe(
      201,
    );
    const bump = await call(`/api/content/${item.id}/bump`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contentId: addOn.id, price: "5" }),
      cookie,
    });
    expect(bump.status).toBe(200);
    const c = await openAt("US-WA-98101", { contentId: item.id, bump: true, discountCode: "rvhalf" });
    const { main, inv } = await payAndRead(c, { country: "US", postal_code: "98101" }, "US-WA-98101");
    const charged = (await intentOf(c.paymentIntent)).amount;
    const order = await rows<{ amount_cents: number; tax_cents: number }>(
      "select amount_cents, tax_cents from purchases where id = ?1 or bump_of = ?1",
      main.id,
    );
    expect(inv.lines).toHaveLength(2);
    expect(cents(inv.total)).toBe(charged);
    expect(cents(inv.tax)).toBe(order.reduce((a, p) => a + p.tax_cents, 0));
    expect(cents(inv.net) + cents(inv.tax)).toBe(cents(inv.total));
    for (const l of inv.lines) expect(cents(l.net) + cents(l.tax)).toBe(cents(l.total));
    expect(inv).toMatchObject({
      title: "Tax invoice",
      seller: { registration: "WA-000-000-000" },
      taxLabel: "Sales tax (Washington)",
      buyer: { country: "US", place: "Washington" },
    });
    // Tax on the discounted main item ($5 net) and the $5 add-on.
    expect(inv.lines.map((l) => l.net)).toEqual([5, 5]);
    const tx = await rows<{ amount_cents: number; tax_cents: number }>(
      "select amount_cents, tax_cents from tax_transactions where payment_intent_id = ? and type = 'transaction'",
      c.paymentIntent,
    );
    expect(tx).toEqual([{ amount_cents: charged, tax_cents: cents(inv.tax) }]);
    const receipt = await receiptOf(main.id);
    expect(receipt.text).toContain(
      `Net: $${inv.net.toFixed(2)}\n+ $${inv.tax.toFixed(2)} sales tax (Washington)\nTotal: $${inv.total.toFixed(2)}\nInvoice ${inv.number}`,
    );
  });

  it("a German business with a VAT number: reverse charge, no tax, the number on the invoice", async () => {
    const { item } = await creatorWithItem("rv-inv-de-seller@example.com");
    const c = await openAt("DE", { contentId: item.id, vatId: "DE123456789" });
    const { main, inv } = await payAndRead(c, { country: "DE" }, "DE");
    expect(inv).toMatchObject({
      title: "Tax invoice",
      seller: { registration: "EU372000041" },
      buyer: { vatId: "DE123456789", country: "DE", place: "Germany" },
      tax: 0,
      total: 10,
      net: 10,
      reverseCharge: REVERSE_CHARGE_TEXT,
    });
    expect((await receiptOf(main.id)).text).toContain(REVERSE_CHARGE_TEXT);
  });
});
