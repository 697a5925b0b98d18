// What the creator sees of tax (docs/tax.md "What the creator sees"): the choice of tax-inclusive
// prices (saved by its owner only; bad input changes nothing), the preview Stripe Tax computes (via
// the stand-in), and a taxed sale's gross, tax and net in the sales answer, the money timeline, the
// CSV export and the webhooks. Sales are written as fulfilment and the ledger write them.
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import type { Sale, TimelinePage } from "../../../shared/earnings";
import type { TaxPreview, TaxSettings } from "../../../shared/tax-settings";
import { TAX_SETTINGS_MESSAGES } from "../../../shared/tax-settings";
import { SALE_WEBHOOK_DATA } from "../../../shared/webhooks";
import { ApiError } from "../../lib/errors";
import { purchases } from "../../db/schema";
import { purchaseDepsOf } from "../../deps";
import type { PurchaseRow } from "../../services/purchases/deps";
import { saleWebhooks } from "../../services/purchases/sale-notices";
import { settleWebhooks } from "../../services/purchases/settle-notices";
import { taxPreview } from "../../services/tax/preview";
import { call, env, postJson, row, rows, signIn } from "../support/helpers";
import { creatorWithItem, ledgerOf, taxedSale } from "./tax-fixtures";

async function creator(email: string) {
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  return { cookie, id };
}

const putJson = (path: string, body: unknown, cookie?: string) =>
  call(path, { method: "PUT", body: JSON.stringify(body), headers: { "content-type": "application/json" }, cookie });

/**
 * A $12.00 sale to a French consumer with the price including 20 % VAT ($2.00), booked as the ledger
 * books it: the fee (20 %) on the net, the tax to account `tax`. And an untaxed $5.00 sale before it.
 */
async function seedTaxedSale(userId: string, tag: string) {
  const item = `it${tag}`;
  const taxed = `tx${tag}`;
  const plain = `pl${tag}`;
  const at = Date.now() - 60_000;
  await env.DB.batch([
    env.DB.prepare("insert into content (id, user_id, title, price_cents) values (?, ?, 'VAT guide', 1200)").bind(
      item,
      userId,
    ),
    env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, tax_cents, status, paid_at, created_at) values (?, ?, ?, 'fr@example.com', 1200, 200, 'paid', ?, ?)",
    ).bind(taxed, item, userId, at, at),
    env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, tax_cents, status, paid_at, created_at) values (?, ?, ?, 'us@example.com', 500, 0, 'paid', ?, ?)",
    ).bind(plain, item, userId, at - 1000, at - 1000),
    env.DB.prepare(
      `insert into purchase_taxes (purchase_id, calculation_id, country, region, postal_code, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence)
       values (?, 'taxcalc_1', 'FR', null, '75001', 'vat', '20.0', 'standard_rated', 1, 1000, 200, '{}')`,
    ).bind(taxed),
    ...[
      [`sale:${taxed}:creator`, "creator", userId, "sale", 800, taxed],
      [`sale:${taxed}:platform`, "platform", null, "platform_fee", 200, taxed],
      [`sale:${taxed}:tax`, "tax", null, "tax", 200, taxed],
      [`sale:${plain}:creator`, "creator", userId, "sale", 400, plain],
      [`sale:${plain}:platform`, "platform", null, "platform_fee", 100, plain],
    ].map(([key, account, user, kind, cents, purchase]) =>
      env.DB.prepare(
        "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, ?, ?, ?, ?, ?, ?)",
      ).bind(key, account, user, kind, cents, purchase, at),
    ),
  ]);
  return { item, taxed, plain };
}

describe("the choice of tax-inclusive prices", () => {
  it("is auto until the owner chooses; PUT saves it to users.tax_behavior", async () => {
    const { cookie, id } = await creator("tax-choice@example.com");
    const first = await call("/api/settings/tax", { cookie });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ behavior: "auto", suggestedPrice: 10 });

    const res = await putJson("/api/settings/tax", { behavior: "inclusive" }, cookie);
    expect(res.status).toBe(200);
    expect(await res.json<TaxSettings>()).toMatchObject({ behavior: "inclusive" });
    expect(await row("select tax_behavior from users where id = ?", id)).toEqual({ tax_behavior: "inclusive" });
    // A repeat is the same answer.
    expect((await putJson("/api/settings/tax", { behavior: "inclusive" }, cookie)).status).toBe(200);
    expect(await (await call("/api/settings/tax", { cookie })).json()).toMatchObject({ behavior: "inclusive" });
  });

  it("suggests the creator's most common price", async () => {
    const { cookie, id } = await creator("tax-common@example.com");
    await env.DB.batch(
      [700, 1500, 1500].map((cents, i) =>
        env.DB.prepare("insert into content (id, user_id, title, price_cents) values (?, ?, 'x', ?)").bind(
          `cm${i}${id}`.slice(0, 30),
          id,
          cents,
        ),
      ),
    );
    expect(await (await call("/api/settings/tax", { cookie })).json()).toEqual({
      behavior: "auto",
      suggestedPrice: 15,
    });
  });

  it("refuses bad input with 400 and a message, and changes nothing", async () => {
    const { cookie, id } = await creator("tax-bad@example.com");
    await putJson("/api/settings/tax", { behavior: "exclusive" }, cookie);
    for (const body of [{}, { behavior: "sometimes" }, { behavior: 1 }, { behavior: "auto", extra: true }]) {
      const res = await putJson("/api/settings/tax", body, cookie);
      expect(res.status).toBe(400);
      expect((await res.json<{ message: string }>()).message).toBeTruthy();
    }
    const res = await putJson("/api/settings/tax", { behavior: "never" }, cookie);
    expect((await res.json<{ message: string }>()).message).toContain(TAX_SETTINGS_MESSAGES.behavior);
    expect(await row("select tax_behavior from users where id = ?", id)).toEqual({ tax_behavior: "exclusive" });
  });

  it("only its owner: signed out is 401, another creator changes only their own", async () => {
    const owner = await creator("tax-owner@example.com");
    const other = await creator("tax-other@example.com");
    expect((await putJson("/api/settings/tax", { behavior: "inclusive" })).status).toBe(401);
    expect((await call("/api/settings/tax")).status).toBe(401);
    expect((await call("/api/settings/tax/preview?priceCents=1000")).status).toBe(401);
    expect((await putJson("/api/settings/tax", { behavior: "inclusive" }, other.cookie)).status).toBe(200);
    expect(await row("select tax_behavior from users where id = ?", owner.id)).toEqual({ tax_behavior: "auto" });
    expect(await row("select tax_behavior from users where id = ?", other.id)).toEqual({ tax_behavior: "inclusive" });
  });
});

describe("the preview", () => {
  it("refuses a price out of range or not in cents", async () => {
    const { cookie } = await creator("tax-preview-bad@example.com");
    for (const q of [
      "",
      "priceCents=10",
      "priceCents=abc",
      "priceCents=12.5",
      "priceCents=100000000",
      "priceCents=1000&behavior=x",
    ]) {
      const res = await call(`/api/settings/tax/preview?${q}`, { cookie });
      expect(res.status, q).toBe(400);
    }
  });

  it("shows what each buyer pays and what the creator earns, from Stripe Tax, and caches it for a day", async () => {
    const { cookie } = await creator("tax-preview@example.com");
    const res = await call("/api/settings/tax/preview?priceCents=1000&behavior=inclusive", { cookie });
    expect(res.status).toBe(200);
    const preview = await res.json<TaxPreview>();
    expect(preview).toMatchObject({ price: 10, behavior: "inclusive", feePercent: 20 });
    const by = Object.fromEntries(preview.rows.map((r) => [r.id, r]));
    expect(preview.rows.map((r) => r.id)).toEqual(["fr", "de-business", "gb", "us-wa", "au"]);
    // France, 20 % VAT included in $10.00: $1.67 of tax, $8.33 net, the fee on the net.
    expect(by.fr).toMatchObject({ buyerPays: 10, tax: 1.67, net: 8.33, fee: 1.67, earns: 6.66, inclusive: true });
    expect(by.fr.taxLine).toBe("Includes $1.67 VAT (20%, France)");
    // A German business with a VAT number: reverse charge, no tax.
    expect(by["de-business"]).toMatchObject({ buyerPays: 10, tax: 0, net: 10, fee: 2, earns: 8, reverseCharge: true });
    expect(by.gb).toMatchObject({ buyerPays: 10, tax: 1.67, net: 8.33 });
    expect(by.au).toMatchObject({ buyerPays: 10, tax: 0.91, net: 9.09 });
    for (const r of preview.rows) {
      expect(Math.round((r.net - r.fee - r.earns) * 100)).toBe(0);
      expect(Math.round((r.buyerPays - r.tax - r.net) * 100)).toBe(0);
    }
    expect(await env.SESSIONS.get("tax-preview:v1:1000:inclusive")).not.toBeNull();

    // Auto: tax on top for the US buyer only.
    const auto = await (await call("/api/settings/tax/preview?priceCents=1000", { cookie })).json<TaxPreview>();
    const wa = auto.rows.find((r) => r.id === "us-wa")!;
    expect(auto.behavior).toBe("auto");
    expect(wa.inclusive).toBe(false);
    expect(wa.net).toBe(10);
    expect(wa.buyerPays).toBeGreaterThan(10);
    expect(wa.taxLine).toMatch(/^\+ \$\d+\.\d\d sales tax \(Washington\)$/);
    expect(auto.rows.find((r) => r.id === "fr")).toMatchObject({ buyerPays: 10, inclusive: true });
  });

  it("a Pro creator's preview shows no fee", async () => {
    const { cookie, id } = await creator("tax-preview-pro@example.com");
    await env.DB.prepare(
      "insert into pro_periods (invoice_id, user_id, subscription_id, starts_at, ends_at) values (?, ?, ?, ?, ?)",
    )
      .bind(`in_${id}`.slice(0, 30), id, `sub_${id}`.slice(0, 30), Date.now() - 1000, Date.now() + 86_400_000)
      .run();
    const preview = await (
      await call("/api/settings/tax/preview?priceCents=1000&behavior=inclusive", { cookie })
    ).json<TaxPreview>();
    expect(preview.feePercent).toBe(0);
    expect(preview.rows.every((r) => r.fee === 0 && r.earns === r.net)).toBe(true);
  });

  it("Stripe failing answers 502 with a message and caches nothing", async () => {
    const kv = env.SESSIONS;
    const failing = () => {
      throw new Error("connection refused");
    };
    const err = await taxPreview({ stripe: failing, kv }, 4321, "exclusive", "free").catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(502);
    expect((err as ApiError).message).toBe(TAX_SETTINGS_MESSAGES.unavailable);
    expect(await kv.get("tax-preview:v1:4321:exclusive")).toBeNull();
  });
});

describe("a taxed sale on the creator's screens", () => {
  it("the sales answer carries gross, tax and net; an untaxed sale has no tax", async () => {
    const { cookie, id } = await creator("tax-sales@example.com");
    const { taxed, plain } = await seedTaxedSale(id, "sa");
    const sales = await (await call("/api/creator/sales", { cookie })).json<Sale[]>();
    const t = sales.find((s) => s.id === taxed)!;
    expect(t.amount).toBe(12);
    expect(t.tax).toEqual({
      amount: 2,
      net: 10,
      type: "vat",
      rate: "20",
      country: "FR",
      region: null,
      reverseCharge: false,
    });
    expect(sales.find((s) => s.id === plain)!.tax).toBeNull();
  });

  it("the money timeline shows the tax apart from the creator's share", async () => {
    const { cookie, id } = await creator("tax-timeline@example.com");
    const { taxed } = await seedTaxedSale(id, "tl");
    const page = await (await call("/api/earnings/timeline", { cookie })).json<TimelinePage>();
    const item = page.items.find((i) => i.purchaseId === taxed)!;
    expect(item).toMatchObject({ amount: 12, creatorShare: 8, tax: { amount: 2, net: 10 } });
  });

  it("the CSV has gross, tax and net columns; only the owner's sales", async () => {
    const { cookie, id } = await creator("tax-csv@example.com");
    const { taxed, plain } = await seedTaxedSale(id, "cv");
    const other = await creator("tax-csv-other@example.com");
    await seedTaxedSale(other.id, "co");
    const res = await call("/api/creator/sales/export", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    const [head, ...lines] = (await res.text()).trim().split("\r\n");
    const cols = head.split(",");
    expect(cols).toEqual(
      expect.arrayContaining(["gross", "tax", "net", "tax_rate", "tax_country", "fee", "your_share"]),
    );
    expect(lines).toHaveLength(2);
    const rec = (line: string) => Object.fromEntries(line.split(",").map((v, i) => [cols[i], v]));
    const t = rec(lines.find((l) => l.startsWith(taxed))!);
    expect(t).toMatchObject({ gross: "12.00", tax: "2.00", net: "10.00", tax_type: "vat", tax_rate: "20" });
    expect(t).toMatchObject({ tax_country: "FR", fee: "2.00", your_share: "8.00", status: "completed" });
    expect(rec(lines.find((l) => l.startsWith(plain))!)).toMatchObject({ gross: "5.00", tax: "0.00", net: "5.00" });
    expect((await call("/api/creator/sales/export")).status).toBe(401);
  });
});

describe("webhooks", () => {
  it("sale.completed carries the tax apart; the fee is on the net", async () => {
    const { cookie, id } = await creator("tax-hook@example.com");
    const made = await postJson(
      "/api/developer/webhooks",
      { url: "http://127.0.0.1:9/hook", events: ["sale.completed"], description: "tax" },
      cookie,
    );
    expect(made.status).toBe(201);
    const { taxed } = await seedTaxedSale(id, "wh");
    const now = Date.now();
    await env.DB.prepare("update purchases set paid_at = ? where id = ?").bind(now, taxed).run();
    const deps = purchaseDepsOf(env);
    const purchase = (await deps.db.select().from(purchases).where(eq(purchases.id, taxed)).get()) as PurchaseRow;
    const ledger = [
      { idempotencyKey: `sale:${taxed}:creator`, account: "creator", amountCents: 800 },
      { idempotencyKey: `sale:${taxed}:platform`, account: "platform", amountCents: 200 },
      { idempotencyKey: `sale:${taxed}:tax`, account: "tax", amountCents: 200 },
    ] as never;
    const { statements } = await saleWebhooks(deps, purchase, ledger, "fr@example.com", now);
    await env.DB.batch(statements);
    const [delivery] = await rows<{ payload: string }>(
      "select payload from webhook_deliveries where user_id = ? and type = 'sale.completed'",
      id,
    );
    const data = JSON.parse(delivery.payload).data;
    // Exactly the fields the OpenAPI document's `webhooks` names for the event.
    expect(() => SALE_WEBHOOK_DATA["sale.completed"].strict().parse(data)).not.toThrow();
    const doc = await (await call("/api/openapi.json")).json<{ webhooks: Record<string, unknown> }>();
    expect(JSON.stringify(doc.webhooks["sale.completed"])).toContain('"reverseCharge"');
    expect(data).toMatchObject({
      purchaseId: taxed,
      amountCents: 1200,
      taxCents: 200,
      netCents: 800,
      feeCents: 200,
      tax: {
        amountCents: 200,
        netCents: 1000,
        type: "vat",
        rate: "20",
        country: "FR",
        region: null,
        reverseCharge: false,
      },
    });
  });

  it("sale.refunded carries the sale's tax too", async () => {
    const { cookie, id } = await creator("tax-hook-refund@example.com");
    const made = await postJson(
      "/api/developer/webhooks",
      { url: "http://127.0.0.1:9/hook", events: ["sale.refunded"], description: "tax" },
      cookie,
    );
    expect(made.status).toBe(201);
    const { taxed } = await seedTaxedSale(id, "wr");
    const refundId = `re_${id}`.slice(0, 30);
    // The refund's reversal as the ledger books it (the webhook is written only once it is booked).
    await env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id) values (?, 'creator', ?, 'refund', -400, ?)",
    )
      .bind(`refund:${refundId}:creator`, id, taxed)
      .run();
    const deps = purchaseDepsOf(env);
    const purchase = (await deps.db.select().from(purchases).where(eq(purchases.id, taxed)).get()) as PurchaseRow;
    const refund = { id: refundId, status: "succeeded", amount: 600 } as Stripe.Refund;
    const { statements } = await settleWebhooks(deps, purchase, [refund], [], Date.now());
    await env.DB.batch(statements);
    const [delivery] = await rows<{ payload: string }>(
      "select payload from webhook_deliveries where user_id = ? and type = 'sale.refunded'",
      id,
    );
    const data = JSON.parse(delivery.payload).data;
    expect(() => SALE_WEBHOOK_DATA["sale.refunded"].strict().parse(data)).not.toThrow();
    expect(data).toMatchObject({
      amountCents: 1200,
      taxCents: 200,
      refundedCents: 600,
      tax: { amountCents: 200, netCents: 1000, type: "vat", country: "FR" },
    });
  });

  it("a taxed sale paid through checkout: its webhook, the sales answer and the CSV agree with the ledger", async () => {
    const { cookie, itemId, creatorId } = await creatorWithItem("tax-hook-paid@example.com", "12");
    expect(
      (
        await postJson(
          "/api/developer/webhooks",
          { url: "http://127.0.0.1:9/hook", events: ["sale.completed"], description: "tax" },
          cookie,
        )
      ).status,
    ).toBe(201);
    const sale = await taxedSale(itemId);
    expect(sale.taxCents).toBe(200);
    const ledger = Object.fromEntries((await ledgerOf(sale.purchaseId)).map((r) => [r.account, r.amount_cents]));
    expect(ledger).toMatchObject({ creator: 800, platform: 200, tax: 200 });
    const [delivery] = await rows<{ payload: string }>(
      "select payload from webhook_deliveries where user_id = ? and type = 'sale.completed'",
      creatorId,
    );
    expect(JSON.parse(delivery.payload).data).toMatchObject({
      amountCents: 1200,
      taxCents: 200,
      netCents: ledger.creator,
      feeCents: ledger.platform,
      tax: { amountCents: 200, netCents: 1000, type: "vat", rate: "20", country: "FR", reverseCharge: false },
    });
    const [answer] = await (await call("/api/creator/sales", { cookie })).json<Sale[]>();
    expect(answer).toMatchObject({ id: sale.purchaseId, amount: 12, tax: { amount: 2, net: 10 } });
    const csv = (await (await call("/api/creator/sales/export", { cookie })).text()).split("\r\n");
    const cols = csv[0].split(",");
    const line = Object.fromEntries(csv[1].split(",").map((v, i) => [cols[i], v]));
    expect(line).toMatchObject({ gross: "12.00", tax: "2.00", net: "10.00", fee: "2.00", your_share: "8.00" });
  });
});
