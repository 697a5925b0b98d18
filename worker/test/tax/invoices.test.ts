// The invoice of a paid order (docs/tax.md, "Invoices"): its number, seller registration, lines and
// tax; who may read it (the access link, the browser that paid, the buyer's library; nobody else);
// the PDF's structure; the receipt's tax part. The checkout and payment steps that write a purchase's
// tax and its invoice row are stood in for by inserting those rows, as those steps write them.
import { describe, expect, it } from "vitest";
import type { Invoice } from "../../../shared/invoices";
import { REVERSE_CHARGE_TEXT } from "../../../shared/tax";
import type { PurchaseVerification } from "../../../shared/payments";
import {
  call,
  checkout,
  contentForm,
  cookieValue,
  CARDS,
  confirmAsStripeJs,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  signIn,
  standin,
  waitForMail,
} from "../support/helpers";
import { creatorWithItem } from "../payments/payment-fixtures";
import { libraryCookie } from "../library/library-fixtures";
import { createDb } from "../../db/client";
import { render } from "../../services/mail/render";
import { withTaxInvoice } from "../../services/tax/invoice";

type Tax = {
  country: string;
  rate: string | null;
  type: string | null;
  reason: string;
  net: number;
  tax: number;
  vatId?: string;
  region?: string;
  exclusive?: boolean;
};
const FR: Omit<Tax, "net" | "tax"> = { country: "FR", rate: "20.0", type: "vat", reason: "standard_rated" };

/** What checkout writes for a taxed purchase: its tax_cents and its purchase_taxes row. */
async function taxed(purchaseId: string, t: Tax) {
  const evidence = JSON.stringify({
    edge: { country: t.country, region: null, postalCode: null },
    billing: { country: t.country, postalCode: null, state: null },
    cardCountry: t.country,
    decidedBy: "billing",
  });
  await env.DB.batch([
    env.DB.prepare("update purchases set tax_cents = ? where id = ?").bind(t.tax, purchaseId),
    env.DB.prepare(
      `insert into purchase_taxes (purchase_id, calculation_id, country, region, tax_type, rate_percent, taxability_reason,
         inclusive, net_cents, tax_cents, vat_id, vat_id_type, evidence) values (?, 'taxcalc_test', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).bind(
      purchaseId,
      t.country,
      t.region ?? null,
      t.type,
      t.rate,
      t.reason,
      t.exclusive ? 0 : 1,
      t.net,
      t.tax,
      t.vatId ?? null,
      t.vatId ? "eu_vat" : null,
      evidence,
    ),
  ]);
}

/** What the payment writes: the order's invoice row, numbered in sequence. */
async function issue(purchaseId: string): Promise<string> {
  await env.DB.prepare("insert or ignore into tax_invoices (purchase_id, issued_at) values (?, ?)")
    .bind(purchaseId, Date.UTC(2026, 10, 27, 12))
    .run();
  const r = await row<{ number: number }>("select number from tax_invoices where purchase_id = ?", purchaseId);
  return `AW-${String(r!.number).padStart(6, "0")}`;
}

/** A $10 item bought by `buyer`, taxed and invoiced before payment_intent.succeeded arrives (as checkout and payment write them). */
async function taxedSale(creator: string, buyer: string, t: Tax, fields: Record<string, string> = {}) {
  const { item, creatorId } = await creatorWithItem(creator, fields);
  await env.DB.prepare("update users set first_name = 'Maya', last_name = 'Lens' where id = ?").bind(creatorId).run();
  const { paymentIntent, buyerCookie } = await checkout(item.id, { email: buyer });
  const id = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!.id;
  await taxed(id, t);
  const number = await issue(id);
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const verified = await call(`/api/purchase/verify?payment_intent=${paymentIntent}`, { cookie: buyerCookie });
  expect(verified.status).toBe(200);
  const v = await verified.json<PurchaseVerification>();
  const access = new URL(v.accessUrl).searchParams.get("access")!;
  return { id, itemId: item.id, paymentIntent, buyerCookie, number, access, v };
}

const invoiceOf = (id: string, init: { cookie?: string; access?: string } = {}) =>
  call(`/api/purchases/${id}/invoice${init.access ? `?access=${encodeURIComponent(init.access)}` : ""}`, {
    cookie: init.cookie,
  });

/** The PDF's bytes as text (one byte a character), checked well-formed: header, xref offsets, stream lengths. */
async function wellFormedPdf(res: Response): Promise<string> {
  const text = Array.from(new Uint8Array(await res.arrayBuffer()), (b) => String.fromCharCode(b)).join("");
  expect(text.startsWith("%PDF-1.4\n")).toBe(true);
  expect(text.trimEnd().endsWith("%%EOF")).toBe(true);
  const xref = Number(/startxref\n(\d+)\n%%EOF/.exec(text)![1]);
  expect(text.slice(xref, xref + 5)).toBe("xref\n");
  const [, first, count] = /^xref\n(\d+) (\d+)\n/.exec(text.slice(xref))!;
  expect(first).toBe("0");
  const entries = text
    .slice(xref)
    .split("\n")
    .slice(2, 2 + Number(count));
  expect(entries[0]).toBe("0000000000 65535 f ");
  for (const [i, entry] of entries.entries()) {
    if (i === 0) continue;
    expect(entry).toMatch(/^\d{10} 00000 n $/);
    const offset = Number(entry.slice(0, 10));
    expect(text.slice(offset, offset + `${i} 0 obj`.length)).toBe(`${i} 0 obj`);
  }
  expect(text).toContain(`/Size ${count}`);
  for (const m of text.matchAll(/<< \/Length (\d+) >>\nstream\n/g)) {
    const start = m.index! + m[0].length;
    expect(text.slice(start + Number(m[1]), start + Number(m[1]) + 10)).toBe("\nendstream");
  }
  return text;
}

describe("a French consumer's invoice", () => {
  it("numbers it, names ApeWall's EU registration and the creator, and shows net, 20% VAT and total", async () => {
    const sale = await taxedSale("inv-fr-seller@example.com", "inv-fr-buyer@example.com", {
      ...FR,
      net: 833,
      tax: 167,
    });
    const res = await invoiceOf(sale.id, { cookie: sale.buyerCookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const inv = await res.json<Invoice>();
    expect(inv).toMatchObject({
      number: sale.number,
      title: "Tax invoice",
      issuedAt: "2026-11-27T12:00:00.000Z",
      currency: "usd",
      seller: { name: "ApeWall", registration: "EU372000041" },
      onBehalfOf: "Maya Lens",
      buyer: { email: "inv-fr-buyer@example.com", vatId: null, country: "FR", place: "France" },
      lines: [{ purchaseId: sale.id, title: "Beats", net: 8.33, rate: "20", tax: 1.67, total: 10 }],
      net: 8.33,
      tax: 1.67,
      total: 10,
      taxLabel: "VAT (20%, France)",
      reverseCharge: null,
      state: "paid",
      refunded: 0,
    });
    expect(sale.number).toMatch(/^AW-\d{6}$/);
    // The success page's link, and the receipt's tax part with its own link to the PDF.
    expect(sale.v.invoice).toEqual({
      number: sale.number,
      url: expect.stringContaining(`/api/purchases/${sale.id}/invoice.pdf?access=`),
    });
    const mail = await waitForMail("inv-fr-buyer@example.com");
    expect(mail.text).toContain("Net: $8.33\nIncludes $1.67 VAT (20%, France)\nTotal: $10.00");
    expect(mail.text).toContain(`Invoice ${sale.number}`);
    expect(mail.html).toContain("Download your invoice (PDF)");
    const pdfLink = new URL(mail.links.find((l) => l.includes("/invoice.pdf?access="))!);
    const pdf = await call(pdfLink.pathname + pdfLink.search);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
    expect(pdf.headers.get("content-disposition")).toBe(`attachment; filename="ApeWall-invoice-${sale.number}.pdf"`);
    expect(pdf.headers.get("cache-control")).toBe("private, no-store");
    const text = await wellFormedPdf(pdf);
    for (const s of [
      "(Tax invoice) Tj",
      `(Invoice ${sale.number}) Tj`,
      "(Tax registration: EU372000041) Tj",
      "(VAT \\(20%, France\\)) Tj",
      "($1.67) Tj",
      "($10.00) Tj",
      "Maya Lens",
    ])
      expect(text).toContain(s);
  });

  it("a partial refund shows on the invoice as partly refunded, with the amount", async () => {
    const sale = await taxedSale("inv-refund-seller@example.com", "inv-refund-buyer@example.com", {
      ...FR,
      net: 833,
      tax: 167,
    });
    expect((await standin("POST", "/v1/refunds", { payment_intent: sale.paymentIntent, amount: "300" })).status).toBe(
      200,
    );
    expect((await deliver(await eventFor("charge.refunded", sale.paymentIntent))).status).toBe(200);
    const inv = await (await invoiceOf(sale.id, { access: sale.access })).json<Invoice>();
    expect(inv).toMatchObject({ state: "partly_refunded", refunded: 3, total: 10 });
    const text = await wellFormedPdf(
      await call(`/api/purchases/${sale.id}/invoice.pdf?access=${encodeURIComponent(sale.access)}`),
    );
    expect(text).toContain("(Partly refunded: $3.00) Tj");
  });
});

describe("a German business's invoice", () => {
  it("carries its VAT number, no tax and the reverse charge's words", async () => {
    const sale = await taxedSale(
      "inv-de-seller@example.com",
      "inv-de-buyer@example.com",
      {
        country: "DE",
        rate: "0.0",
        type: "vat",
        reason: "reverse_charge",
        net: 1000,
        tax: 0,
        vatId: "DE123456789",
      },
      { title: "Café (Vol. 2) – €5 \\ draft" },
    );
    const inv = await (await invoiceOf(sale.id, { access: sale.access })).json<Invoice>();
    expect(inv).toMatchObject({
      title: "Tax invoice",
      seller: { registration: "EU372000041" },
      buyer: { vatId: "DE123456789", country: "DE", place: "Germany" },
      lines: [{ net: 10, rate: "0", tax: 0, total: 10 }],
      tax: 0,
      reverseCharge: REVERSE_CHARGE_TEXT,
    });
    const text = await wellFormedPdf(
      await call(`/api/purchases/${sale.id}/invoice.pdf?access=${encodeURIComponent(sale.access)}`),
    );
    expect(text).toContain(`(${REVERSE_CHARGE_TEXT}) Tj`);
    expect(text).toContain("(VAT number: DE123456789) Tj");
    // WinAnsi: é, – and € as their bytes in octal; ( ) and \ escaped.
    expect(text).toContain("(Caf\\351 \\(Vol. 2\\) \\226 \\2005 \\\\ draft) Tj");
    const mail = await waitForMail("inv-de-buyer@example.com");
    expect(mail.text).toContain(REVERSE_CHARGE_TEXT);
  });

  it("an untaxed order with an invoice is titled Invoice, with no registration for a place ApeWall is not registered in", async () => {
    const sale = await taxedSale("inv-br-seller@example.com", "inv-br-buyer@example.com", {
      country: "BR",
      rate: null,
      type: null,
      reason: "not_collecting",
      net: 1000,
      tax: 0,
    });
    const inv = await (await invoiceOf(sale.id, { access: sale.access })).json<Invoice>();
    expect(inv).toMatchObject({
      title: "Invoice",
      seller: { registration: null },
      taxLabel: null,
      lines: [{ rate: null, tax: 0 }],
    });
  });
});

describe("a buyer in Washington", () => {
  it("names the state's registration and its sales tax, added on top", async () => {
    const sale = await taxedSale("inv-wa-seller@example.com", "inv-wa-buyer@example.com", {
      country: "US",
      region: "WA",
      rate: "10.25",
      type: "sales_tax",
      reason: "standard_rated",
      exclusive: true,
      net: 907,
      tax: 93,
    });
    const inv = await (await invoiceOf(sale.id, { cookie: sale.buyerCookie })).json<Invoice>();
    expect(inv).toMatchObject({
      title: "Tax invoice",
      seller: { registration: "WA-000-000-000" },
      buyer: { country: "US", place: "Washington" },
      lines: [{ net: 9.07, rate: "10.25", tax: 0.93, total: 10 }],
      taxLabel: "Sales tax (Washington)",
    });
    const mail = await waitForMail("inv-wa-buyer@example.com");
    expect(mail.text).toContain("Net: $9.07\n+ $0.93 sales tax (Washington)\nTotal: $10.00");
  });
});

describe("an order's lines: the bump on the main invoice, an upsell's own", () => {
  it("the order bump is a second line of its main purchase's invoice, read by either id", async () => {
    const cookie = await signIn("inv-bump-seller@example.com");
    const make = async (title: string, price: string) => {
      const res = await postForm(
        "/api/content",
        contentForm({ title, price, accessType: "link", linkUrl: "https://example.com/x" }),
        cookie,
      );
      return (await res.json<{ id: string }>()).id;
    };
    const main = await make("Guide", "10");
    const addOn = await make("Workbook", "12");
    const put = await call(`/api/content/${main}/bump`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contentId: addOn, price: "4" }),
      cookie,
    });
    expect(put.status).toBe(200);
    const started = await postJson("/api/create-payment-intent", {
      contentId: main,
      bump: true,
      buyerEmail: "inv-bump-buyer@example.com",
    });
    const { clientSecret } = await started.json<{ clientSecret: string }>();
    const buyerCookie = `aw_buyer=${cookieValue(started, "aw_buyer")}`;
    const pi = clientSecret.split("_secret_")[0];
    expect(
      (await confirmAsStripeJs(clientSecret, CARDS.ok, { receipt_email: "inv-bump-buyer@example.com" })).status,
    ).toBe(200);
    const mainId = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", pi))!.id;
    const bumpId = (await row<{ id: string }>("select id from purchases where bump_of = ?", mainId))!.id;
    await taxed(mainId, { ...FR, net: 833, tax: 167 });
    await taxed(bumpId, { ...FR, net: 333, tax: 67 });
    const number = await issue(mainId);
    expect((await deliver(await eventFor("payment_intent.succeeded", pi))).status).toBe(200);
    const inv = await (await invoiceOf(mainId, { cookie: buyerCookie })).json<Invoice>();
    expect(inv).toMatchObject({
      number,
      lines: [
        { purchaseId: mainId, title: "Guide", net: 8.33, rate: "20", tax: 1.67, total: 10 },
        { purchaseId: bumpId, title: "Workbook", net: 3.33, rate: "20", tax: 0.67, total: 4 },
      ],
      net: 11.66,
      tax: 2.34,
      total: 14,
    });
    expect((await (await invoiceOf(bumpId, { cookie: buyerCookie })).json<Invoice>()).number).toBe(number);
    const mail = await waitForMail("inv-bump-buyer@example.com");
    expect(mail.text).toContain(`Net: $11.66\nIncludes $2.34 VAT (20%, France)\nTotal: $14.00\nInvoice ${number}`);
  });

  it("an upsell paid after the order has its own invoice, with its one line", async () => {
    const sale = await taxedSale("inv-up-seller@example.com", "inv-up-buyer@example.com", {
      ...FR,
      net: 833,
      tax: 167,
    });
    const upsell = `up${sale.id}`.slice(0, 32);
    await env.DB.prepare(
      `insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, status, payment_intent_id, parent_purchase_id, buyer_key_hash, paid_at)
       select ?, content_id, creator_id, buyer_email, 500, 'paid', ?, id, buyer_key_hash, ? from purchases where id = ?`,
    )
      .bind(upsell, `pi_${upsell}`, Date.now(), sale.id)
      .run();
    await taxed(upsell, { ...FR, net: 417, tax: 83 });
    const number = await issue(upsell);
    expect(number).not.toBe(sale.number);
    const inv = await (await invoiceOf(upsell, { cookie: sale.buyerCookie })).json<Invoice>();
    expect(inv).toMatchObject({ number, lines: [{ purchaseId: upsell, net: 4.17, tax: 0.83, total: 5 }], total: 5 });
    expect((await (await invoiceOf(sale.id, { cookie: sale.buyerCookie })).json<Invoice>()).lines).toHaveLength(1);
    // Its "Added to your order" email, as the consumer sends it, carries its own invoice.
    const job = await withTaxInvoice(
      { db: createDb(env.DB), d1: env.DB, appUrl: "http://127.0.0.1:8787", accessSecret: "worker-test-access-secret" },
      { registrations: {}, address: null },
      {
        dedupeKey: `order-added:${upsell}`,
        to: "inv-up-buyer@example.com",
        template: "order-added",
        data: { title: "Beats", amountCents: 500, orderId: upsell, accessUrl: "http://x/", rootOrderId: sale.id },
      },
    );
    const mail = render(job!);
    expect(mail.text).toContain(`Net: $4.17\nIncludes $0.83 VAT (20%, France)\nTotal: $5.00\nInvoice ${number}`);
    expect(mail.html).toContain(`/api/purchases/${upsell}/invoice.pdf?access=`);
  });
});

describe("who may read an invoice", () => {
  it("the access link alone may read it (JSON and PDF); nobody else, and no invoice is one 404", async () => {
    const a = await taxedSale("inv-who-seller@example.com", "inv-who-a@example.com", { ...FR, net: 833, tax: 167 });
    const b = await taxedSale("inv-who-seller2@example.com", "inv-who-b@example.com", { ...FR, net: 833, tax: 167 });
    // A link may have been forwarded: its reader sees the buyer's email masked, as the success page shows it.
    const byLink = await invoiceOf(a.id, { access: a.access });
    expect(byLink.status).toBe(200);
    expect((await byLink.json<Invoice>()).buyer.email).toBe("i…@example.com");
    expect((await call(`/api/purchases/${a.id}/invoice.pdf?access=${encodeURIComponent(a.access)}`)).status).toBe(200);
    // A leaked id read by another buyer: their browser, their access link, a forged link, no claim at all.
    for (const init of [{ cookie: b.buyerCookie }, { access: b.access }, { access: `${a.id}.forged` }, {}]) {
      expect((await invoiceOf(a.id, init)).status).toBe(404);
      const pdf = await call(
        `/api/purchases/${a.id}/invoice.pdf${init.access ? `?access=${encodeURIComponent(init.access)}` : ""}`,
        {
          cookie: init.cookie,
        },
      );
      expect(pdf.status).toBe(404);
      expect(await pdf.json()).toEqual({ message: "Invoice Not Found" });
    }
    // A purchase with no invoice, and one that does not exist: the same answer.
    const { item } = await creatorWithItem("inv-none-seller@example.com");
    const none = await checkout(item.id, { email: "inv-none@example.com" });
    expect((await deliver(await eventFor("payment_intent.succeeded", none.paymentIntent))).status).toBe(200);
    const noneId = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ?",
      none.paymentIntent,
    ))!.id;
    await env.DB.prepare("delete from tax_invoices where purchase_id = ?").bind(noneId).run();
    expect((await invoiceOf(noneId, { cookie: none.buyerCookie })).status).toBe(404);
    expect((await invoiceOf("nosuchpurchase", { cookie: a.buyerCookie })).status).toBe(404);
    expect((await call(`/api/purchases/${"x".repeat(40)}/invoice`)).status).toBe(400);
  });

  it("the buyer's library may read their own invoice, not another buyer's", async () => {
    const a = await taxedSale("inv-lib-seller@example.com", "inv-lib-a@example.com", { ...FR, net: 833, tax: 167 });
    const b = await taxedSale("inv-lib-seller2@example.com", "inv-lib-b@example.com", { ...FR, net: 833, tax: 167 });
    const library = await libraryCookie("inv-lib-a@example.com");
    const mine = await invoiceOf(a.id, { cookie: library });
    expect(mine.status).toBe(200);
    expect((await mine.json<Invoice>()).buyer.email).toBe("inv-lib-a@example.com");
    expect((await call(`/api/purchases/${a.id}/invoice.pdf`, { cookie: library })).status).toBe(200);
    expect((await invoiceOf(b.id, { cookie: library })).status).toBe(404);
    // The library's list names the invoice, so a card links to it without asking.
    const list = await (await call("/api/library/purchases", { cookie: library })).json<{
      purchases: { id: string; invoice: string | null }[];
    }>();
    expect(list.purchases.find((p) => p.id === a.id)?.invoice).toBe(a.number);
  });
});

describe("an issued invoice", () => {
  it("keeps its item title, buyer email and creator name when they change after it was first read", async () => {
    const sale = await taxedSale("inv-snap-seller@example.com", "inv-snap-buyer@example.com", {
      ...FR,
      net: 833,
      tax: 167,
    });
    const first = await (await invoiceOf(sale.id, { cookie: sale.buyerCookie })).json<Invoice>();
    expect(first).toMatchObject({ onBehalfOf: "Maya Lens", buyer: { email: "inv-snap-buyer@example.com" } });
    expect(first.lines[0].title).toBe("Beats");
    const p = await row<{ content_id: string; creator_id: string }>(
      "select content_id, creator_id from purchases where id = ?",
      sale.id,
    );
    await env.DB.batch([
      env.DB.prepare("update content set title = 'Renamed later' where id = ?").bind(p!.content_id),
      env.DB.prepare("update purchases set buyer_email = 'inv-snap-other@example.com' where id = ?").bind(sale.id),
      env.DB.prepare("update users set first_name = 'Other', last_name = 'Name' where id = ?").bind(p!.creator_id),
    ]);
    const again = await (await invoiceOf(sale.id, { cookie: sale.buyerCookie })).json<Invoice>();
    expect(again).toMatchObject({
      number: first.number,
      onBehalfOf: "Maya Lens",
      buyer: { email: "inv-snap-buyer@example.com" },
    });
    expect(again.lines[0].title).toBe("Beats");
  });
});
