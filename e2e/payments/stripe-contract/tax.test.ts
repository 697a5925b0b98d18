// The Stripe contract for Stripe Tax with Payment Intents: tax calculations (inclusive and exclusive
// prices, where tax is not collected, a reverse charge, the errors), a calculation carried by a
// PaymentIntent (hooks[inputs][tax][calculation]) and the tax transactions Stripe records from it
// (on success, and a flat reversal per refund), reversals made by hand, and tax registrations.
// Scenarios `describe.each(targets)` run against the local stand-in and, when STRIPE_TEST_SECRET_KEY is
// set, against real Stripe test mode (each first creates the demo registrations, dev/tax-registrations.mjs);
// the others play what only the stand-in can. See docs/tax.md ("The stand-in").
import type Stripe from "stripe";
import { describe, expect, inject, it } from "vitest";
import required from "../../../dev/stripe-standin/required-properties.json" with { type: "json" };
import { missingRequired } from "../../../dev/stripe-standin/schema-check.mjs";
import { createTaxRegistrations, DEMO_REGISTRATIONS } from "../../../dev/tax-registrations.mjs";
import { ownStandin, targets } from "./support";

const DAY = 86400;
const line = (amount: number, tax_behavior: "inclusive" | "exclusive", reference = "L1") => ({
  amount,
  reference,
  tax_behavior,
  tax_code: "txcd_10000000",
});
const inFrance = { address: { country: "FR" }, address_source: "billing" as const };
const inSeattle = { address: { country: "US", postal_code: "98101" }, address_source: "billing" as const };

/** The demo registrations on the target's account (the stand-in's lanes have them already). */
async function registered(name: string) {
  const real = name === "Stripe test mode";
  return createTaxRegistrations(
    real
      ? { secretKey: process.env.STRIPE_TEST_SECRET_KEY ?? "" }
      : { apiBase: inject("stripeUrl"), secretKey: "sk_test_e2e" },
  );
}

/** Polls `read` until `done` holds (Stripe records a PaymentIntent's tax transactions in its own time). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 40; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 250));
  }
  return read();
}

const taxOf = (amount: number, pct: number, inclusive: boolean) =>
  Math.round(inclusive ? (amount * pct) / (100 + pct) : (amount * pct) / 100);

describe.each(targets)("tax calculations against %s", (name, client, enabled) => {
  it.runIf(enabled)("an inclusive price in France and an exclusive one in Seattle, retrieved and listed", async () => {
    const stripe = client();
    await registered(name);
    const fr = await stripe.tax.calculations.create({
      currency: "usd",
      line_items: [line(1000, "inclusive")],
      customer_details: inFrance,
      expand: ["line_items"],
    });
    expect(fr).toMatchObject({
      object: "tax.calculation",
      amount_total: 1000,
      currency: "usd",
      tax_amount_exclusive: 0,
      tax_amount_inclusive: 167,
      livemode: false,
      customer_details: {
        address: { country: "FR" },
        address_source: "billing",
        tax_ids: [],
        taxability_override: "none",
      },
      tax_breakdown: [
        {
          amount: 167,
          inclusive: true,
          taxable_amount: 833,
          taxability_reason: "standard_rated",
          tax_rate_details: { country: "FR", percentage_decimal: "20.0", tax_type: "vat" },
        },
      ],
    });
    expect(fr.id).toMatch(/^taxcalc_/);
    expect(fr.expires_at! - fr.tax_date).toBeGreaterThanOrEqual(89 * DAY);
    expect(fr.line_items?.data).toMatchObject([
      {
        object: "tax.calculation_line_item",
        amount: 1000,
        amount_tax: 167,
        reference: "L1",
        tax_behavior: "inclusive",
      },
    ]);
    expect(missingRequired(fr, required)).toEqual([]);

    const wa = await stripe.tax.calculations.create({
      currency: "usd",
      line_items: [line(1000, "exclusive")],
      customer_details: inSeattle,
    });
    const [breakdown] = wa.tax_breakdown;
    const pct = Number(breakdown!.tax_rate_details.percentage_decimal);
    expect(pct).toBeGreaterThan(6.5);
    expect(breakdown).toMatchObject({
      inclusive: false,
      taxable_amount: 1000,
      taxability_reason: "standard_rated",
      tax_rate_details: { country: "US", state: "WA", tax_type: "sales_tax" },
    });
    expect(wa.tax_amount_exclusive).toBe(taxOf(1000, pct, false));
    expect(wa.amount_total).toBe(1000 + wa.tax_amount_exclusive);
    expect(wa.line_items).toBeUndefined();

    const read = await stripe.tax.calculations.retrieve(wa.id!);
    expect(read).toMatchObject({ id: wa.id, amount_total: wa.amount_total, tax_breakdown: wa.tax_breakdown });
    const lines = await stripe.tax.calculations.listLineItems(wa.id!, { expand: ["data.tax_breakdown"] });
    expect(lines.data).toHaveLength(1);
    expect(lines.data[0]).toMatchObject({
      amount: 1000,
      amount_tax: wa.tax_amount_exclusive,
      tax_breakdown: [{ jurisdiction: { country: "US", state: "WA" }, sourcing: "destination" }],
    });
    expect(missingRequired(lines, required)).toEqual([]);
  });

  it.runIf(enabled)("no tax where the account is not registered, none for a business buyer abroad", async () => {
    const stripe = client();
    await registered(name);
    for (const address of [{ country: "CH" }, { country: "US", postal_code: "43215" }]) {
      const calc = await stripe.tax.calculations.create({
        currency: "usd",
        line_items: [line(1000, "exclusive")],
        customer_details: { address, address_source: "billing" },
      });
      expect(calc.amount_total).toBe(1000);
      expect(calc.tax_breakdown.map((b) => [b.amount, b.taxability_reason])).toEqual([[0, "not_collecting"]]);
    }
    const b2b = await stripe.tax.calculations.create({
      currency: "usd",
      line_items: [line(1000, "inclusive")],
      customer_details: {
        address: { country: "DE" },
        address_source: "billing",
        tax_ids: [{ type: "eu_vat", value: "DE123456789" }],
      },
    });
    expect(b2b).toMatchObject({ amount_total: 1000, tax_amount_inclusive: 0 });
    expect(b2b.tax_breakdown.map((b) => [b.amount, b.taxability_reason])).toEqual([[0, "reverse_charge"]]);
  });

  it.runIf(enabled)("refuses a place it can't locate, a malformed VAT number, and a missing currency", async () => {
    const stripe = client();
    const fail = (params: Record<string, unknown>) =>
      stripe.tax.calculations
        .create({ currency: "usd", line_items: [line(1000, "exclusive")], ...params } as never)
        .then(
          () => null,
          (e: Stripe.errors.StripeError) => [e.statusCode, e.type, e.code, e.param],
        );
    expect(
      await fail({ customer_details: { address: { country: "US", state: "WA" }, address_source: "billing" } }),
    ).toEqual([400, "StripeInvalidRequestError", "customer_tax_location_invalid", "customer_details[address]"]);
    const malformed = await fail({
      customer_details: {
        address: { country: "DE" },
        address_source: "billing",
        tax_ids: [{ type: "eu_vat", value: "not a vat number" }],
      },
    });
    expect(malformed?.slice(0, 3)).toEqual([400, "StripeInvalidRequestError", "tax_id_invalid"]);
    expect(await fail({ currency: undefined, customer_details: inFrance })).toEqual([
      400,
      "StripeInvalidRequestError",
      "parameter_missing",
      "currency",
    ]);
    const missing = await stripe.tax.calculations.retrieve("taxcalc_missing").catch((e) => e);
    expect([missing.statusCode, missing.code]).toEqual([404, "resource_missing"]);
  });
});

describe.each(targets)("a PaymentIntent carrying a tax calculation against %s", (name, client, enabled) => {
  it.runIf(enabled)(
    "the calculation is committed as a transaction when it succeeds, reversed in part by a refund, and once only",
    async () => {
      const stripe = client();
      await registered(name);
      const calc = await stripe.tax.calculations.create({
        currency: "usd",
        line_items: [line(1000, "exclusive")],
        customer_details: inSeattle,
      });
      const hooks = { inputs: { tax: { calculation: calc.id! } } };
      const base = { amount: calc.amount_total, currency: "usd", allowed_payment_method_types: ["card"] };
      const intent = await stripe.paymentIntents.create({ ...base, hooks });
      expect(intent.hooks).toEqual(hooks);
      const before = await stripe.tax.associations.find({ payment_intent: intent.id });
      expect(before).toMatchObject({ object: "tax.association", calculation: calc.id, payment_intent: intent.id });
      expect(before.tax_transaction_attempts ?? []).toEqual([]);

      const paid = await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
      expect(paid.status).toBe("succeeded");
      const after = await until(
        () => stripe.tax.associations.find({ payment_intent: intent.id }),
        (a) => !!a.tax_transaction_attempts?.length,
      );
      expect(after.id).toMatch(/^taxa_/);
      expect(after.tax_transaction_attempts).toMatchObject([{ source: intent.id, status: "committed" }]);
      const txId = after.tax_transaction_attempts![0]!.committed!.transaction;
      const tx = await stripe.tax.transactions.retrieve(txId, { expand: ["line_items"] });
      expect(tx).toMatchObject({
        object: "tax.transaction",
        type: "transaction",
        reference: intent.id,
        currency: "usd",
        reversal: null,
        tax_date: calc.tax_date,
        customer_details: { address: { country: "US", postal_code: "98101" } },
      });
      expect(tx.line_items?.data).toMatchObject([
        {
          object: "tax.transaction_line_item",
          type: "transaction",
          amount: 1000,
          amount_tax: calc.tax_amount_exclusive,
        },
      ]);
      expect(missingRequired([after, tx], required)).toEqual([]);

      // A succeeded PaymentIntent takes no other calculation.
      const late = await stripe.paymentIntents.update(intent.id, { hooks }).catch((e) => e);
      expect([late.statusCode, late.type]).toEqual([400, "StripeInvalidRequestError"]);

      // A refund of 500 of the 1000 + tax: a flat reversal of 500, tax included, referencing the refund.
      const refund = await stripe.refunds.create({ payment_intent: intent.id, amount: 500 });
      const refunded = await until(
        () => stripe.tax.associations.find({ payment_intent: intent.id }),
        (a) => (a.tax_transaction_attempts?.length ?? 0) > 1,
      );
      expect(refunded.tax_transaction_attempts![1]).toMatchObject({ source: refund.id, status: "committed" });
      const reversal = await stripe.tax.transactions.retrieve(
        refunded.tax_transaction_attempts![1]!.committed!.transaction,
        { expand: ["line_items"] },
      );
      expect(reversal).toMatchObject({ type: "reversal", reversal: { original_transaction: tx.id } });
      const [rl] = reversal.line_items!.data;
      expect(rl).toMatchObject({ type: "reversal", reversal: { original_line_item: tx.line_items!.data[0]!.id } });
      expect(rl!.amount + rl!.amount_tax).toBe(-500);
      expect(rl!.amount_tax).toBeLessThan(0);

      // A second PaymentIntent with the same calculation: the attempt is errored.
      const twice = await stripe.paymentIntents.create({
        ...base,
        hooks,
        payment_method: "pm_card_visa",
        confirm: true,
      });
      expect(twice.status).toBe("succeeded");
      const other = await until(
        () => stripe.tax.associations.find({ payment_intent: twice.id }),
        (a) => !!a.tax_transaction_attempts?.length,
      );
      expect(other.tax_transaction_attempts).toMatchObject([
        { source: twice.id, status: "errored", errored: { reason: "another_payment_associated_with_calculation" } },
      ]);
    },
  );

  it.runIf(enabled)("an unknown calculation is refused; a PaymentIntent without one has no association", async () => {
    const stripe = client();
    const base = { amount: 1000, currency: "usd", allowed_payment_method_types: ["card"] };
    const bad = await stripe.paymentIntents
      .create({ ...base, hooks: { inputs: { tax: { calculation: "taxcalc_missing" } } } })
      .catch((e) => e);
    expect([bad.statusCode, bad.code]).toEqual([404, "resource_missing"]);
    const plain = await stripe.paymentIntents.create(base);
    const none = await stripe.tax.associations.find({ payment_intent: plain.id }).catch((e) => e);
    expect([none.statusCode, none.code]).toEqual([404, "resource_missing"]);
  });
});

describe.each(targets)("tax transactions by hand against %s", (name, client, enabled) => {
  it.runIf(enabled)("from a calculation, reversed in part by a flat amount, references unique", async () => {
    const stripe = client();
    await registered(name);
    const calc = await stripe.tax.calculations.create({
      currency: "usd",
      line_items: [line(1200, "inclusive", "main"), line(600, "inclusive", "bump")],
      customer_details: inFrance,
    });
    const reference = `order-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
    const tx = await stripe.tax.transactions.createFromCalculation({ calculation: calc.id!, reference });
    expect(tx).toMatchObject({ object: "tax.transaction", type: "transaction", reference });
    const lines = await stripe.tax.transactions.listLineItems(tx.id);
    expect(lines.data.map((l) => [l.reference, l.amount, l.amount_tax]).sort()).toEqual([
      ["bump", 600, 100],
      ["main", 1200, 200],
    ]);
    const again = await stripe.tax.transactions
      .createFromCalculation({ calculation: calc.id!, reference })
      .catch((e) => e);
    expect([again.statusCode, again.type]).toEqual([400, "StripeInvalidRequestError"]);

    const key = `reversal-${reference}`;
    const params = {
      mode: "partial" as const,
      original_transaction: tx.id,
      reference: `${reference}-r1`,
      flat_amount: -900,
    };
    const reversal = await stripe.tax.transactions.createReversal(params, { idempotencyKey: key });
    expect(reversal).toMatchObject({ type: "reversal", reversal: { original_transaction: tx.id } });
    expect((await stripe.tax.transactions.createReversal(params, { idempotencyKey: key })).id).toBe(reversal.id);
    const reversed = await stripe.tax.transactions.listLineItems(reversal.id);
    expect(reversed.data.reduce((a, l) => a + l.amount, 0)).toBe(-900);
    expect(reversed.data.reduce((a, l) => a + l.amount_tax, 0)).toBe(-150);
    const reused = await stripe.tax.transactions.createReversal(params).catch((e) => e);
    expect([reused.statusCode, reused.type]).toEqual([400, "StripeInvalidRequestError"]);

    const mainLine = lines.data.find((l) => l.reference === "main")!;
    const byLine = await stripe.tax.transactions.createReversal({
      mode: "partial",
      original_transaction: tx.id,
      reference: `${reference}-r2`,
      line_items: [{ amount: -300, amount_tax: -50, original_line_item: mainLine.id, reference: "main-refund" }],
    });
    const [one] = (await stripe.tax.transactions.listLineItems(byLine.id)).data;
    expect(one).toMatchObject({ amount: -300, amount_tax: -50, reversal: { original_line_item: mainLine.id } });
    expect(missingRequired([tx, reversal, byLine, one], required)).toEqual([]);
  });
});

describe.each(targets)("tax registrations against %s", (name, client, enabled) => {
  it.runIf(enabled)("the demo registrations are active; creating them again adds none", async () => {
    const stripe = client();
    await registered(name);
    const active = await stripe.tax.registrations
      .list({ status: "active", limit: 100 })
      .autoPagingToArray({ limit: 500 });
    for (const { country, options } of DEMO_REGISTRATIONS) {
      const match = active.find((r) => {
        const o = r.country_options[country.toLowerCase() as keyof typeof r.country_options] as
          | { type: string; state?: string }
          | undefined;
        return r.country === country && o?.type === options.type && (o?.state ?? undefined) === options.state;
      });
      expect(match, `${country} ${options.type} ${options.state ?? ""}`).toMatchObject({
        object: "tax.registration",
        status: "active",
        livemode: false,
      });
    }
    expect(active.some((r) => r.country === "CH")).toBe(false);
    expect(missingRequired(active, required)).toEqual([]);
    expect(await registered(name)).toEqual([]);
  });
});

describe("the stand-in's Stripe Tax (its own instance)", () => {
  it("a new account is registered nowhere; registrations are scheduled, active, then expired", async () => {
    const { standin, stripe, post } = await ownStandin();
    const calc = () =>
      stripe.tax.calculations.create({
        currency: "usd",
        line_items: [line(1000, "inclusive")],
        customer_details: inFrance,
      });
    expect((await calc()).tax_breakdown[0]!.taxability_reason).toBe("not_collecting");
    const now = Math.floor(Date.now() / 1000);
    const later = await stripe.tax.registrations.create({
      country: "FR",
      country_options: { fr: { type: "standard" } },
      active_from: now + DAY,
    });
    expect(later.status).toBe("scheduled");
    expect((await calc()).tax_breakdown[0]!.taxability_reason).toBe("not_collecting");
    const nowActive = await stripe.tax.registrations.update(later.id, { active_from: "now" });
    expect(nowActive.status).toBe("active");
    expect((await calc()).tax_breakdown[0]).toMatchObject({ taxability_reason: "standard_rated", amount: 167 });
    const ended = await stripe.tax.registrations.update(later.id, { expires_at: "now" });
    expect(ended.status).toBe("expired");
    expect((await stripe.tax.registrations.list({ status: "expired" })).data.map((r) => r.id)).toEqual([later.id]);
    expect((await calc()).tax_breakdown[0]!.taxability_reason).toBe("not_collecting");
    const missing = await post<{ error: { code: string } }>("/v1/tax/registrations", { country: "FR" });
    expect([missing.status, missing.body.error.code]).toEqual([400, "parameter_missing"]);
    await standin.close();
  });

  it("a refund that fails later gets its reversal reversed; an expired calculation is not committed; disputes reverse nothing", async () => {
    const { standin, stripe, post } = await ownStandin();
    await stripe.tax.registrations.create({
      country: "GB",
      country_options: { gb: { type: "standard" } },
      active_from: "now",
    });
    const calc = async () =>
      stripe.tax.calculations.create({
        currency: "usd",
        line_items: [line(1200, "inclusive")],
        customer_details: { address: { country: "GB" }, address_source: "billing" },
      });
    const payWith = async (calculation: string, card: string, beforeConfirm = async () => {}) => {
      const intent = await stripe.paymentIntents.create({
        amount: 1200,
        currency: "usd",
        allowed_payment_method_types: ["card"],
        hooks: { inputs: { tax: { calculation } } },
      });
      await beforeConfirm();
      const paid = await post<Stripe.PaymentIntent>(`/v1/payment_intents/${intent.id}/confirm`, {
        "payment_method_data[type]": "card",
        "payment_method_data[card][number]": card,
        "payment_method_data[card][exp_month]": "12",
        "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 3),
        "payment_method_data[card][cvc]": "123",
      });
      expect(paid.body.status).toBe("succeeded");
      return paid.body;
    };
    const attempts = async (pi: string) =>
      (await stripe.tax.associations.find({ payment_intent: pi })).tax_transaction_attempts ?? [];

    const first = await calc();
    const pi = await payWith(first.id!, "4000000000005126");
    const refund = await stripe.refunds.create({ payment_intent: pi.id, amount: 600 });
    expect(refund.status).toBe("succeeded");
    await post(`/_standin/refunds/${refund.id}/settle`, { outcome: "failed" });
    const [sale, reversal, restored] = await attempts(pi.id);
    expect([sale?.status, reversal?.source, restored?.source]).toEqual(["committed", refund.id, refund.id]);
    const back = await stripe.tax.transactions.retrieve(restored!.committed!.transaction, { expand: ["line_items"] });
    expect(back).toMatchObject({
      type: "reversal",
      reversal: { original_transaction: reversal!.committed!.transaction },
    });
    expect(back.line_items!.data.map((l) => [l.amount, l.amount_tax])).toEqual([[600, 100]]);
    // What was given back can be reversed again: the whole sale is reversible once more.
    const whole = await stripe.tax.transactions.createReversal({
      mode: "partial",
      original_transaction: sale!.committed!.transaction,
      reference: "after-failed-refund",
      flat_amount: -1200,
    });
    expect(whole.type).toBe("reversal");

    const second = await calc();
    // Linked while it was valid, expired before the payment succeeded.
    const late = await payWith(second.id!, "4242424242424242", async () => {
      await post(`/_standin/tax/calculations/${second.id}/expire`);
    });
    expect(await attempts(late.id)).toMatchObject([{ status: "errored", errored: { reason: "calculation_expired" } }]);

    const third = await calc();
    const disputed = await payWith(third.id!, "4242424242424242");
    await post(`/_standin/charges/${disputed.latest_charge}/dispute`);
    expect((await attempts(disputed.id)).map((a) => a.status)).toEqual(["committed"]);
    await standin.close();
  });
});
