// Review of tax at checkout (docs/tax.md, "A checkout's calculation"): US sales tax adds a state's and
// local rates; the rate stored and shown is their sum as a decimal, never a float's rounding error.
import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { calculateTax } from "../../services/tax/calculate";

const breakdown = (amount: number, percentage_decimal: string) => ({
  amount,
  inclusive: false,
  taxability_reason: "standard_rated",
  taxable_amount: 1000,
  tax_rate_details: { country: "US", state: "TX", percentage_decimal, tax_type: "sales_tax" },
});

/** Stripe Tax answering a calculation with a state rate and two local ones, as it does for a US address. */
const stripe = {
  tax: {
    calculations: {
      create: async () => ({
        id: "taxcalc_review",
        amount_total: 1074,
        line_items: {
          has_more: false,
          data: [{ reference: "p1", amount: 1000, amount_tax: 74 }],
        },
        tax_breakdown: [breakdown(63, "6.25"), breakdown(11, "1.1"), breakdown(1, "0.1")],
      }),
    },
  },
} as unknown as Stripe;

describe("a US rate made of a state's and local rates", () => {
  it("is stored as their exact sum", async () => {
    const tax = await calculateTax(stripe, {
      currency: "usd",
      behavior: "auto",
      place: { country: "US", region: "TX", postalCode: "78701" },
      vatId: null,
      items: [{ purchaseId: "p1", amountCents: 1000 }],
      key: "review-rate",
    });
    expect(tax).toMatchObject({ totalCents: 1074, taxCents: 74, ratePercent: "7.45" });
  });
});
