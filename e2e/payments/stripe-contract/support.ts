// What the Stripe contract files share: the SDK pointed at the local stand-in or, when
// STRIPE_TEST_SECRET_KEY is set, at real Stripe test mode (the targets each scenario runs against),
// and stand-in helpers for the scenarios only the stand-in can play. See docs/payments.md#tests.
import Stripe from "stripe";
import { expect, inject } from "vitest";
import { createStandin } from "../../../dev/stripe-standin/server.mjs";

const realKey = process.env.STRIPE_TEST_SECRET_KEY;
if (!realKey)
  console.log(
    "stripe contract: STRIPE_TEST_SECRET_KEY is not set, so the run against real Stripe test mode is skipped",
  );

export function standinClient() {
  const url = new URL(inject("stripeUrl"));
  return new Stripe("sk_test_e2e", { host: url.hostname, port: url.port, protocol: "http", maxNetworkRetries: 0 });
}

export const targets: [string, () => Stripe, boolean][] = [
  ["the local stand-in", standinClient, true],
  ["Stripe test mode", () => new Stripe(realKey ?? "sk_test_missing"), !!realKey],
];

// Payouts: transfers to a connected account. Real test mode needs an account that can receive
// transfers (STRIPE_TEST_CONNECTED_ACCOUNT, with funds in the platform's test balance).
const connected = process.env.STRIPE_TEST_CONNECTED_ACCOUNT;
export const transferTargets: [string, () => Stripe, string, boolean][] = [
  ["the local stand-in", standinClient, "", true],
  ["Stripe test mode", () => new Stripe(realKey ?? "sk_test_missing"), connected ?? "", !!realKey && !!connected],
];

/** On the stand-in: an onboarded Express account and platform funds to pay it (stand-in controls). */
export async function standinConnectedAccount(stripe: Stripe, base: string): Promise<string> {
  const account = await stripe.accounts.create({ type: "express", capabilities: { transfers: { requested: true } } });
  const control = (path: string, body?: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
      body: body && new URLSearchParams(body),
    });
  await control(`/_standin/accounts/${account.id}/onboard`);
  await control("/_standin/balance/top_up", { amount: "1000000" });
  return account.id;
}

/** A stand-in of the test's own, its SDK client, and a way to call its controls and confirm with a raw test card. */
export async function ownStandin() {
  const standin = createStandin();
  const url = new URL(await standin.listen(0));
  const stripe = new Stripe("sk_test_money", {
    host: url.hostname,
    port: url.port,
    protocol: "http",
    maxNetworkRetries: 0,
  });
  const post = async <T>(path: string, body: Record<string, string> = {}) => {
    const res = await fetch(`${url.origin}${path}`, {
      method: "POST",
      headers: { authorization: "Bearer sk_test_money", "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  /** A succeeded card payment with a raw test card number (Stripe's refund test cards have no pm_card_ id). */
  const pay = async (amount: number, card = "4242424242424242") => {
    const intent = await stripe.paymentIntents.create({
      amount,
      currency: "usd",
      allowed_payment_method_types: ["card"],
    });
    const paid = await post<Stripe.PaymentIntent>(`/v1/payment_intents/${intent.id}/confirm`, {
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": card,
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 3),
      "payment_method_data[card][cvc]": "123",
    });
    expect(paid.body.status).toBe("succeeded");
    return { intent: paid.body.id, charge: paid.body.latest_charge as string };
  };
  const balance = async () => {
    const b = await stripe.balance.retrieve();
    const usd = (xs: { amount: number; currency: string }[]) => xs.find((x) => x.currency === "usd")?.amount ?? 0;
    return usd(b.available) + usd(b.pending);
  };
  return { standin, stripe, post, pay, balance };
}
