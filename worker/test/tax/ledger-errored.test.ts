// Review of the tax ledger: a taxed order whose payment Stripe could not commit as a tax transaction
// (its calculation expired before the payment succeeded). Stripe makes no reversal for its refunds
// ("Refunds on this payment won't affect the tax transaction"), so the refund's webhook must not
// wait for one: answered 200, the refund booked, nothing recorded. docs/tax.md ("Ledger and reversals").
import { describe, expect, it } from "vitest";
import { CARDS, confirmAsStripeJs, deliver, eventFor, postJson, row, rows, standin, env } from "../support/helpers";
import { creatorWithItem, netOf, sideOf, taxTransactionsOf } from "./tax-fixtures";

const REFUND_EVENTS = ["charge.refunded", "refund.created", "refund.updated", "charge.refund.updated"];

/** A French consumer's taxed checkout whose calculation expires before the buyer pays. */
async function taxedSaleWithExpiredCalculation(contentId: string) {
  const res = await postJson("/api/create-payment-intent", { contentId, bump: false, buyerEmail: "" });
  expect(res.status).toBe(200);
  const { clientSecret } = await res.json<{ clientSecret: string }>();
  const paymentIntent = clientSecret.split("_secret_")[0];
  const p = (await row<{ id: string; amount_cents: number }>(
    "select id, amount_cents from purchases where payment_intent_id = ?",
    paymentIntent,
  ))!;
  const calc = await standin<{ id: string }>("POST", "/v1/tax/calculations", {
    currency: "usd",
    "line_items[0][amount]": String(p.amount_cents),
    "line_items[0][reference]": p.id,
    "line_items[0][tax_behavior]": "inclusive",
    "line_items[0][tax_code]": "txcd_10000000",
    "customer_details[address][country]": "FR",
    "customer_details[address_source]": "billing",
  });
  expect(calc.status).toBe(200);
  const attach = await standin("POST", `/v1/payment_intents/${paymentIntent}`, {
    "hooks[inputs][tax][calculation]": calc.body.id,
  });
  expect(attach.status).toBe(200);
  const tax = Math.round((p.amount_cents * 20) / 120);
  await env.DB.batch([
    env.DB.prepare("update purchases set tax_cents = ? where id = ?").bind(tax, p.id),
    env.DB.prepare(
      `insert into purchase_taxes (purchase_id, calculation_id, country, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence)
       values (?, ?, 'FR', 'vat', '20.0', 'standard_rated', 1, ?, ?, '{}')`,
    ).bind(p.id, calc.body.id, p.amount_cents - tax, tax),
  ]);
  // The calculation expires before the payment succeeds: Stripe's attempt to commit it errors.
  expect((await standin("POST", `/_standin/tax/calculations/${calc.body.id}/expire`)).status).toBe(200);
  expect((await confirmAsStripeJs(clientSecret, CARDS.ok, { receipt_email: "fr@example.com" })).status).toBe(200);
  const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
    .latest_charge;
  return { paymentIntent, purchaseId: p.id, charge };
}

describe("a taxed order whose tax transaction Stripe could not commit", () => {
  it("its payment and its refund's webhooks are answered 200; the refund is booked and no reversal awaited", async () => {
    const { itemId } = await creatorWithItem("review-ledger-errored@example.com", "10");
    const sale = await taxedSaleWithExpiredCalculation(itemId);
    const association = await standin<{ tax_transaction_attempts: { source: string; status: string }[] }>(
      "GET",
      "/v1/tax/associations/find",
      { payment_intent: sale.paymentIntent },
    );
    expect(association.body.tax_transaction_attempts).toMatchObject([
      { source: sale.paymentIntent, status: "errored" },
    ]);
    expect((await deliver(await eventFor("payment_intent.succeeded", sale.paymentIntent))).status).toBe(200);
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 666, platform: 167, tax: 167 });

    const refund = await standin<{ id: string }>("POST", "/v1/refunds", { charge: sale.charge, amount: "400" });
    expect(refund.status).toBe(200);
    const re = refund.body.id;
    type Ev = { id: string; type: string; data: { object: { id: string; charge?: string } } };
    const { body } = await standin<{ data: Ev[] }>("GET", "/v1/events", { limit: "100" });
    const events = body.data
      .filter((e) => REFUND_EVENTS.includes(e.type) && [e.data.object.id, e.data.object.charge].includes(re))
      .concat(body.data.filter((e) => e.type === "charge.refunded" && e.data.object.id === sale.charge))
      .reverse();
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect((await deliver(e)).status, e.type).toBe(200);
    // Marked handled: Stripe will not deliver them again and again.
    const handled = await rows<{ processed_at: number | null }>(
      `select processed_at from webhook_events where id in (${events.map(() => "?").join(", ")})`,
      ...events.map((e) => e.id),
    );
    expect(handled.every((h) => h.processed_at !== null)).toBe(true);
    expect(await sideOf(`refund:${re}`)).toEqual({ creator: -266, platform: -67, tax: -67 });
    expect(await taxTransactionsOf(sale.paymentIntent)).toEqual([]);
  });
});
