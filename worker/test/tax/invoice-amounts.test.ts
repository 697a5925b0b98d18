// An invoice's figures agree with the ledger (docs/tax.md, "Invoices", "Ledger and reversals"): a
// taxed order with its bump, paid through checkout, then partly and then fully refunded — net, tax,
// total and refunded to the cent, the lines summing to the totals, the receipt's figures the same.
import { describe, expect, it, vi } from "vitest";
import type { Invoice } from "../../../shared/invoices";
import { call, deliver, eventFor, outbox, rows, standin } from "../support/helpers";
import { creatorWithItem, taxedSale } from "./tax-fixtures";

const sumOf = async (ids: string[], where: string) =>
  (
    await rows<{ amount_cents: number }>(
      `select amount_cents from ledger_entries where purchase_id in (${ids.map(() => "?").join(",")}) and ${where}`,
      ...ids,
    )
  ).reduce((a, r) => a + r.amount_cents, 0);
const cents = (d: number) => Math.round(d * 100);

describe("an invoice's figures and the ledger", () => {
  it("a bump order, partly then fully refunded, reads as the ledger books it", async () => {
    const { cookie, itemId } = await creatorWithItem("rv-inv-amt-seller@example.com", "9.99");
    const addOn = await creatorWithItem("rv-inv-amt-seller@example.com", "12");
    const put = await call(`/api/content/${itemId}/bump`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contentId: addOn.itemId, price: "3.33" }),
      cookie,
    });
    expect(put.status).toBe(200);
    const sale = await taxedSale(itemId, { bump: true });
    const ids = [sale.purchaseId, sale.bumpId!];
    const read = async () =>
      (await call(`/api/purchases/${sale.bumpId}/invoice`, { cookie: sale.buyerCookie })).json<Invoice>();

    const inv = await read();
    expect(cents(inv.total)).toBe(999 + 333);
    expect(cents(inv.tax)).toBe(sale.taxCents);
    expect(cents(inv.tax)).toBe(await sumOf(ids, "account = 'tax' and kind = 'tax'"));
    expect(cents(inv.net)).toBe(
      await sumOf(ids, "account in ('creator', 'platform') and kind in ('sale', 'platform_fee')"),
    );
    expect(inv.lines.reduce((a, l) => a + cents(l.net), 0)).toBe(cents(inv.net));
    expect(inv.lines.reduce((a, l) => a + cents(l.tax), 0)).toBe(cents(inv.tax));
    for (const l of inv.lines) expect(cents(l.net) + cents(l.tax)).toBe(cents(l.total));
    const receipt = await vi.waitUntil(
      async () =>
        (await outbox()).find((m) => m.links.some((l) => l.includes(`/api/purchases/${sale.purchaseId}/invoice.pdf`))),
      { timeout: 10_000, interval: 100 },
    );
    expect(receipt.text).toContain(`Net: $${inv.net.toFixed(2)}\nIncludes $${inv.tax.toFixed(2)} VAT (20%, France)`);
    expect(receipt.text).toContain(`Total: $${inv.total.toFixed(2)}\nInvoice ${inv.number}`);

    const refund = async (amount: number) => {
      expect(
        (await standin("POST", "/v1/refunds", { payment_intent: sale.paymentIntent, amount: String(amount) })).status,
      ).toBe(200);
      expect((await deliver(await eventFor("charge.refunded", sale.paymentIntent))).status).toBe(200);
    };
    await refund(500);
    const partly = await read();
    expect(partly).toMatchObject({ state: "partly_refunded", refunded: 5, total: inv.total, number: inv.number });
    expect(cents(partly.refunded)).toBe(-(await sumOf(ids, "kind = 'refund'")));
    await refund(999 + 333 - 500);
    const whole = await read();
    expect(whole).toMatchObject({ state: "refunded", refunded: inv.total, tax: inv.tax, net: inv.net });
    expect(await sumOf(ids, "account = 'tax'")).toBe(0);
  });
});
