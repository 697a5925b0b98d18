// Review of the tax ledger: the ledger books the tax Stripe charged and commits. A server confirm
// whose billing address moves the checkout to another place at the same total (inclusive prices: FR
// 20 % -> DE 19 %) writes the new tax to the rows before it confirms; when that confirm never reaches
// Stripe and the buyer then pays straight with the client secret, the PaymentIntent still carries the
// first calculation. Fulfilment checked amounts, not tax, so the sale was booked with the rows' tax
// (160) while Stripe committed 167: 7 cents of tax on the creator and the platform. Now fulfilment
// takes the tax of the calculation the payment carried. docs/tax.md ("Ledger and reversals").
// (Since the confirm sets a new calculation on the PaymentIntent with its amount before it confirms,
// this path no longer parts them: Stripe commits the rows' 160, and the ledger books that.)
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { purchaseDepsOf } from "../../deps";
import { confirmCheckout } from "../../services/purchases/server-confirm";
import { creatorWithItem } from "../payments/payment-fixtures";
import { CARDS, confirmAsStripeJs, deliver, env, eventFor, row } from "../support/helpers";
import { billingToken, intentOf, openAt, purchaseRow, taxRowOf } from "./tax-support";
import { netOf, taxTransactionsOf } from "./tax-fixtures";

describe("a sale paid with another calculation than its rows name", () => {
  it("books the tax Stripe committed, never the rows' stale figure", async () => {
    const { item } = await creatorWithItem("review-ledger-charged@example.com");
    const c = await openAt("FR", { contentId: item.id });
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p).toMatchObject({ amount_cents: 1000, tax_cents: 167 });
    // The confirm's call to Stripe is lost (a port nothing listens on); the rows already moved to DE.
    const deps = purchaseDepsOf(env as never);
    const dead = new Stripe("sk_test_worker", {
      host: "127.0.0.1",
      port: 9,
      protocol: "http",
      httpClient: Stripe.createFetchHttpClient(),
      maxNetworkRetries: 0,
    });
    deps.stripe.paymentIntents.confirm = dead.paymentIntents.confirm.bind(dead.paymentIntents) as never;
    const err = await confirmCheckout(deps, {
      paymentIntentId: c.paymentIntent,
      confirmationToken: await billingToken({ country: "DE" }),
      email: "de-buyer@example.com",
      buyerKey: c.cookie.replace("aw_buyer=", ""),
      clientHash: null,
    }).catch((e) => e);
    expect((err as { status?: number }).status).toBe(502);
    expect(await purchaseRow(c.paymentIntent)).toMatchObject({ amount_cents: 1000, tax_cents: 160 });
    const charged = (await intentOf(c.paymentIntent)).hooks?.inputs?.tax?.calculation;
    expect((await taxRowOf(p.id))!.calculation_id).toBe(charged);

    // Paid straight at Stripe with the client secret: the PaymentIntent's own (now German) calculation.
    expect((await confirmAsStripeJs(c.clientSecret, CARDS.ok, { receipt_email: "de-buyer@example.com" })).status).toBe(
      200,
    );
    expect((await deliver(await eventFor("payment_intent.succeeded", c.paymentIntent))).status).toBe(200);
    const [stripeTx] = await taxTransactionsOf(c.paymentIntent);
    expect(stripeTx).toMatchObject({ type: "transaction", amount_cents: 1000, tax_cents: 160 });
    expect((await netOf(p.id)).tax).toBe(stripeTx.tax_cents);
    expect((await row<{ tax_cents: number }>("select tax_cents from purchases where id = ?", p.id))!.tax_cents).toBe(
      160,
    );
    expect(await taxRowOf(p.id)).toMatchObject({ calculation_id: charged, country: "DE", tax_cents: 160 });
  });
});
