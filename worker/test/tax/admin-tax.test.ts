// The admin's tax page (docs/tax.md, "The admin's tax report"): the monthly report by jurisdiction
// from the ledger's tax account, its CSV equal to the ledger to the cent, the reconciliation with
// Stripe's tax transactions and the re-read that records a missing one, and the thresholds.
import { beforeAll, describe, expect, it } from "vitest";
import type { TaxReconciliation, TaxRegistrationsView, TaxReport, TaxThresholdRow } from "../../../shared/admin-tax";
import { createDb } from "../../db/client";
import { stripeClient } from "../../services/stripe";
import { rereadMissing, type TaxStripe } from "../../services/tax/reconcile";
import { monthRange } from "../../services/tax/report";
import { registrationsAndThresholds, type RegistrationsStripe } from "../../services/tax/thresholds";
import { call, env, postJson, row, rows, signIn } from "../support/helpers";

let seq = 0;
const uid = (p: string) => `${p}${++seq}${Math.random().toString(36).slice(2, 8)}`;
let creatorId = "";
let itemId = "";

/** A paid purchase with its place and tax, and the ledger's `tax` row for it (as the tax-ledger books it). */
async function taxedSale(o: {
  at: number;
  gross: number;
  tax: number;
  country: string;
  region?: string | null;
  type?: string;
  bumpOf?: string;
  ledger?: boolean;
}) {
  const id = uid("tp");
  const pi = o.bumpOf ? null : `pi_${id}`;
  await env.DB.batch([
    env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, tax_cents, status, payment_intent_id, bump_of, paid_at, created_at) values (?, ?, ?, 'b@example.com', ?, ?, 'paid', ?, ?, ?, ?)",
    ).bind(id, itemId, creatorId, o.gross, o.tax, pi, o.bumpOf ?? null, o.at, o.at),
    env.DB.prepare(
      "insert into purchase_taxes (purchase_id, country, region, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence) values (?, ?, ?, ?, '20', 'standard_rated', 1, ?, ?, '{}')",
    ).bind(id, o.country, o.region ?? null, o.type ?? "vat", o.gross - o.tax, o.tax),
    ...(o.ledger === false
      ? []
      : [
          env.DB.prepare(
            "insert into ledger_entries (idempotency_key, account, kind, amount_cents, purchase_id, created_at) values (?, 'tax', 'tax', ?, ?, ?)",
          ).bind(`sale:${id}:tax`, o.tax, id, o.at),
        ]),
  ]);
  return { id, pi };
}

/** A refund's or a lost dispute's tax part, as the ledger books it (negative). */
const reverseTax = (purchaseId: string, cents: number, at: number, kind: "refund" | "dispute" = "refund") =>
  env.DB.prepare(
    "insert into ledger_entries (idempotency_key, account, kind, amount_cents, purchase_id, created_at) values (?, 'tax', ?, ?, ?, ?)",
  )
    .bind(`${uid("re")}:tax`, kind, -cents, purchaseId, at)
    .run();

/** A tax transaction as Stripe recorded it for an order. */
const stripeTx = (orderId: string, pi: string | null, type: "transaction" | "reversal", tax: number, at: number) =>
  env.DB.prepare(
    "insert into tax_transactions (id, purchase_id, payment_intent_id, type, reference, amount_cents, tax_cents, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
  )
    .bind(uid("tax_"), orderId, pi, type, uid("ref"), tax * 6, tax, at)
    .run();

let admin = "";
let creator = "";
beforeAll(async () => {
  admin = await signIn("admin@apewall.test");
  const email = `${uid("creator")}@example.com`;
  creator = await signIn(email);
  const u = await row<{ id: string }>("select id from users where email = ?", email);
  creatorId = u!.id;
  itemId = uid("item");
  await env.DB.prepare("insert into content (id, user_id, title, price_cents) values (?, ?, 'Guide', 1000)")
    .bind(itemId, creatorId)
    .run();
});

const getAs = (path: string, cookie: string) => call(path, { cookie });

describe("the monthly tax report", () => {
  const P = { year: 2025, month: 3 };
  const [from] = monthRange(P);
  const day = (d: number) => from + (d - 1) * 86_400_000 + 3_600_000;

  it("sums sales, net, tax collected and reversed by place and tax type from the ledger, and its CSV equals the ledger to the cent", async () => {
    await taxedSale({ at: day(2), gross: 1200, tax: 200, country: "FR" });
    const fr2 = await taxedSale({ at: day(3), gross: 601, tax: 101, country: "FR" });
    await reverseTax(fr2.id, 101, day(10)); // fully refunded in March
    await taxedSale({ at: day(4), gross: 1190, tax: 190, country: "DE" });
    await taxedSale({ at: day(5), gross: 1000, tax: 103, country: "US", region: "WA", type: "sales_tax" });
    await taxedSale({ at: day(5), gross: 1000, tax: 66, country: "US", region: "NJ", type: "sales_tax" });
    // A February sale partly refunded in March: the refund counts in March, under the sale's place.
    const feb = await taxedSale({ at: from - 5 * 86_400_000, gross: 1200, tax: 200, country: "FR" });
    await reverseTax(feb.id, 67, day(12));
    // A disputed sale in Germany, lost in March.
    const de2 = await taxedSale({ at: day(6), gross: 595, tax: 95, country: "DE" });
    await reverseTax(de2.id, 95, day(20), "dispute");
    // April is another month.
    await taxedSale({ at: monthRange({ year: 2025, month: 4 })[0] + 1000, gross: 1200, tax: 200, country: "FR" });

    const res = await getAs(`/api/admin/tax/report?month=3&year=2025`, admin);
    expect(res.status).toBe(200);
    const report = await res.json<TaxReport>();
    const byPlace = Object.fromEntries(report.rows.map((r) => [`${r.place} ${r.taxType}`, r]));
    expect(byPlace["France vat"]).toEqual({
      country: "FR",
      region: null,
      place: "France",
      taxType: "vat",
      sales: 2,
      netCents: 1000 + 500,
      taxCollectedCents: 301,
      taxReversedCents: 101 + 67,
      taxOwedCents: 301 - 168,
    });
    expect(byPlace["Germany vat"]).toMatchObject({
      sales: 2,
      netCents: 1500,
      taxCollectedCents: 285,
      taxReversedCents: 95,
      taxOwedCents: 190,
    });
    expect(byPlace["Washington sales_tax"]).toMatchObject({
      country: "US",
      region: "WA",
      sales: 1,
      netCents: 897,
      taxCollectedCents: 103,
      taxReversedCents: 0,
      taxOwedCents: 103,
    });
    expect(byPlace["United States NJ sales_tax"]).toMatchObject({ region: "NJ", taxOwedCents: 66 });
    expect(report.total).toEqual({
      sales: 6,
      netCents: 3897 + 934,
      taxCollectedCents: 689 + 66,
      taxReversedCents: 263,
      taxOwedCents: 426 + 66,
    });

    const csvRes = await getAs(`/api/admin/tax/report.csv?month=3&year=2025`, admin);
    expect(csvRes.status).toBe(200);
    expect(csvRes.headers.get("content-type")).toContain("text/csv");
    expect(csvRes.headers.get("content-disposition")).toBe('attachment; filename="tax-2025-03.csv"');
    const lines = (await csvRes.text()).trim().split("\r\n");
    expect(lines[0]).toBe(
      "jurisdiction,country,region,tax_type,sales,net,tax_collected,tax_reversed,tax_owed,currency",
    );
    expect(lines).toContain("France,FR,,vat,2,15.00,3.01,1.68,1.33,USD");
    expect(lines).toContain("Washington,US,WA,sales_tax,1,8.97,1.03,0.00,1.03,USD");
    expect(lines).toContain("United States NJ,US,NJ,sales_tax,1,9.34,0.66,0.00,0.66,USD");
    expect(lines.at(-1)).toBe("Total,,,,6,48.31,7.55,2.63,4.92,USD");
    expect(csvRes.headers.get("x-row-count")).toBe(String(lines.length - 1));
    // Summed from the CSV's rows (not its total) and compared with the ledger itself.
    const cents = (s: string) => Math.round(Number(s) * 100);
    const body = lines.slice(1, -1).map((l) => l.split(","));
    const ledger = await row<{ owed: number; collected: number }>(
      "select sum(amount_cents) as owed, sum(case when kind = 'tax' then amount_cents else 0 end) as collected from ledger_entries where account = 'tax' and created_at >= ? and created_at < ?",
      ...monthRange(P),
    );
    expect(body.reduce((n, c) => n + cents(c[8]), 0)).toBe(ledger!.owed);
    expect(body.reduce((n, c) => n + cents(c[6]), 0)).toBe(ledger!.collected);
    expect(cents(lines.at(-1)!.split(",")[8])).toBe(ledger!.owed);
  });

  it("a month with no tax answers an empty report and a CSV with only its total row", async () => {
    const report = await (await getAs(`/api/admin/tax/report?month=1&year=2024`, admin)).json<TaxReport>();
    expect(report.rows).toEqual([]);
    expect(report.total.taxOwedCents).toBe(0);
    const csv = await (await getAs(`/api/admin/tax/report.csv?month=1&year=2024`, admin)).text();
    expect(csv.trim().split("\r\n").at(-1)).toBe("Total,,,,0,0.00,0.00,0.00,0.00,USD");
  });

  it("is the admin's only: 401 signed out, 403 for a creator, on every route; bad months are 400", async () => {
    const paths = [
      "/api/admin/tax/report?month=3&year=2025",
      "/api/admin/tax/report.csv?month=3&year=2025",
      "/api/admin/tax/reconciliation?month=3&year=2025",
      "/api/admin/tax/registrations",
    ];
    for (const p of paths) {
      expect((await call(p)).status, p).toBe(401);
      expect((await getAs(p, creator)).status, p).toBe(403);
    }
    const reread = "/api/admin/tax/reconciliation/reread";
    expect((await postJson(reread, { month: 3, year: 2025 })).status).toBe(401);
    expect((await postJson(reread, { month: 3, year: 2025 }, creator)).status).toBe(403);
    for (const q of ["month=13&year=2025", "month=3", "month=x&year=2025", "month=3&year=1999"]) {
      const res = await getAs(`/api/admin/tax/report?${q}`, admin);
      expect(res.status, q).toBe(400);
    }
    expect((await postJson(reread, { month: "3", year: 2025 }, admin)).status).toBe(400);
    expect((await postJson(reread, { month: 3, year: 2025, after: 7 }, admin)).status).toBe(400);
  });
});

describe("reconciliation with Stripe's tax transactions", () => {
  const P = { year: 2025, month: 5 };
  const [from] = monthRange(P);
  const at = (d: number) => from + d * 86_400_000;
  const orders: Record<string, { id: string; pi: string | null }> = {};

  beforeAll(async () => {
    // Matches: a sale and its refund, one transaction and one reversal at Stripe.
    orders.ok = await taxedSale({ at: at(1), gross: 1200, tax: 200, country: "FR" });
    await reverseTax(orders.ok.id, 50, at(3));
    await stripeTx(orders.ok.id, orders.ok.pi, "transaction", 200, at(1));
    await stripeTx(orders.ok.id, orders.ok.pi, "reversal", -50, at(3));
    // Matches: a main item and its order bump (one PaymentIntent, one transaction for both).
    orders.bumped = await taxedSale({ at: at(2), gross: 1200, tax: 200, country: "DE" });
    await taxedSale({ at: at(2), gross: 600, tax: 100, country: "DE", bumpOf: orders.bumped.id });
    await stripeTx(orders.bumped.id, orders.bumped.pi, "transaction", 300, at(2));
    // Matches across the month's end: booked on the 31st, posted by Stripe on the 1st of June.
    orders.late = await taxedSale({ at: at(30) + 86_000_000, gross: 1200, tax: 200, country: "FR" });
    await stripeTx(orders.late.id, orders.late.pi, "transaction", 200, monthRange({ year: 2025, month: 6 })[0] + 10);
    // Missing at Stripe: tax booked, no transaction.
    orders.missing = await taxedSale({ at: at(4), gross: 1200, tax: 200, country: "FR" });
    // Missing here: Stripe's transaction for an order whose tax the ledger never booked.
    orders.notHere = await taxedSale({ at: at(5), gross: 1000, tax: 90, country: "US", region: "WA", ledger: false });
    await stripeTx(orders.notHere.id, orders.notHere.pi, "transaction", 90, at(5));
    // Amounts differ.
    orders.differs = await taxedSale({ at: at(6), gross: 1200, tax: 200, country: "FR" });
    await stripeTx(orders.differs.id, orders.differs.pi, "transaction", 199, at(6));
    // A lost dispute reversed here whose reversal Stripe does not have.
    orders.disputed = await taxedSale({ at: at(7), gross: 1190, tax: 190, country: "DE" });
    await stripeTx(orders.disputed.id, orders.disputed.pi, "transaction", 190, at(7));
    await reverseTax(orders.disputed.id, 190, at(9), "dispute");
    // Lost: the batch that settled it wrote the reversal request (an open dispute is counted apart).
    await env.DB.prepare(
      "insert into tax_reversal_requests (idempotency_key, purchase_id, payment_intent_id, amount_cents) values (?, ?, ?, 1190)",
    )
      .bind(uid("tax-reversal:"), orders.disputed.id, orders.disputed.pi)
      .run();
  });

  const reconcile = async () => {
    const res = await getAs(`/api/admin/tax/reconciliation?month=5&year=2025`, admin);
    expect(res.status).toBe(200);
    return res.json<TaxReconciliation>();
  };

  it("lists every difference, of each kind, and nothing for orders that match", async () => {
    const r = await reconcile();
    expect(r.ordersChecked).toBe(7);
    expect(r.truncated).toBe(false);
    const seen = r.differences.map((d) => [d.orderId, d.what, d.kind, d.oursCents, d.stripeCents]);
    expect(seen).toEqual(
      expect.arrayContaining([
        [orders.missing.id, "transaction", "missing_at_stripe", 200, null],
        [orders.notHere.id, "transaction", "missing_here", null, 90],
        [orders.differs.id, "transaction", "amounts_differ", 200, 199],
        [orders.disputed.id, "reversal", "missing_at_stripe", -190, null],
      ]),
    );
    expect(seen).toHaveLength(4);
    expect(r.differences.find((d) => d.orderId === orders.notHere.id)?.place).toBe("Washington");
    expect(r.rereadable).toBe(2);
  });

  it("re-reads from Stripe the orders whose record is missing and records them once; a repeat records nothing", async () => {
    // Stripe holds the missing sale's transaction (its Tax Association lists it) and the dispute's
    // reversal we asked for; nothing for any other PaymentIntent.
    const txMissing = uid("tax_");
    const txReversal = uid("tax_");
    await env.DB.prepare(
      "insert into tax_reversal_requests (idempotency_key, purchase_id, payment_intent_id, amount_cents, status, tax_transaction_id) values (?, ?, ?, 1190, 'sent', ?)",
    )
      .bind(uid("dispute:"), orders.disputed.id, orders.disputed.pi, txReversal)
      .run();
    const held: Record<string, { type: "transaction" | "reversal"; reference: string; amount: number; tax: number }> = {
      [txMissing]: { type: "transaction", reference: orders.missing.pi!, amount: 1200, tax: 200 },
      [txReversal]: { type: "reversal", reference: uid("dispute-ref"), amount: -1190, tax: -190 },
    };
    const calls: string[] = [];
    const stripe = {
      tax: {
        associations: {
          find: async ({ payment_intent }: { payment_intent: string }) => {
            calls.push(`find ${payment_intent}`);
            if (payment_intent !== orders.missing.pi)
              throw Object.assign(new Error("No such association"), {
                type: "StripeInvalidRequestError",
                code: "resource_missing",
                statusCode: 404,
              });
            return {
              tax_transaction_attempts: [
                { source: payment_intent, status: "committed", committed: { transaction: txMissing } },
              ],
            };
          },
        },
        transactions: {
          retrieve: async (id: string) => {
            calls.push(`retrieve ${id}`);
            return {
              id,
              type: held[id].type,
              reference: held[id].reference,
              created: at(10) / 1000,
              posted_at: at(10) / 1000,
            };
          },
          listLineItems: async (id: string) => ({
            data: [{ id: `li_${id}`, amount: held[id].amount, amount_tax: held[id].tax }],
            has_more: false,
          }),
        },
      },
    } as unknown as TaxStripe;
    const deps = { db: createDb(env.DB), stripe };
    const first = await rereadMissing(deps, P);
    expect(first).toEqual({ checked: 2, recorded: 2, notAtStripe: [], remaining: 0, lastOrderId: expect.any(String) });
    expect(
      await row("select type, tax_cents, amount_cents, purchase_id from tax_transactions where id = ?", txMissing),
    ).toEqual({
      type: "transaction",
      tax_cents: 200,
      amount_cents: 1200,
      purchase_id: orders.missing.id,
    });
    const r = await reconcile();
    expect(r.differences.map((d) => [d.orderId, d.kind])).toEqual(
      expect.arrayContaining([
        [orders.notHere.id, "missing_here"],
        [orders.differs.id, "amounts_differ"],
      ]),
    );
    expect(r.differences).toHaveLength(2);
    expect(r.rereadable).toBe(0);
    // Pressed again (or a second admin at once): nothing left to look up, nothing recorded twice.
    const again = await Promise.all([rereadMissing(deps, P), rereadMissing(deps, P)]);
    expect(again.map((a) => a.recorded)).toEqual([0, 0]);
    expect((await rows("select id from tax_transactions where id in (?, ?)", txMissing, txReversal)).length).toBe(2);
  });
});

describe("registrations and thresholds", () => {
  // A year of its own, so other tests' sales don't count.
  const NOW = Date.UTC(2027, 5, 15);
  const inYear = (d: number) => Date.UTC(2027, 0, 1) + d * 86_400_000;
  const reg = (id: string, country: string, options: Record<string, unknown>, status = "active") => ({
    id,
    object: "tax.registration",
    country,
    country_options: { [country.toLowerCase()]: options },
    status,
    active_from: Date.UTC(2026, 0, 1) / 1000,
    expires_at: null,
  });
  const registrations = [
    reg("taxreg_fr", "FR", { type: "oss_non_union" }),
    reg("taxreg_gb", "GB", { type: "standard" }),
    reg("taxreg_wa", "US", { type: "state_sales_tax", state: "WA" }),
    reg("taxreg_tx", "US", { type: "state_sales_tax", state: "TX" }),
  ];
  const stripe = {
    tax: { registrations: { list: async () => ({ data: registrations, has_more: false }) } },
  } as unknown as RegistrationsStripe;

  let view: TaxRegistrationsView;
  const rowFor = (key: string) => view.thresholds.find((t) => t.key === key) as TaxThresholdRow;
  beforeAll(async () => {
    // Ohio: $81,000 in 12 months (81 % of $100,000): approaching. Norway: over NOK 50,000 (~$4,600).
    await taxedSale({ at: inYear(10), gross: 8_100_000, tax: 0, country: "US", region: "OH", type: "sales_tax" });
    await taxedSale({ at: inYear(20), gross: 500_000, tax: 0, country: "NO" });
    // New York counts $500,000 AND 100 sales: $600,000 in 2 sales is below.
    await taxedSale({ at: inYear(30), gross: 30_000_000, tax: 0, country: "US", region: "NY", type: "sales_tax" });
    await taxedSale({ at: inYear(31), gross: 30_000_000, tax: 0, country: "US", region: "NY", type: "sales_tax" });
    // Washington is registered whatever its sales.
    await taxedSale({ at: inYear(40), gross: 20_000_000, tax: 0, country: "US", region: "WA", type: "sales_tax" });
    // Two years ago: not counted.
    await taxedSale({ at: Date.UTC(2025, 5, 1), gross: 50_000_000, tax: 0, country: "AU", type: "gst" });
    view = await registrationsAndThresholds({ db: createDb(env.DB), stripe }, NOW);
  });

  it("lists the registrations Stripe holds, by place", () => {
    expect(view.registrations.map((r) => [r.place, r.type, r.status])).toEqual([
      ["France", "oss_non_union", "active"],
      ["Texas", "state_sales_tax", "active"],
      ["United Kingdom", "standard", "active"],
      ["Washington", "state_sales_tax", "active"],
    ]);
  });

  it("marks approaching at 80 %, over at 100 %, and an and-rule below while one measure is under", () => {
    expect(rowFor("US-OH")).toMatchObject({
      status: "approaching",
      registered: false,
      percent: 81,
      salesLast12MonthsCents: 8_100_000,
    });
    expect(rowFor("NO").status).toBe("over");
    expect(rowFor("US-NY")).toMatchObject({
      status: "below",
      transactionsThisYear: 2,
      thresholdText: "$500,000 and 100 transactions",
    });
    expect(rowFor("US-OH").thresholdText).toBe("$100,000 or 200 transactions");
    expect(rowFor("US-WA").status).toBe("registered");
    expect(rowFor("AU")).toMatchObject({ status: "below", salesLast12MonthsCents: 0 });
    // The most pressing first.
    expect(view.thresholds[0].status).toBe("over");
  });

  it("says the EU and the UK need registration from the first sale for a seller outside them; the OSS covers the EU", () => {
    expect(rowFor("EU")).toMatchObject({ status: "registered", thresholdText: "None for sellers outside the EU" });
    expect(rowFor("EU").note).toContain("established in the EU only");
    expect(rowFor("GB").status).toBe("registered");
  });

  it("counts Switzerland's CHF 100,000 on sales worldwide, once ApeWall sells there", async () => {
    // $886,000 worldwide this year, none in Switzerland: no registration due yet.
    expect(rowFor("CH")).toMatchObject({ status: "below", thresholdText: "CHF 100,000 (worldwide sales)" });
    expect(rowFor("CH").percent).toBeGreaterThan(100);
    await taxedSale({ at: inYear(60), gross: 1000, tax: 0, country: "CH" });
    const after = await registrationsAndThresholds({ db: createDb(env.DB), stripe }, NOW);
    expect(after.thresholds.find((t) => t.key === "CH")?.status).toBe("over");
  });

  it("without an OSS registration the EU is over from the first sale, and 'Required from the first sale' before one", async () => {
    const none = {
      tax: { registrations: { list: async () => ({ data: [], has_more: false }) } },
    } as unknown as RegistrationsStripe;
    const before = await registrationsAndThresholds(
      { db: createDb(env.DB), stripe: none },
      Date.UTC(2030, 0, 1) + 365 * 86_400_000,
    );
    expect(before.thresholds.find((t) => t.key === "EU")?.status).toBe("first_sale");
    await taxedSale({ at: inYear(50), gross: 1200, tax: 0, country: "FR", type: "vat" });
    const after = await registrationsAndThresholds({ db: createDb(env.DB), stripe: none }, NOW);
    expect(after.thresholds.find((t) => t.key === "EU")?.status).toBe("over");
  });
});

describe("through the Stripe stand-in", () => {
  const stripe = () => stripeClient(env as never);
  /** Polls Stripe's Tax Association until it lists `n` committed attempts (Stripe records them in its own time). */
  async function attempts(pi: string, n: number) {
    for (let i = 0; i < 40; i++) {
      const a = await stripe().tax.associations.find({ payment_intent: pi });
      if ((a.tax_transaction_attempts ?? []).filter((t) => t.status === "committed").length >= n) return;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`no ${n} committed tax transactions for ${pi}`);
  }

  it("re-reads a paid and partly refunded order's transaction and reversal from Stripe's Tax Association; then everything matches", async () => {
    const calc = await stripe().tax.calculations.create({
      currency: "usd",
      line_items: [{ amount: 1200, reference: "L1", tax_behavior: "inclusive", tax_code: "txcd_10000000" }],
      customer_details: { address: { country: "FR" }, address_source: "billing" },
    });
    const intent = await stripe().paymentIntents.create({
      amount: calc.amount_total,
      currency: "usd",
      allowed_payment_method_types: ["card"],
      hooks: { inputs: { tax: { calculation: calc.id! } } },
    });
    await stripe().paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
    await attempts(intent.id, 1);
    await stripe().refunds.create({ payment_intent: intent.id, amount: 600 });
    await attempts(intent.id, 2);

    // Our side of it: the sale's tax and half of it reversed by the refund; nothing of Stripe's recorded yet.
    const now = Date.now();
    const id = uid("tp");
    await env.DB.batch([
      env.DB.prepare(
        "insert into purchases (id, content_id, creator_id, amount_cents, tax_cents, status, payment_intent_id, paid_at) values (?, ?, ?, 1200, 200, 'paid', ?, ?)",
      ).bind(id, itemId, creatorId, intent.id, now),
      env.DB.prepare(
        "insert into purchase_taxes (purchase_id, country, tax_type, inclusive, net_cents, tax_cents, evidence) values (?, 'FR', 'vat', 1, 1000, 200, '{}')",
      ).bind(id),
      env.DB.prepare(
        "insert into ledger_entries (idempotency_key, account, kind, amount_cents, purchase_id, created_at) values (?, 'tax', 'tax', 200, ?, ?)",
      ).bind(`sale:${id}:tax`, id, now),
    ]);
    await reverseTax(id, 100, now);
    const month = { month: new Date(now).getUTCMonth() + 1, year: new Date(now).getUTCFullYear() };
    const q = `month=${month.month}&year=${month.year}`;
    const before = await (await getAs(`/api/admin/tax/reconciliation?${q}`, admin)).json<TaxReconciliation>();
    expect(before.differences.filter((d) => d.orderId === id).map((d) => [d.what, d.kind])).toEqual([
      ["transaction", "missing_at_stripe"],
      ["reversal", "missing_at_stripe"],
    ]);

    const res = await postJson("/api/admin/tax/reconciliation/reread", month, admin);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ recorded: 2, notAtStripe: [], remaining: 0, lastOrderId: id });
    expect(
      await rows(
        "select type, reference, amount_cents, tax_cents from tax_transactions where purchase_id = ? order by type",
        id,
      ),
    ).toEqual([
      { type: "reversal", reference: expect.stringMatching(/^re_/), amount_cents: -600, tax_cents: -100 },
      { type: "transaction", reference: intent.id, amount_cents: 1200, tax_cents: 200 },
    ]);
    const after = await (await getAs(`/api/admin/tax/reconciliation?${q}`, admin)).json<TaxReconciliation>();
    expect(after.differences.filter((d) => d.orderId === id)).toEqual([]);
    const again = await postJson("/api/admin/tax/reconciliation/reread", month, admin);
    expect(await again.json()).toMatchObject({ checked: 0, recorded: 0 });
  });

  it("lists ApeWall's demo registrations, and Ohio and Switzerland as not registered", async () => {
    const res = await getAs("/api/admin/tax/registrations", admin);
    expect(res.status).toBe(200);
    const v = await res.json<TaxRegistrationsView>();
    expect(v.registrations.map((r) => r.place)).toEqual(
      expect.arrayContaining([
        "Ireland",
        "United Kingdom",
        "Norway",
        "Australia",
        "Canada",
        "Washington",
        "Texas",
        "New York",
        "Pennsylvania",
      ]),
    );
    const status = Object.fromEntries(v.thresholds.map((t) => [t.key, t.registered]));
    expect(status).toMatchObject({
      EU: true,
      GB: true,
      NO: true,
      AU: true,
      CA: true,
      "US-WA": true,
      "US-NY": true,
      "US-OH": false,
      CH: false,
      "US-UT": false,
    });
  });
});
