// What an invoice link may do (docs/tax.md, "Invoices"): the link the success page, the receipt and
// the invoice answer hand out reads that order's invoice and nothing more. Forwarded to an
// accountant, it must not open the item; and reading the invoice with an order bump's access link
// must not hand back the main item's access token.
import { describe, expect, it, vi } from "vitest";
import type { Invoice } from "../../../shared/invoices";
import type { PurchaseVerification } from "../../../shared/payments";
import { call, outbox } from "../support/helpers";
import { creatorWithItem, taxedSale } from "./tax-fixtures";

/** The `access` parameter of a link. */
const tokenOf = (url: string) => new URL(url, "http://x").searchParams.get("access")!;
/** Whether `token` opens a purchase as an access link does (the success page's read). */
const opensItem = async (token: string) =>
  (await call(`/api/purchase/verify?access=${encodeURIComponent(token)}`)).status === 200;

async function bumpedOrder(creator: string) {
  const { cookie, itemId } = await creatorWithItem(creator);
  const addOn = await creatorWithItem(creator, "12");
  const put = await call(`/api/content/${itemId}/bump`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ contentId: addOn.itemId, price: "4" }),
    cookie,
  });
  expect(put.status).toBe(200);
  const sale = await taxedSale(itemId, { bump: true });
  const verified = await call(`/api/purchase/verify?payment_intent=${sale.paymentIntent}`, {
    cookie: sale.buyerCookie,
  });
  expect(verified.status).toBe(200);
  const v = await verified.json<PurchaseVerification>();
  return {
    ...sale,
    bumpId: sale.bumpId!,
    v,
    mainToken: tokenOf(v.accessUrl),
    bumpToken: tokenOf(v.addOns[0].accessUrl),
  };
}

describe("an invoice link reads the invoice, and only that", () => {
  it("the invoice read with the bump's access link hands out no access to the main item", async () => {
    const order = await bumpedOrder("rv-inv-bump-seller@example.com");
    expect(await opensItem(order.bumpToken)).toBe(true);
    const res = await call(`/api/purchases/${order.purchaseId}/invoice?access=${encodeURIComponent(order.bumpToken)}`);
    expect(res.status).toBe(200);
    const inv = await res.json<Invoice>();
    expect(inv.lines).toHaveLength(2);
    const pdfToken = tokenOf(inv.pdfUrl);
    expect(pdfToken).not.toBe(order.mainToken);
    expect(await opensItem(pdfToken)).toBe(false);
    // Its PDF link still downloads the invoice.
    const pdf = await call(inv.pdfUrl);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
  });

  it("the success page's and the receipt's invoice links download the PDF but do not open the item", async () => {
    const order = await bumpedOrder("rv-inv-mail-seller@example.com");
    const fromPage = order.v.invoice!.url;
    expect((await call(fromPage)).status).toBe(200);
    expect(await opensItem(tokenOf(fromPage))).toBe(false);
    // The order's receipt (every taxedSale buyer is fr-buyer@example.com): the one linking this order's invoice.
    const fromMail = await vi.waitUntil(
      async () =>
        (await outbox())
          .flatMap((m) => m.links)
          .find((l) => l.includes(`/api/purchases/${order.purchaseId}/invoice.pdf?access=`)),
      { timeout: 10_000, interval: 100 },
    );
    const url = new URL(fromMail);
    expect((await call(url.pathname + url.search)).status).toBe(200);
    expect(await opensItem(tokenOf(fromMail))).toBe(false);
    // It reads no other order's invoice.
    const other = await bumpedOrder("rv-inv-other-seller@example.com");
    expect(
      (await call(`/api/purchases/${other.purchaseId}/invoice?access=${encodeURIComponent(tokenOf(fromMail))}`)).status,
    ).toBe(404);
    // The link reads the order by either of its purchases' ids.
    expect(
      (await call(`/api/purchases/${order.bumpId}/invoice?access=${encodeURIComponent(tokenOf(fromMail))}`)).status,
    ).toBe(200);
  });
});
