// What the checkout tax tests share: a checkout started from a place (the development header that
// stands in for request.cf), a ConfirmationToken with a billing address, the server-side confirm,
// and the rows and PaymentIntent a checkout leaves. Behaviour: docs/tax.md.
import { expect } from "vitest";
import { call, cookieValue, row, standin } from "../support/helpers";

const year = String(new Date().getFullYear() + 3);

type TaxLineAnswer = {
  amount: number;
  net: number;
  total: number;
  inclusive: boolean;
  type: string | null;
  rate: string | null;
  country: string | null;
  region: string | null;
  reverseCharge: boolean;
  reason: string | null;
  text: string | null;
};
export type Started = { clientSecret: string; amount: number; tax: TaxLineAnswer };

/** POST /api/create-payment-intent from `geo` ("FR", "US-WA-98101"; none: not placed). */
export function startAt(geo: string | null, body: Record<string, unknown>, cookie?: string) {
  return call("/api/create-payment-intent", {
    method: "POST",
    headers: { "content-type": "application/json", ...(geo ? { "x-apewall-dev-geo": geo } : {}) },
    body: JSON.stringify(body),
    cookie,
  });
}

export async function openAt(geo: string | null, body: Record<string, unknown>, cookie?: string) {
  const res = await startAt(geo, body, cookie);
  if (res.status !== 200) throw new Error(`create-payment-intent ${res.status}: ${await res.text()}`);
  const answer = await res.json<Started>();
  return {
    ...answer,
    paymentIntent: answer.clientSecret.split("_secret_")[0],
    cookie: cookie ?? `aw_buyer=${cookieValue(res, "aw_buyer")}`,
  };
}

/** What Stripe.js's createConfirmationToken makes from a card and the billing address the Payment Element collected. */
export async function billingToken(address: { country: string; postal_code?: string; state?: string } | null) {
  const params: Record<string, string> = {
    "payment_method_data[type]": "card",
    "payment_method_data[card][number]": "4242424242424242",
    "payment_method_data[card][exp_month]": "12",
    "payment_method_data[card][exp_year]": year,
    "payment_method_data[card][cvc]": "123",
  };
  for (const [k, v] of Object.entries(address ?? {})) params[`payment_method_data[billing_details][address][${k}]`] = v;
  const { status, body } = await standin<{ id: string }>("POST", "/v1/confirmation_tokens", params, "pk_test_worker");
  expect(status).toBe(200);
  return body.id;
}

export const confirmWith = (paymentIntent: string, confirmationToken: string, cookie: string, geo?: string) =>
  call("/api/checkout/confirm", {
    method: "POST",
    headers: { "content-type": "application/json", ...(geo ? { "x-apewall-dev-geo": geo } : {}) },
    body: JSON.stringify({ paymentIntent, confirmationToken, email: "tax-buyer@example.com" }),
    cookie,
  });

export type Intent = {
  amount: number;
  status: string;
  hooks?: { inputs?: { tax?: { calculation?: string | null } } } | null;
};
export const intentOf = async (id: string) => (await standin<Intent>("GET", `/v1/payment_intents/${id}`)).body;

export type TaxRow = {
  purchase_id: string;
  calculation_id: string | null;
  country: string | null;
  region: string | null;
  tax_type: string | null;
  rate_percent: string | null;
  taxability_reason: string | null;
  inclusive: number;
  net_cents: number;
  tax_cents: number;
  vat_id: string | null;
  evidence: string;
};
export const taxRowOf = (purchaseId: string) =>
  row<TaxRow>("select * from purchase_taxes where purchase_id = ?", purchaseId);
export const purchaseRow = (pi: string) =>
  row<{ id: string; amount_cents: number; tax_cents: number; status: string }>(
    "select id, amount_cents, tax_cents, status from purchases where payment_intent_id = ?",
    pi,
  );
