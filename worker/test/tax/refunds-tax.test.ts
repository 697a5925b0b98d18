// Refunds of a taxed sale: the gross goes back to the buyer, and creator, platform and tax each give
// back their share in proportion (the last refund exactly what is left); Stripe reverses the tax of
// each refund itself and we record its reversal; the quote says the creator's share of the net; a
// withdrawal never takes the tax. docs/tax.md ("Ledger and reversals").
import { describe, expect, it } from "vitest";
import { creatorBalance } from "../../services/balances";
import { createDb } from "../../db/client";
import { newId } from "../../lib/ids";
import { prepareStatements } from "../../services/payouts/prepare";
import { reconcileTax } from "../../services/tax/reconcile";
import { call, connectedAccount, deliver, env, eventFor, postJson, row, standin } from "../support/helpers";
import { creatorWithItem, deliverAllOf, netOf, sideOf, taxedSale, taxTransactionsOf } from "./tax-fixtures";

const REFUND_EVENTS = ["charge.refunded", "refund.created", "refund.updated", "charge.refund.updated"];

async function stripeRefund(charge: string, amount?: number) {
  const res = await standin<{ id: string; status: string }>("POST", "/v1/refunds", {
    charge,
    ...(amount ? { amount: String(amount) } : {}),
  });
  expect(res.status).toBe(200);
  return res.body.id;
}

const quote = async (purchaseId: string, cents: number, cookie: string) =>
  (await call(`/api/sales/${purchaseId}/refund-quote?amountCents=${cents}`, { cookie })).json<{
    amount: number;
    leavesBalance: number;
  }>();

describe("refunding a taxed sale", () => {
  it("a full refund gives back all three accounts and records Stripe's reversal of the tax", async () => {
    const { itemId, cookie } = await creatorWithItem("tax-refund-full@example.com", "10");
    const sale = await taxedSale(itemId);
    // The dialog: the buyer gets $10 back, the creator's balance gives its $6.66 share of the net.
    expect(await quote(sale.purchaseId, 1000, cookie)).toEqual({ amount: 10, leavesBalance: 6.66 });
    const re = await stripeRefund(sale.charge);
    await deliverAllOf(REFUND_EVENTS, [sale.charge, re]);
    expect(await sideOf(`refund:${re}`)).toEqual({ creator: -666, platform: -167, tax: -167 });
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 0, platform: 0, tax: 0 });
    expect((await row<{ status: string }>("select status from purchases where id = ?", sale.purchaseId))!.status).toBe(
      "refunded",
    );
    expect(await taxTransactionsOf(sale.paymentIntent)).toMatchObject([
      { type: "transaction", reference: sale.paymentIntent, amount_cents: 1000, tax_cents: 167 },
      { type: "reversal", reference: re, amount_cents: -1000, tax_cents: -167 },
    ]);
    // Again: nothing more.
    await deliverAllOf(REFUND_EVENTS, [sale.charge, re]);
    expect(await taxTransactionsOf(sale.paymentIntent)).toHaveLength(2);
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 0, platform: 0, tax: 0 });
  });

  it("partial refunds take each account's share in proportion, and the last exactly what is left", async () => {
    const { itemId, cookie } = await creatorWithItem("tax-refund-part@example.com", "10");
    const sale = await taxedSale(itemId);
    expect(await quote(sale.purchaseId, 300, cookie)).toEqual({ amount: 3, leavesBalance: 2 });
    const re1 = await stripeRefund(sale.charge, 300);
    await deliverAllOf(REFUND_EVENTS, [re1]);
    // $3 of $10: 3/10 of 666, of 167 (tax) and the rest to the platform.
    expect(await sideOf(`refund:${re1}`)).toEqual({ creator: -200, platform: -50, tax: -50 });
    expect(await quote(sale.purchaseId, 700, cookie)).toEqual({ amount: 7, leavesBalance: 4.66 });
    const re2 = await stripeRefund(sale.charge, 700);
    await deliverAllOf(REFUND_EVENTS, [re2]);
    expect(await sideOf(`refund:${re2}`)).toEqual({ creator: -466, platform: -117, tax: -117 });
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 0, platform: 0, tax: 0 });
    const tx = await taxTransactionsOf(sale.paymentIntent);
    expect(tx.filter((t) => t.type === "reversal").map((t) => [t.reference, t.amount_cents])).toEqual(
      expect.arrayContaining([
        [re1, -300],
        [re2, -700],
      ]),
    );
    // Stripe's reversals and the ledger's tax account agree to the cent: the admin's reconciliation finds nothing.
    expect(tx.reduce((a, t) => a + t.tax_cents, 0)).toBe(0);
    const d = new Date();
    const check = await reconcileTax(createDb(env.DB), { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 });
    expect(check.differences.filter((x) => x.orderId === sale.purchaseId)).toEqual([]);
  });

  it("two partial refunds settled at the same instant never take more than the sale, on any account", async () => {
    const { itemId } = await creatorWithItem("tax-refund-two@example.com", "10");
    const sale = await taxedSale(itemId);
    const [a, b] = [await stripeRefund(sale.charge, 450), await stripeRefund(sale.charge, 550)];
    const events = await Promise.all([eventFor("refund.created", a), eventFor("refund.created", b)]);
    const answers = await Promise.all(events.map((e) => deliver(e)));
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const sides = [await sideOf(`refund:${a}`), await sideOf(`refund:${b}`)];
    for (const s of sides) expect(s.creator + s.platform + s.tax).toBeLessThan(0);
    expect(sides[0].creator + sides[0].platform + sides[0].tax).toBe(-450);
    expect(sides[1].creator + sides[1].platform + sides[1].tax).toBe(-550);
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 0, platform: 0, tax: 0 });
  });

  it("a refund and a withdrawal at the same instant: the withdrawal takes the creator's share at most, never the tax", async () => {
    const { itemId, cookie, creatorId } = await creatorWithItem("tax-refund-withdraw@example.com", "100");
    await env.DB.prepare(
      "insert into payout_settings (user_id, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, ?, 1, 1)",
    )
      .bind(creatorId, await connectedAccount())
      .run();
    const sale = await taxedSale(itemId);
    // $100 with $16.67 VAT: the creator's share is 80% of $83.33. Past its hold.
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 6666, platform: 1667, tax: 1667 });
    await env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
      .bind(10 * 86400_000, sale.purchaseId)
      .run();
    const db = createDb(env.DB);
    expect((await creatorBalance(db, creatorId)).availableCents).toBe(6666);
    const now = Date.now();
    const payoutId = newId();
    const [refunded, prepared] = await Promise.all([
      postJson(`/api/sales/${sale.purchaseId}/refund`, { reason: "requested_by_customer" }, cookie),
      env.DB.batch(
        prepareStatements(
          env.DB,
          payoutId,
          creatorId,
          { method: "bank", email: null, stripeAccountId: null },
          { year: new Date(now).getUTCFullYear(), month: new Date(now).getUTCMonth() + 1 },
          now,
          "withdrawal",
        ),
      ),
    ]);
    expect(refunded.status).toBe(200);
    const payout = await row<{ amount_cents: number }>("select amount_cents from payouts where id = ?", payoutId);
    // Whichever came first, the withdrawal took the creator's $66.66 or nothing: never the tax.
    expect([null, 6666]).toContain(payout?.amount_cents ?? null);
    expect(prepared).toBeDefined();
    await deliverAllOf(REFUND_EVENTS, [sale.charge]);
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 0, platform: 0, tax: 0 });
    const balance = await creatorBalance(db, creatorId);
    // A refund after the withdrawal leaves the creator carrying their share, and no more.
    expect(balance.carriedNegativeCents).toBe(payout ? 6666 : 0);
  });

  it("events out of order and again: a refund heard before the payment ends the same", async () => {
    const { itemId } = await creatorWithItem("tax-refund-order@example.com", "10");
    const sale = await taxedSale(itemId, { deliverSucceeded: false });
    const re = await stripeRefund(sale.charge, 400);
    await deliverAllOf(REFUND_EVENTS, [sale.charge, re]);
    expect((await deliver(await eventFor("payment_intent.succeeded", sale.paymentIntent))).status).toBe(200);
    await deliverAllOf(REFUND_EVENTS, [sale.charge, re]);
    // $4 of $10: the rest stands.
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 666 - 266, platform: 167 - 67, tax: 167 - 67 });
    expect((await taxTransactionsOf(sale.paymentIntent)).map((t) => [t.type, t.amount_cents])).toEqual([
      ["transaction", 1000],
      ["reversal", -400],
    ]);
    expect(await row("select number from tax_invoices where purchase_id = ?", sale.purchaseId)).not.toBeNull();
  });
});
