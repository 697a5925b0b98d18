// Disputes of a taxed sale: a chargeback takes creator, platform and tax back at once; Stripe
// reverses no tax for a dispute, so a lost one writes a reversal request in the batch that settles
// it and sends it to Stripe with its key as the Idempotency-Key (once, retried when Stripe cannot be
// reached); a won dispute gives all three back and asks for nothing. docs/tax.md.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { purchaseDepsOf } from "../../deps";
import { handleDisputeEvent } from "../../services/purchases/settle";
import { createDb } from "../../db/client";
import { reconcileTax } from "../../services/tax/reconcile";
import { deliverTaxReversals } from "../../services/tax/reversals";
import { call, contentForm, env, postForm, row, rows, standin } from "../support/helpers";
import { creatorWithItem, deliverAllOf, netOf, sideOf, taxedSale, taxTransactionsOf } from "./tax-fixtures";

const DISPUTE_EVENTS = [
  "charge.dispute.created",
  "charge.dispute.updated",
  "charge.dispute.funds_withdrawn",
  "charge.dispute.funds_reinstated",
  "charge.dispute.closed",
];

type Request = {
  idempotency_key: string;
  amount_cents: number;
  status: string;
  attempts: number;
  last_error: string | null;
  tax_transaction_id: string | null;
};
const requestsOf = (purchaseId: string) =>
  rows<Request>("select * from tax_reversal_requests where purchase_id = ? order by created_at", purchaseId);

async function disputed(email: string) {
  const { itemId } = await creatorWithItem(email, "10");
  const sale = await taxedSale(itemId);
  const dp = (await standin<{ id: string }>("POST", `/_standin/charges/${sale.charge}/dispute`)).body.id;
  await deliverAllOf(DISPUTE_EVENTS, [sale.charge, dp]);
  return { sale, dp };
}

describe("a dispute of a taxed sale", () => {
  it("lost: the ledger takes all three back, and the tax reversal is asked of Stripe once, under its key", async () => {
    const { sale, dp } = await disputed("tax-dispute-lost@example.com");
    // Funds withdrawn: the sale is taken back at once, tax too; nothing asked of Stripe while it may be won.
    expect(await sideOf(`dispute:${dp}`)).toEqual({ creator: -666, platform: -167, tax: -167 });
    expect(await requestsOf(sale.purchaseId)).toEqual([]);

    await standin("POST", `/_standin/disputes/${dp}/close`, { outcome: "lost" });
    await deliverAllOf(DISPUTE_EVENTS, [dp]);
    const [request] = await requestsOf(sale.purchaseId);
    expect(request).toMatchObject({
      idempotency_key: `tax-reversal:${dp}`,
      amount_cents: 1000,
      status: "sent",
      attempts: 1,
      last_error: null,
    });
    const reversal = (await taxTransactionsOf(sale.paymentIntent)).find((t) => t.type === "reversal")!;
    expect(reversal).toMatchObject({
      id: request.tax_transaction_id,
      reference: `tax-reversal:${dp}`,
      amount_cents: -1000,
      tax_cents: -167,
    });
    // The stand-in answers the same key with the same reversal: it was sent under it.
    const original = (await taxTransactionsOf(sale.paymentIntent)).find((t) => t.type === "transaction")!;
    // (Without the key Stripe would refuse the reference as taken.)
    const replay = await purchaseDepsOf(env as never).stripe.tax.transactions.createReversal(
      {
        mode: "partial",
        original_transaction: original.id,
        reference: `tax-reversal:${dp}`,
        flat_amount: -1000,
        metadata: { purchaseId: sale.purchaseId },
      },
      { idempotencyKey: `tax-reversal:${dp}` },
    );
    expect(replay.id).toBe(reversal.id);

    // Every event again, and the sweep: nothing more.
    await deliverAllOf(DISPUTE_EVENTS, [sale.charge, dp]);
    expect(await deliverTaxReversals(purchaseDepsOf(env as never), Date.now() + 3600_000)).toEqual({
      sent: 0,
      failed: 0,
    });
    expect(await requestsOf(sale.purchaseId)).toHaveLength(1);
    expect((await taxTransactionsOf(sale.paymentIntent)).filter((t) => t.type === "reversal")).toHaveLength(1);
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 0, platform: 0, tax: 0 });
    // The ledger's tax and Stripe's transactions agree: the admin's reconciliation finds nothing.
    const d = new Date();
    const check = await reconcileTax(createDb(env.DB), { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 });
    expect(check.differences.filter((x) => x.orderId === sale.purchaseId)).toEqual([]);
  });

  it("a reversal Stripe cannot take now is kept on its row and sent by the sweep after its backoff", async () => {
    const { sale, dp } = await disputed("tax-dispute-retry@example.com");
    await standin("POST", `/_standin/disputes/${dp}/close`, { outcome: "lost" });
    // Stripe unreachable for the reversal (a port nothing listens on), reachable for the rest.
    const deps = purchaseDepsOf(env as never);
    const dead = new Stripe("sk_test_worker", {
      host: "127.0.0.1",
      port: 9,
      protocol: "http",
      httpClient: Stripe.createFetchHttpClient(),
      maxNetworkRetries: 0,
    });
    deps.stripe.tax.transactions.createReversal = dead.tax.transactions.createReversal.bind(dead.tax.transactions);
    await handleDisputeEvent(deps, dp);
    const [failed] = await requestsOf(sale.purchaseId);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, tax_transaction_id: null });
    expect(failed.last_error).toBeTruthy();
    expect((await taxTransactionsOf(sale.paymentIntent)).filter((t) => t.type === "reversal")).toEqual([]);

    const good = purchaseDepsOf(env as never);
    // Attempt 2 waits a minute after the request.
    expect(await deliverTaxReversals(good, Date.now())).toEqual({ sent: 0, failed: 0 });
    expect(await deliverTaxReversals(good, Date.now() + 61_000)).toEqual({ sent: 1, failed: 0 });
    expect(await requestsOf(sale.purchaseId)).toMatchObject([{ status: "sent", attempts: 2, last_error: null }]);
    expect((await taxTransactionsOf(sale.paymentIntent)).filter((t) => t.type === "reversal")).toMatchObject([
      { amount_cents: -1000, tax_cents: -167 },
    ]);
  });

  it("won: all three come back and no reversal is asked for", async () => {
    const { sale, dp } = await disputed("tax-dispute-won@example.com");
    await standin("POST", `/_standin/disputes/${dp}/close`, { outcome: "won" });
    await deliverAllOf(DISPUTE_EVENTS, [dp]);
    expect(await sideOf(`dispute-won:${dp}`)).toEqual({ creator: 666, platform: 167, tax: 167 });
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 666, platform: 167, tax: 167 });
    expect(await requestsOf(sale.purchaseId)).toEqual([]);
    expect((await row<{ status: string }>("select status from purchases where id = ?", sale.purchaseId))!.status).toBe(
      "paid",
    );
  });
});

describe("a lost dispute of a taxed order with its order bump", () => {
  it("takes both purchases back and asks for one reversal of the whole order", async () => {
    const { cookie, itemId } = await creatorWithItem("tax-dispute-bump@example.com", "10");
    const add = await postForm(
      "/api/content",
      contentForm({ title: "Workbook", price: "12", accessType: "link", linkUrl: "https://example.com/wb" }),
      cookie,
    );
    const addOn = (await add.json<{ id: string }>()).id;
    const put = await call(`/api/content/${itemId}/bump`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contentId: addOn, price: "4" }),
      cookie,
    });
    expect(put.status).toBe(200);
    const sale = await taxedSale(itemId, { bump: true });
    const dp = (await standin<{ id: string }>("POST", `/_standin/charges/${sale.charge}/dispute`)).body.id;
    await standin("POST", `/_standin/disputes/${dp}/close`, { outcome: "lost" });
    await deliverAllOf(DISPUTE_EVENTS, [sale.charge, dp]);
    expect(await netOf(sale.purchaseId)).toEqual({ creator: 0, platform: 0, tax: 0 });
    expect(await netOf(sale.bumpId!)).toEqual({ creator: 0, platform: 0, tax: 0 });
    expect(await requestsOf(sale.purchaseId)).toMatchObject([
      { idempotency_key: `tax-reversal:${dp}`, amount_cents: 1400, status: "sent" },
    ]);
    expect((await taxTransactionsOf(sale.paymentIntent)).map((t) => [t.type, t.amount_cents, t.tax_cents])).toEqual([
      ["transaction", 1400, 234],
      ["reversal", -1400, -234],
    ]);
  });
});
