// Taxed sales for the tax ledger tests: a checkout whose PaymentIntent carries a Stripe Tax
// calculation (the stand-in's, French VAT at 20% included in the price, under the demo OSS
// registration every test lane's stand-in starts with), with the purchase's tax
// and its purchase_taxes row written as checkout writes them, then paid and its webhook delivered.
// docs/tax.md ("Ledger and reversals").
import { expect } from "vitest";
import {
  CARDS,
  confirmAsStripeJs,
  contentForm,
  cookieValue,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
} from "../support/helpers";

export type Ledger = { idempotency_key: string; account: string; kind: string; amount_cents: number };

export async function creatorWithItem(email: string, price = "10") {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price, accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  const item = await res.json<{ id: string }>();
  const creatorId = (await row<{ user_id: string }>("select user_id from content where id = ?", item.id))!.user_id;
  return { cookie, itemId: item.id, creatorId };
}

export type TaxedSale = {
  paymentIntent: string;
  purchaseId: string;
  bumpId: string | null;
  charge: string;
  taxCents: number;
  buyerCookie: string;
};

/**
 * Checks out `contentId` (with its order bump when `bump`), taxed as a French consumer's purchase,
 * pays it and delivers payment_intent.succeeded. `deliverSucceeded: false` leaves the webhook undelivered.
 */
export async function taxedSale(
  contentId: string,
  opts: { bump?: boolean; card?: string; deliverSucceeded?: boolean } = {},
): Promise<TaxedSale> {
  const res = await postJson("/api/create-payment-intent", {
    contentId,
    bump: opts.bump ?? false,
    buyerEmail: "",
  });
  if (res.status !== 200) throw new Error(`create-payment-intent ${res.status}: ${await res.text()}`);
  const { clientSecret } = await res.json<{ clientSecret: string }>();
  const buyerCookie = `aw_buyer=${cookieValue(res, "aw_buyer")}`;
  const paymentIntent = clientSecret.split("_secret_")[0];
  const order = await rows<{ id: string; amount_cents: number; bump_of: string | null }>(
    "select id, amount_cents, bump_of from purchases where payment_intent_id = ?1 or bump_of = (select id from purchases where payment_intent_id = ?1) order by bump_of is not null, id",
    paymentIntent,
  );
  const lines: Record<string, string> = {};
  order.forEach((p, i) => {
    lines[`line_items[${i}][amount]`] = String(p.amount_cents);
    lines[`line_items[${i}][reference]`] = p.id;
    lines[`line_items[${i}][tax_behavior]`] = "inclusive";
    lines[`line_items[${i}][tax_code]`] = "txcd_10000000";
  });
  const calc = await standin<{ id: string; amount_total: number }>("POST", "/v1/tax/calculations", {
    currency: "usd",
    ...lines,
    "customer_details[address][country]": "FR",
    "customer_details[address_source]": "billing",
  });
  expect(calc.status).toBe(200);
  const calcLines = await standin<{ data: { reference: string; amount_tax: number }[] }>(
    "GET",
    `/v1/tax/calculations/${calc.body.id}/line_items`,
  );
  expect(
    (
      await standin("POST", `/v1/payment_intents/${paymentIntent}`, {
        "hooks[inputs][tax][calculation]": calc.body.id,
      })
    ).status,
  ).toBe(200);
  let taxCents = 0;
  for (const p of order) {
    const tax = calcLines.body.data.find((l) => l.reference === p.id)!.amount_tax;
    taxCents += tax;
    await env.DB.batch([
      env.DB.prepare("update purchases set tax_cents = ? where id = ?").bind(tax, p.id),
      env.DB.prepare(
        `insert into purchase_taxes (purchase_id, calculation_id, country, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence)
         values (?, ?, 'FR', 'vat', '20.0', 'standard_rated', 1, ?, ?, '{}')`,
      ).bind(p.id, calc.body.id, p.amount_cents - tax, tax),
    ]);
  }
  const confirmed = await confirmAsStripeJs(clientSecret, opts.card ?? CARDS.ok, {
    receipt_email: "fr-buyer@example.com",
  });
  expect(confirmed.status).toBe(200);
  if (opts.deliverSucceeded !== false)
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
    .latest_charge;
  const main = order.find((p) => !p.bump_of)!;
  return {
    paymentIntent,
    purchaseId: main.id,
    bumpId: order.find((p) => p.bump_of)?.id ?? null,
    charge,
    taxCents,
    buyerCookie,
  };
}

export const ledgerOf = (purchaseId: string) =>
  rows<Ledger>(
    "select idempotency_key, account, kind, amount_cents from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee') and kind not like 'reserve%' order by id",
    purchaseId,
  );

/** Each account's total over a purchase's posted rows (no reservations, no Stripe fees). */
export async function netOf(purchaseId: string) {
  const l = await ledgerOf(purchaseId);
  const sum = (a: string) => l.filter((e) => e.account === a).reduce((s, e) => s + e.amount_cents, 0);
  return { creator: sum("creator"), platform: sum("platform"), tax: sum("tax") };
}

/** The rows one reversal key booked, by account. */
export async function sideOf(key: string) {
  const r = await rows<{ account: string; amount_cents: number }>(
    "select account, amount_cents from ledger_entries where idempotency_key in (?1 || ':creator', ?1 || ':platform', ?1 || ':tax')",
    key,
  );
  return Object.fromEntries(r.map((x) => [x.account, x.amount_cents]));
}

export const taxTransactionsOf = (paymentIntent: string) =>
  rows<{ id: string; type: string; reference: string; amount_cents: number; tax_cents: number }>(
    "select id, type, reference, amount_cents, tax_cents from tax_transactions where payment_intent_id = ? order by created_at, type desc, reference",
    paymentIntent,
  );

export async function deliverAllOf(types: string[], objectIds: string[]) {
  type Ev = { id: string; type: string; data: { object: { id: string; payment_intent?: string; charge?: string } } };
  const { body } = await standin<{ data: Ev[] }>("GET", "/v1/events", { limit: "100" });
  const events = body.data
    .filter(
      (e) =>
        types.includes(e.type) &&
        [e.data.object.charge, e.data.object.payment_intent, e.data.object.id].some((v) => v && objectIds.includes(v)),
    )
    .reverse();
  for (const e of events) expect((await deliver(e)).status, e.type).toBe(200);
  return events;
}
