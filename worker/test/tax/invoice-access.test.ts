// Who may not read an invoice (docs/tax.md, "Invoices"), and bad input: the creator who sold it (by
// session or API key), another email's library, and malformed ids or tokens all get a 4xx, never a
// 5xx; the PDF's Content-Length is its size. The dev seed of a taxed checkout exists in development only.
import { describe, expect, it } from "vitest";
import type { Invoice } from "../../../shared/invoices";
import type { PurchaseVerification } from "../../../shared/payments";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { app } from "../../app";
import { BASE, call, checkout, env, postJson, row } from "../support/helpers";
import { API_KEY_SCOPES } from "../../../shared/developer";
import { libraryCookie } from "../library/library-fixtures";
import { creatorWithItem, taxedSale } from "./tax-fixtures";

const invoice = (id: string, init: { access?: string; cookie?: string; headers?: Record<string, string> } = {}) =>
  call(`/api/purchases/${id}/invoice${init.access !== undefined ? `?access=${encodeURIComponent(init.access)}` : ""}`, {
    cookie: init.cookie,
    headers: init.headers,
  });

describe("who may not read an invoice", () => {
  it("the creator's session and another email's library get the one 404; an API key is refused", async () => {
    const { cookie, itemId } = await creatorWithItem("rv-inv-acc-seller@example.com");
    const sale = await taxedSale(itemId);
    expect((await invoice(sale.purchaseId, { cookie: sale.buyerCookie })).status).toBe(200);
    const made = await postJson("/api/developer/keys", { name: "k", scopes: [...API_KEY_SCOPES] }, cookie);
    expect(made.status).toBe(201);
    const { key } = await made.json<{ key: string }>();
    const other = await libraryCookie("rv-inv-acc-other@example.com");
    // A key is refused on every route that names no scope (403, one answer whether the purchase exists or not).
    for (const id of [sale.purchaseId, "nosuchpurchase"]) {
      const res = await call(`/api/purchases/${id}/invoice.pdf`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(403);
      expect(await res.text()).not.toContain("Invoice");
    }
    for (const init of [{ cookie }, { cookie: other }]) {
      for (const path of ["invoice", "invoice.pdf"]) {
        const res = await call(`/api/purchases/${sale.purchaseId}/${path}`, init);
        expect(res.status, JSON.stringify(init)).toBe(404);
        expect(await res.json()).toEqual({ message: "Invoice Not Found" });
      }
    }
  });

  it("malformed ids and tokens are a 400 or the one 404, never a 5xx; the PDF's length is exact", async () => {
    const { itemId } = await creatorWithItem("rv-inv-fuzz-seller@example.com");
    const sale = await taxedSale(itemId);
    const pdf = await call(`/api/purchases/${sale.purchaseId}/invoice.pdf`, { cookie: sale.buyerCookie });
    expect(pdf.status).toBe(200);
    const size = (await pdf.arrayBuffer()).byteLength;
    expect(pdf.headers.get("content-length")).toBe(String(size));
    for (const id of ["%00", "..%2F..", "a".repeat(33), "%E2%80%AE", "null", "0", "x%20y"]) {
      const res = await call(`/api/purchases/${id}/invoice`);
      expect([400, 404], id).toContain(res.status);
    }
    for (const access of [
      "",
      ".",
      "..",
      `${sale.purchaseId}.`,
      `${sale.purchaseId}..`,
      `${sale.purchaseId}.a.b`,
      `.${sale.purchaseId}`,
      "%%%",
      "ü.ü",
      "x".repeat(500),
      "x".repeat(501),
    ]) {
      const res = await invoice(sale.purchaseId, { access });
      expect([400, 404], access).toContain(res.status);
    }
    const twice = await call(`/api/purchases/${sale.purchaseId}/invoice?access=a&access=b`);
    expect([400, 404]).toContain(twice.status);
  });

  it("an upsell is an order of its own: the first order's access link does not read its invoice", async () => {
    const { itemId } = await creatorWithItem("rv-inv-up-seller@example.com");
    const sale = await taxedSale(itemId);
    const verified = await call(`/api/purchase/verify?payment_intent=${sale.paymentIntent}`, {
      cookie: sale.buyerCookie,
    });
    const access = new URL((await verified.json<PurchaseVerification>()).accessUrl).searchParams.get("access")!;
    const upsell = `up${sale.purchaseId}`.slice(0, 32);
    await env.DB.batch([
      env.DB.prepare(
        `insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, tax_cents, status, payment_intent_id, parent_purchase_id, buyer_key_hash, paid_at)
         select ?1, content_id, creator_id, buyer_email, 500, 83, 'paid', 'pi_' || ?1, id, buyer_key_hash, ?2 from purchases where id = ?3`,
      ).bind(upsell, Date.now(), sale.purchaseId),
      env.DB.prepare(
        `insert into purchase_taxes (purchase_id, country, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence)
         values (?, 'FR', 'vat', '20.0', 'standard_rated', 1, 417, 83, '{}')`,
      ).bind(upsell),
      env.DB.prepare("insert into tax_invoices (purchase_id, issued_at) values (?, ?)").bind(upsell, Date.now()),
    ]);
    expect((await invoice(sale.purchaseId, { access })).status).toBe(200);
    expect((await invoice(upsell, { cookie: sale.buyerCookie })).status).toBe(200);
    expect((await invoice(upsell, { access })).status).toBe(404);
    const mainLink = (await (await invoice(sale.purchaseId, { access })).json<Invoice>()).pdfUrl;
    expect((await invoice(upsell, { access: new URL(mainLink, "http://x").searchParams.get("access")! })).status).toBe(
      404,
    );
  });
});

describe("the dev seed of a taxed checkout", () => {
  it("answers 404 outside development and writes nothing", async () => {
    const { itemId } = await creatorWithItem("rv-inv-seed-seller@example.com");
    const { paymentIntent } = await checkout(itemId, { card: "none" });
    const body = JSON.stringify({ paymentIntent, country: "FR", ratePercent: "20" });
    for (const APP_ENV of ["production", "staging", ""]) {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(new URL("/dev/seed-tax-invoice", BASE), {
          method: "POST",
          headers: { "content-type": "application/json", origin: BASE },
          body,
        }),
        { ...(env as object), APP_ENV } as never,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(res.status, APP_ENV).toBe(404);
    }
    const p = await row<{ id: string; tax_cents: number }>(
      "select id, tax_cents from purchases where payment_intent_id = ?",
      paymentIntent,
    );
    expect(p!.tax_cents).toBe(0);
    expect(await row("select 1 from purchase_taxes where purchase_id = ?", p!.id)).toBeNull();
    expect(await row("select 1 from tax_invoices where purchase_id = ?", p!.id)).toBeNull();
  });
});
