// A taxed sale in the ledger: the tax on account 'tax', the fee on the net (free and Pro plans), the
// tax invoice numbered once per order (an order bump shares its order's, an upsell has its own), and
// Stripe's tax transaction recorded once however often the webhook comes. docs/tax.md.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { monthlyReports, payoutSummary } from "../../services/admin-reports";
import { creatorBalance } from "../../services/balances";
import { insertLedgerRow, rebookProFees, reverseSale, saleRows } from "../../services/ledger";
import { recordTaxTransactions } from "../../services/tax/transactions";
import { createDb } from "../../db/client";
import { purchaseDepsOf } from "../../deps";
import { call, checkout, contentForm, deliver, env, eventFor, postForm, row, rows } from "../support/helpers";
import { creatorWithItem, ledgerOf, netOf, sideOf, taxedSale, taxTransactionsOf } from "./tax-fixtures";

const invoiceOf = (purchaseId: string) =>
  row<{ number: number }>("select number from tax_invoices where purchase_id = ?", purchaseId);

describe("a taxed sale's ledger rows", () => {
  it("books the tax to account tax and splits the net 80/20 on the free plan; invoice and tax transaction once", async () => {
    const { itemId, creatorId } = await creatorWithItem("tax-ledger-free@example.com", "10");
    const sale = await taxedSale(itemId);
    // $10 including 20% French VAT: $1.67 tax, $8.33 net; the fee is 20% of the net.
    expect(sale.taxCents).toBe(167);
    expect(await ledgerOf(sale.purchaseId)).toEqual([
      { idempotency_key: `sale:${sale.purchaseId}:creator`, account: "creator", kind: "sale", amount_cents: 666 },
      {
        idempotency_key: `sale:${sale.purchaseId}:platform`,
        account: "platform",
        kind: "platform_fee",
        amount_cents: 167,
      },
      { idempotency_key: `sale:${sale.purchaseId}:tax`, account: "tax", kind: "tax", amount_cents: 167 },
    ]);
    expect(
      (await row<{ user_id: string | null }>(
        "select user_id from ledger_entries where idempotency_key = ?",
        `sale:${sale.purchaseId}:tax`,
      ))!.user_id,
    ).toBeNull();
    // The creator's figures count their share only.
    const balance = await creatorBalance(createDb(env.DB), creatorId);
    expect(balance.onHoldCents + balance.availableCents).toBe(666);
    expect(balance.totalEarningsCents).toBe(666);
    const number = (await invoiceOf(sale.purchaseId))!.number;
    expect(number).toBeGreaterThan(0);
    expect(await taxTransactionsOf(sale.paymentIntent)).toMatchObject([
      { type: "transaction", reference: sale.paymentIntent, amount_cents: 1000, tax_cents: 167 },
    ]);

    // The same event again, a new read of the association: nothing more.
    const again = await deliver(await eventFor("payment_intent.succeeded", sale.paymentIntent));
    expect(await again.json()).toMatchObject({ duplicate: true });
    await recordTaxTransactions(purchaseDepsOf(env as never), sale.paymentIntent);
    expect(await ledgerOf(sale.purchaseId)).toHaveLength(3);
    expect(await taxTransactionsOf(sale.paymentIntent)).toHaveLength(1);
    expect(await rows("select number from tax_invoices where purchase_id = ?", sale.purchaseId)).toEqual([{ number }]);
  });

  it("on Pro the creator keeps the whole net; a Pro invoice taken back re-books the fee on the net", async () => {
    const { itemId, creatorId } = await creatorWithItem("tax-ledger-pro@example.com", "10");
    const now = Date.now();
    await env.DB.prepare(
      "insert into pro_periods (invoice_id, user_id, subscription_id, starts_at, ends_at) values ('in_taxpro', ?, 'sub_taxpro', ?, ?)",
    )
      .bind(creatorId, now - 3600_000, now + 30 * 86400_000)
      .run();
    const sale = await taxedSale(itemId);
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 833, platform: 0, tax: 167 });

    await env.DB.prepare("update pro_periods set voided_at = ?, void_reason = 'refund' where invoice_id = 'in_taxpro'")
      .bind(now)
      .run();
    await env.DB.batch(rebookProFees(env.DB, "in_taxpro", "refund"));
    // 20% of the $8.33 net, never of the tax.
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 666, platform: 167, tax: 167 });
  });

  it("an order bump books its own three rows and shares its order's invoice; an upsell's order has its own", async () => {
    const { cookie, itemId } = await creatorWithItem("tax-ledger-bump@example.com", "10");
    const addOn = await creatorWithItemOf(cookie, "Workbook", "12");
    const put = await call(`/api/content/${itemId}/bump`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contentId: addOn, price: "4" }),
      cookie,
    });
    expect(put.status).toBe(200);
    const sale = await taxedSale(itemId, { bump: true });
    expect(sale.bumpId).not.toBeNull();
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 666, platform: 167, tax: 167 });
    // $4 including VAT: $0.67 tax, $3.33 net, 20% of it $0.67.
    expect(await netOf(sale.bumpId!)).toEqual({ creator: 266, platform: 67, tax: 67 });
    expect(await invoiceOf(sale.purchaseId)).not.toBeNull();
    expect(await invoiceOf(sale.bumpId!)).toBeNull();
    expect(await taxTransactionsOf(sale.paymentIntent)).toMatchObject([
      { type: "transaction", amount_cents: 1400, tax_cents: 234 },
    ]);

    // An upsell is charged with its own PaymentIntent: its own purchase is its order, with the next number.
    const upsell = await taxedSale(addOn);
    await env.DB.prepare("update purchases set parent_purchase_id = ? where id = ?")
      .bind(sale.purchaseId, upsell.purchaseId)
      .run();
    expect(await netOf(upsell.purchaseId)).toEqual({ creator: 800, platform: 200, tax: 200 });
    expect((await invoiceOf(upsell.purchaseId))!.number).toBeGreaterThan((await invoiceOf(sale.purchaseId))!.number);
  });

  it("an untaxed sale books no tax row and no invoice, as before", async () => {
    const { itemId } = await creatorWithItem("tax-ledger-none@example.com", "10");
    const { paymentIntent } = await checkout(itemId);
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    const p = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!;
    expect(await netOf(p.id)).toEqual({ creator: 800, platform: 200, tax: 0 });
    expect(await invoiceOf(p.id)).toBeNull();
    expect(await taxTransactionsOf(paymentIntent)).toEqual([]);
  });
});

async function creatorWithItemOf(cookie: string, title: string, price: string) {
  const res = await postForm(
    "/api/content",
    contentForm({ title, price, accessType: "link", linkUrl: "https://example.com/workbook" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

describe("reverseSale on a taxed sale, in many pieces", () => {
  let n = 0;
  /** A paid sale of `gross` cents with `tax` of it as tax, booked as saleRows books it on `plan`. */
  async function bookedSale(gross: number, tax: number, plan: "free" | "pro") {
    const id = `rvt${++n}`;
    const rowsOf = saleRows(
      { id, creatorId: "rvt_creator", contentId: "rvt_item", amountCents: gross, currency: "usd", taxCents: tax },
      plan,
    );
    await env.DB.batch([
      env.DB.prepare("insert or ignore into users (id, email) values ('rvt_creator', 'rvt@example.com')"),
      env.DB.prepare(
        "insert or ignore into content (id, user_id, title, price_cents) values ('rvt_item', 'rvt_creator', 'Course', 1000)",
      ),
      env.DB.prepare(
        "insert into purchases (id, content_id, creator_id, amount_cents, tax_cents, status, payment_intent_id, paid_at) values (?, 'rvt_item', 'rvt_creator', ?, ?, 'paid', ?, ?)",
      ).bind(id, gross, tax, `pi_${id}`, Date.now()),
      ...rowsOf.map((r) => insertLedgerRow(env.DB, r, ["paid"])),
    ]);
    return id;
  }

  it("each piece splits in proportion, no account ever gives back more than it had, and the whole nets to zero", async () => {
    for (const [gross, tax, plan, pieces] of [
      [1000, 167, "free", [1, 333, 250, 99, 317]],
      [1000, 167, "pro", [333, 1, 1, 400, 265]],
      [1999, 347, "free", [7, 1000, 500, 492]],
      [4321, 0, "free", [4000, 321]],
    ] as const) {
      const id = await bookedSale(gross, tax, plan);
      const start = await netOf(id);
      let i = 0;
      for (const cents of pieces) {
        await reverseSale(env.DB, id, `piece${++i}:${id}`, "refund", cents).run();
        const side = await sideOf(`piece${i}:${id}`);
        expect((side.creator ?? 0) + (side.platform ?? 0) + (side.tax ?? 0)).toBe(-cents);
        for (const v of Object.values(side)) expect(v).toBeLessThanOrEqual(0);
        if (plan === "pro") expect(side.platform).toBe(0);
        if (!tax) expect(side.tax).toBeUndefined();
        const now = await netOf(id);
        for (const a of ["creator", "platform", "tax"] as const) {
          expect(now[a]).toBeGreaterThanOrEqual(0);
          expect(now[a]).toBeLessThanOrEqual(start[a]);
        }
      }
      expect(await netOf(id)).toEqual({ creator: 0, platform: 0, tax: 0 });
      // Nothing more once the sale is taken back.
      await reverseSale(env.DB, id, `more:${id}`, "refund", 100).run();
      expect(await sideOf(`more:${id}`)).toEqual({});
    }
  });
});

describe("recording Stripe's tax transactions when Stripe cannot say yet", () => {
  it("throws (so the webhook is answered 500 and delivered again) and records once Stripe answers", async () => {
    const { itemId } = await creatorWithItem("tax-ledger-retry@example.com", "10");
    const sale = await taxedSale(itemId, { deliverSucceeded: false });
    const deps = purchaseDepsOf(env as never);
    const dead = new Stripe("sk_test_worker", {
      host: "127.0.0.1",
      port: 9,
      protocol: "http",
      httpClient: Stripe.createFetchHttpClient(),
      maxNetworkRetries: 0,
    });
    deps.stripe.tax.associations.find = dead.tax.associations.find.bind(dead.tax.associations);
    await expect(recordTaxTransactions(deps, sale.paymentIntent)).rejects.toThrow();
    expect(await taxTransactionsOf(sale.paymentIntent)).toEqual([]);
    // A refund Stripe has not committed a reversal for yet: what is there is recorded, and it throws.
    const good = purchaseDepsOf(env as never);
    await expect(recordTaxTransactions(good, sale.paymentIntent, [sale.paymentIntent, "re_not_yet"])).rejects.toThrow(
      /re_not_yet/,
    );
    expect(await taxTransactionsOf(sale.paymentIntent)).toHaveLength(1);
    expect((await deliver(await eventFor("payment_intent.succeeded", sale.paymentIntent))).status).toBe(200);
    expect(await taxTransactionsOf(sale.paymentIntent)).toMatchObject([{ type: "transaction", amount_cents: 1000 }]);
  });
});

describe("the admin's figures leave tax out", () => {
  it("revenue, gross sales and refunds move by the net of a taxed sale, never its tax", async () => {
    const db = createDb(env.DB);
    const month = async () => (await monthlyReports(db, 1))[0];
    const [summary0, month0] = [await payoutSummary(db), await month()];
    const { itemId } = await creatorWithItem("tax-ledger-admin@example.com", "10");
    const sale = await taxedSale(itemId);
    const [summary1, month1] = [await payoutSummary(db), await month()];
    const cents = (a: number, b: number | undefined) => Math.round((a - (b ?? 0)) * 100);
    expect(cents(summary1.totalRevenue, summary0.totalRevenue)).toBe(833);
    expect(cents(summary1.platformCommission, summary0.platformCommission)).toBe(167);
    expect(cents(month1.grossSales, month0?.grossSales)).toBe(833);
    expect(cents(month1.totalRevenue, month0?.totalRevenue)).toBe(833);
    await reverseSale(env.DB, sale.purchaseId, `admin-refund:${sale.purchaseId}`, "refund", 1000).run();
    const month2 = await month();
    expect(cents(month2.refunds, month1.refunds)).toBe(833);
    expect(cents(month2.totalRevenue, month0?.totalRevenue)).toBe(0);
  });
});
