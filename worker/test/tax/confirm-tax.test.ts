// The card's billing address decides at confirm (docs/tax.md): evidence that disagrees with the edge
// changes the tax, a changed total is shown (409) before anything is charged, two confirms at once
// charge once, and a Stripe Tax that cannot answer charges nothing.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { purchaseDepsOf } from "../../deps";
import type { Bindings } from "../../lib/env";
import { HTTPException } from "hono/http-exception";
import { confirmCheckout } from "../../services/purchases/server-confirm";
import { startCheckout } from "../../services/purchases/checkout";
import { TAX_UNAVAILABLE } from "../../services/tax/calculate";
import { creatorWithItem } from "../payments/payment-fixtures";
import { env } from "../support/helpers";
import { billingToken, confirmWith, intentOf, openAt, purchaseRow, taxRowOf } from "./tax-support";

type Retotalled = { message: string; amount: number; tax: { amount: number; text: string | null; country: string } };

describe("the billing address decides", () => {
  it("edge in Washington, card billed in France: 409 with the French total, nothing charged; Pay again charges it; all evidence stored", async () => {
    const { item } = await creatorWithItem("tax-disagree@example.com");
    const c = await openAt("US-WA-98101", { contentId: item.id });
    expect(c.amount).toBeGreaterThan(10);
    const first = await confirmWith(c.paymentIntent, await billingToken({ country: "FR" }), c.cookie);
    expect(first.status).toBe(409);
    const body = await first.json<Retotalled>();
    expect(body).toMatchObject({
      amount: 10,
      tax: { amount: 1.67, country: "FR", text: "Includes $1.67 VAT (20%, France)" },
    });
    expect(body.message).toContain("press Pay again");
    const intent = await intentOf(c.paymentIntent);
    expect(intent).toMatchObject({ amount: 1000, status: "requires_payment_method" });
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p).toMatchObject({ amount_cents: 1000, tax_cents: 167, status: "pending" });
    const row = (await taxRowOf(p.id))!;
    expect(intent.hooks?.inputs?.tax?.calculation).toBe(row.calculation_id);

    // Pay again (Stripe.js makes a new token from the same form): the same total, charged.
    const again = await confirmWith(c.paymentIntent, await billingToken({ country: "FR" }), c.cookie);
    expect(again.status).toBe(200);
    expect((await again.json<{ status: string }>()).status).toBe("succeeded");
    expect(await intentOf(c.paymentIntent)).toMatchObject({ amount: 1000, status: "succeeded" });
    expect(JSON.parse((await taxRowOf(p.id))!.evidence)).toEqual({
      edge: { country: "US", region: "WA", postalCode: "98101" },
      billing: { country: "FR", postalCode: null, state: null },
      cardCountry: "US",
      decidedBy: "billing",
    });
  });

  it("an inclusive price billed in another EU country: the total stays, the tax follows the billing country, no 409", async () => {
    const { item } = await creatorWithItem("tax-inclusive-move@example.com");
    const c = await openAt("FR", { contentId: item.id });
    const paid = await confirmWith(c.paymentIntent, await billingToken({ country: "DE" }), c.cookie);
    expect(paid.status).toBe(200);
    const p = (await purchaseRow(c.paymentIntent))!;
    // Germany's 19 %: 1000 * 19 / 119 = 159.66…
    expect(p).toMatchObject({ amount_cents: 1000, tax_cents: 160 });
    const row = (await taxRowOf(p.id))!;
    expect(row).toMatchObject({ country: "DE", tax_cents: 160, net_cents: 840 });
    expect((await intentOf(c.paymentIntent)).hooks?.inputs?.tax?.calculation).toBe(row.calculation_id);
  });

  it("an unplaced edge and a card billed in Washington: the confirm adds the tax (409), then charges it", async () => {
    const { item } = await creatorWithItem("tax-late@example.com");
    const c = await openAt(null, { contentId: item.id });
    expect(c.tax.amount).toBe(0);
    const token = await billingToken({ country: "US", postal_code: "98101" });
    const first = await confirmWith(c.paymentIntent, token, c.cookie);
    expect(first.status).toBe(409);
    const body = await first.json<Retotalled>();
    expect(body.amount).toBeGreaterThan(10);
    expect((await intentOf(c.paymentIntent)).amount).toBe(Math.round(body.amount * 100));
    const again = await confirmWith(
      c.paymentIntent,
      await billingToken({ country: "US", postal_code: "98101" }),
      c.cookie,
    );
    expect(again.status).toBe(200);
  });

  it("a billing address Stripe cannot place (the US without a postal code) is refused with a clear message", async () => {
    const { item } = await creatorWithItem("tax-nozip@example.com");
    const c = await openAt("FR", { contentId: item.id });
    const res = await confirmWith(c.paymentIntent, await billingToken({ country: "US" }), c.cookie);
    expect(res.status).toBe(400);
    expect((await res.json<{ message: string }>()).message).toContain("billing address");
    expect((await intentOf(c.paymentIntent)).status).toBe("requires_payment_method");
  });

  it("two confirms at once: one charge, at the total the rows say", async () => {
    const { item } = await creatorWithItem("tax-twice@example.com");
    const c = await openAt("FR", { contentId: item.id });
    const [a, b] = await Promise.all([
      billingToken({ country: "FR" }).then((t) => confirmWith(c.paymentIntent, t, c.cookie)),
      billingToken({ country: "FR" }).then((t) => confirmWith(c.paymentIntent, t, c.cookie)),
    ]);
    expect([a.status, b.status]).toContain(200);
    for (const r of [a, b]) expect([200, 409]).toContain(r.status);
    const intent = await intentOf(c.paymentIntent);
    expect(intent).toMatchObject({ amount: 1000, status: "succeeded" });
    const p = (await purchaseRow(c.paymentIntent))!;
    expect(p).toMatchObject({ amount_cents: 1000, tax_cents: 167 });
    const charges = await env.DB.prepare("select count(*) as n from purchases where payment_intent_id = ?")
      .bind(c.paymentIntent)
      .first<{ n: number }>();
    expect(charges?.n).toBe(1);
  });
});

describe("Stripe Tax cannot answer", () => {
  it("at start the checkout opens without an estimate; at confirm nothing is charged (502) until it answers", async () => {
    const { item } = await creatorWithItem("tax-outage@example.com");
    const bindings = env as unknown as Bindings;
    const real = purchaseDepsOf(bindings);
    const down = Object.create(real.stripe) as Stripe;
    Object.defineProperty(down, "tax", {
      value: {
        calculations: {
          create: async () => {
            throw new Stripe.errors.StripeConnectionError({ message: "Stripe Tax is down" });
          },
        },
      },
    });
    const deps = { ...real, stripe: down };
    // Start while it is down: the checkout opens at the price, without an estimate or a calculation.
    const opened = await startCheckout(deps, {
      contentId: item.id,
      customAmount: undefined,
      buyerEmail: null,
      buyerKey: "tax-outage-browser-key-0001",
      edge: { country: "FR", region: null, postalCode: null },
    });
    expect(opened.amountCents).toBe(1000);
    expect(opened.tax).toMatchObject({ amount: 0, text: null });
    expect(await taxRowOf(opened.purchaseId)).toBeNull();
    // Confirm while it is down (a checkout of a browser, started through the route unplaced).
    const c = await openAt(null, { contentId: item.id });
    const err = await confirmCheckout(deps, {
      paymentIntentId: c.paymentIntent,
      confirmationToken: await billingToken({ country: "FR" }),
      email: "tax-buyer@example.com",
      buyerKey: c.cookie.replace("aw_buyer=", ""),
      clientHash: null,
    }).catch((e) => e);
    expect(err).toBeInstanceOf(HTTPException);
    expect((err as HTTPException).status).toBe(502);
    expect((err as HTTPException).message).toBe(TAX_UNAVAILABLE);
    expect(await intentOf(c.paymentIntent)).toMatchObject({ amount: 1000, status: "requires_payment_method" });
    expect((await purchaseRow(c.paymentIntent))!.status).toBe("pending");

    // Stripe Tax back: the same checkout is taxed and paid.
    const paid = await confirmWith(c.paymentIntent, await billingToken({ country: "FR" }), c.cookie);
    expect(paid.status).toBe(200);
    expect((await purchaseRow(c.paymentIntent))!.tax_cents).toBe(167);
  });
});
