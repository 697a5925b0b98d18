// The Stripe contract for refunds and disputes: refunds listed page by page, what a refund takes from
// the balance, and the stand-in's refunds and disputes moving its balance as Stripe's do.
// Scenarios `describe.each(targets)` run against the local stand-in and, when STRIPE_TEST_SECRET_KEY is
// set, against real Stripe test mode (support.ts); the others play what only the stand-in can.
import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { ownStandin, targets } from "./support";

describe.each(targets)("refunds scenario against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "partial refunds listed page by page; a charge carries them only when expanded; no disputes",
    async () => {
      const stripe = client();
      const intent = await stripe.paymentIntents.create({
        amount: 2000,
        currency: "usd",
        automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      });
      const paid = await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
      const chargeId = paid.latest_charge as string;
      const made: string[] = [];
      for (let i = 0; i < 3; i++) made.push((await stripe.refunds.create({ charge: chargeId, amount: 100 })).id);
      expect((await stripe.charges.retrieve(chargeId)).refunds).toBeUndefined();
      const firstPage = await stripe.refunds.list({ charge: chargeId, limit: 2 });
      expect([firstPage.data.length, firstPage.has_more]).toEqual([2, true]);
      const all = await stripe.refunds.list({ charge: chargeId, limit: 2 }).autoPagingToArray({ limit: 10 });
      expect(all.map((r) => r.id).sort()).toEqual([...made].sort());
      expect(all.every((r) => r.status === "succeeded" && r.amount === 100)).toBe(true);
      expect((await stripe.charges.retrieve(chargeId)).amount_refunded).toBe(300);
      expect((await stripe.disputes.list({ charge: chargeId })).data).toEqual([]);
    },
  );
});

describe.each(targets)("refund balance against %s", (_name, client, enabled) => {
  it.runIf(enabled)(
    "a refund takes its amount out of the balance by a negative balance transaction of type refund",
    async () => {
      const stripe = client();
      const availableUsd = (b: Stripe.Balance) => b.available.find((x) => x.currency === "usd")?.amount ?? 0;
      // The 0077 card puts its funds in the available balance at once, so the refund is taken from there.
      const paid = await stripe.paymentIntents.create({
        amount: 3000,
        currency: "usd",
        allowed_payment_method_types: ["card"],
        payment_method: "pm_card_bypassPending",
        confirm: true,
      });
      const before = availableUsd(await stripe.balance.retrieve());
      const refund = await stripe.refunds.create({ payment_intent: paid.id, amount: 1200 });
      expect(typeof refund.balance_transaction).toBe("string");
      const txn = await stripe.balanceTransactions.retrieve(refund.balance_transaction as string);
      expect(txn).toMatchObject({
        object: "balance_transaction",
        type: "refund",
        amount: -1200,
        net: -1200,
        source: refund.id,
      });
      expect(availableUsd(await stripe.balance.retrieve())).toBe(before - 1200);
    },
  );
});

describe("the stand-in's refunds and disputes move its balance as Stripe's do", () => {
  it("a pending refund is taken at once; one that fails later comes back by its failure_balance_transaction and leaves the charge unrefunded", async () => {
    const { standin, stripe, post, pay, balance } = await ownStandin();
    const { charge } = await pay(4000, "4000000000007726");
    const start = await balance();
    const pending = await stripe.refunds.create({ charge, amount: 1500 });
    expect(pending.status).toBe("pending");
    expect(await stripe.balanceTransactions.retrieve(pending.balance_transaction as string)).toMatchObject({
      type: "refund",
      amount: -1500,
    });
    expect(await balance()).toBe(start - 1500);
    expect(await stripe.charges.retrieve(charge)).toMatchObject({ amount_refunded: 1500, refunded: false });
    expect((await post(`/_standin/refunds/${pending.id}/settle`, { outcome: "failed" })).status).toBe(200);
    const failed = await stripe.refunds.retrieve(pending.id);
    expect(failed).toMatchObject({ status: "failed", failure_reason: expect.any(String) });
    expect(await stripe.balanceTransactions.retrieve(failed.failure_balance_transaction as string)).toMatchObject({
      amount: 1500,
      reporting_category: "refund_failure",
      source: pending.id,
    });
    expect(await balance()).toBe(start);
    const after = await stripe.charges.retrieve(charge, { expand: ["refunds"] });
    expect(after).toMatchObject({ amount_refunded: 0, refunded: false });
    expect(after.refunds?.data.map((r) => [r.id, r.status])).toEqual([[pending.id, "failed"]]);
    // Its amount can be refunded again, in full, and then the charge is refunded and refuses more.
    await stripe.refunds.create({ charge });
    expect(await stripe.charges.retrieve(charge)).toMatchObject({ amount_refunded: 4000, refunded: true });
    await expect(stripe.refunds.create({ charge, amount: 1 })).rejects.toMatchObject({
      code: "charge_already_refunded",
    });
    await standin.close();
  });

  it("a chargeback withdraws the disputed amount and Stripe's $15 dispute fee, a won dispute reinstates both; an inquiry moves nothing until it escalates", async () => {
    const { standin, stripe, post, pay, balance } = await ownStandin();
    const lost = await pay(2500);
    const start = await balance();
    const chargeback = await post<Stripe.Dispute>(`/_standin/charges/${lost.charge}/dispute`);
    expect(chargeback.body.status).toBe("needs_response");
    expect(chargeback.body.balance_transactions).toMatchObject([
      {
        object: "balance_transaction",
        type: "adjustment",
        reporting_category: "dispute",
        amount: -2500,
        fee: 1500,
        net: -4000,
        source: chargeback.body.id,
      },
    ]);
    expect(chargeback.body.balance_transactions[0].fee_details).toMatchObject([{ amount: 1500, type: "stripe_fee" }]);
    expect(await balance()).toBe(start - 4000);
    await expect(stripe.refunds.create({ charge: lost.charge })).rejects.toMatchObject({ code: "charge_disputed" });
    await post(`/_standin/disputes/${chargeback.body.id}/close`, { outcome: "lost" });
    expect((await stripe.disputes.retrieve(chargeback.body.id)).balance_transactions).toHaveLength(1);
    expect(await balance()).toBe(start - 4000);

    const won = await pay(1000);
    // The charge adds its net: the amount less Stripe's processing fee.
    const wonCharge = await stripe.charges.retrieve(won.charge, { expand: ["balance_transaction"] });
    const wonNet = (wonCharge.balance_transaction as Stripe.BalanceTransaction).net;
    expect(wonNet).toBeLessThan(1000);
    const inquiry = await post<Stripe.Dispute>(`/_standin/charges/${won.charge}/dispute`, { inquiry: "true" });
    expect(inquiry.body).toMatchObject({ status: "warning_needs_response", balance_transactions: [] });
    expect(await balance()).toBe(start - 4000 + wonNet);
    await post(`/_standin/disputes/${inquiry.body.id}/escalate`);
    expect(await balance()).toBe(start - 4000 + wonNet - 2500);
    await post(`/_standin/disputes/${inquiry.body.id}/close`, { outcome: "won" });
    const closed = await stripe.disputes.retrieve(inquiry.body.id);
    expect(closed.status).toBe("won");
    expect(closed.balance_transactions.map((t) => [t.amount, t.fee, t.reporting_category])).toEqual([
      [-1000, 1500, "dispute"],
      [1000, -1500, "dispute_reversal"],
    ]);
    for (const t of closed.balance_transactions)
      expect(await stripe.balanceTransactions.retrieve(t.id)).toMatchObject({
        id: t.id,
        amount: t.amount,
        fee: t.fee,
        net: t.net,
      });
    expect(await balance()).toBe(start - 4000 + wonNet);
    expect((await stripe.disputes.list({ charge: won.charge })).data.map((d) => d.id)).toEqual([inquiry.body.id]);
    await standin.close();
  });
});
