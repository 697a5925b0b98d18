// A stateful local stand-in for the part of Stripe's API ApeWall uses. It speaks Stripe's wire
// format (form-encoded /v1 requests, Stripe-shaped objects and errors, Idempotency-Key replay),
// keeps state in memory, sends signed webhooks, and serves a stand-in Stripe.js at /v3.
// It exists for local runs and tests only; the Worker reaches it through STRIPE_API_BASE.
import { createHmac, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { catalogRoutes } from "./catalog.mjs";
import { billingRoutes } from "./billing.mjs";
import { connectRoutes } from "./connect.mjs";
import { parseForm } from "./form.mjs";

const API_VERSION = "2026-10-28.clover";
const STRIPE_JS = readFileSync(new URL("./stripe-js.js", import.meta.url), "utf8");

const rid = (prefix, n = 24) => `${prefix}_${randomBytes(n).toString("base64url").replace(/[-_]/g, "").slice(0, n)}`;
const now = () => Math.floor(Date.now() / 1000);

export class StripeError extends Error {
  constructor(status, type, message, extra = {}) {
    super(message);
    this.status = status;
    this.body = { error: { type, message, ...extra } };
  }
}
// A handler may answer with a page or a redirect instead of a JSON object (hosted pages).
const RAW = Symbol("raw");
const raw = (status, headers, body = "") => ({ [RAW]: { status, headers, body } });
const missing = (kind, id) => new StripeError(404, "invalid_request_error", `No such ${kind}: '${id}'`, { code: "resource_missing", param: "id" });
const badParam = (param, message) => new StripeError(400, "invalid_request_error", message, { param });
// Stripe refuses a malformed address with code email_invalid ("not properly formatted"): here a
// local part, "@", and a domain of dot-separated DNS labels (letters, digits, inner hyphens) ending
// in a letters-only top-level label.
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const EMAIL = new RegExp(`^[^\\s@"(),:;<>\\[\\]]{1,64}@(?:${LABEL}\\.)+[a-z]{2,63}$`, "i");
const checkEmail = (value, param) => {
  if (value === undefined || value === null || value === "") return;
  if (!EMAIL.test(String(value)) || String(value).length > 512) {
    throw new StripeError(400, "invalid_request_error", `Invalid email address: ${value}`, { code: "email_invalid", param });
  }
};

// Stripe's documented test cards, by number and by test PaymentMethod id.
const CARDS = {
  "4242424242424242": { brand: "visa", outcome: "success" },
  "4000056655665556": { brand: "visa", outcome: "success" },
  "5555555555554444": { brand: "mastercard", outcome: "success" },
  "4000000000000002": { brand: "visa", outcome: "decline", code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." },
  "4000000000009995": { brand: "visa", outcome: "decline", code: "card_declined", decline_code: "insufficient_funds", message: "Your card has insufficient funds." },
  "4000002500003155": { brand: "visa", outcome: "authenticate" },
  // Attaches to a Customer fine; every charge to it is declined (Stripe's "charge customer fail" card,
  // used for failed upsell charges and failed renewals).
  "4000000000000341": { brand: "visa", outcome: "decline", code: "card_declined", decline_code: "generic_decline", message: "Your card was declined." },
};
// What Stripe answers when an off-session charge needs the cardholder (the 3155 card, off-session).
const AUTH_REQUIRED = { code: "authentication_required", decline_code: "authentication_required", message: "Your card was declined. This transaction requires authentication." };
const TEST_PAYMENT_METHODS = {
  pm_card_visa: "4242424242424242",
  pm_card_mastercard: "5555555555554444",
  pm_card_chargeDeclined: "4000000000000002",
  pm_card_chargeDeclinedInsufficientFunds: "4000000000009995",
  pm_card_authenticationRequired: "4000002500003155",
  pm_card_chargeCustomerFail: "4000000000000341",
};
const luhn = (num) => {
  let sum = 0;
  for (let i = 0; i < num.length; i++) {
    let d = Number(num[num.length - 1 - i]);
    if (i % 2) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return num.length >= 12 && sum % 10 === 0;
};

/** `stateFile`: where to keep state across restarts (npm start); without it, state lives in memory. */
export function createStandin({ webhookUrls = [], webhookSecret = "whsec_standin", log = () => {}, stateFile } = {}) {
  const db = {
    customers: new Map(),
    payment_intents: new Map(),
    payment_methods: new Map(),
    charges: new Map(),
    refunds: new Map(),
    disputes: new Map(),
    products: new Map(),
    prices: new Map(),
    accounts: new Map(),
    account_links: new Map(),
    transfers: new Map(),
    balance_topups: new Map(),
    subscriptions: new Map(),
    invoices: new Map(),
    test_clocks: new Map(),
    events: [],
    idempotency: new Map(),
  };
  if (stateFile && existsSync(stateFile)) {
    const saved = JSON.parse(readFileSync(stateFile, "utf8"));
    for (const [k, v] of Object.entries(saved)) db[k] = Array.isArray(v) && k !== "events" ? new Map(v) : v;
  }
  const save = () => {
    if (!stateFile) return;
    const out = Object.fromEntries(Object.entries(db).map(([k, v]) => [k, v instanceof Map ? [...v.entries()] : v.slice(0, 500)]));
    writeFileSync(stateFile, JSON.stringify(out));
  };
  const deliveries = [];
  // Resource modules (catalog.mjs and the like) react to events here, as Stripe's own services do.
  const listeners = [];
  let closed = false;

  function emit(type, object) {
    const event = {
      id: rid("evt"),
      object: "event",
      api_version: API_VERSION,
      created: now(),
      data: { object: structuredClone(object) },
      livemode: false,
      pending_webhooks: webhookUrls.length,
      request: { id: null, idempotency_key: null },
      type,
    };
    db.events.unshift(event);
    for (const listener of listeners) listener(event);
    for (const url of webhookUrls) deliveries.push(deliver(url, event));
    return event;
  }

  /** Signs and posts an event like Stripe: `Stripe-Signature: t=…,v1=HMAC(secret, "t.body")`; retries with backoff. */
  async function deliver(url, event, attempt = 0) {
    const payload = JSON.stringify(event, null, 2);
    const t = now();
    const v1 = createHmac("sha256", webhookSecret).update(`${t}.${payload}`).digest("hex");
    try {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": `t=${t},v1=${v1}` }, body: payload });
      log(`webhook ${event.type} ${event.id} -> ${res.status}`);
      if (res.ok) return;
    } catch (err) {
      log(`webhook ${event.type} ${event.id} failed: ${err.message}`);
    }
    if (attempt < 5 && !closed) {
      // Unref'd: a pending retry never keeps a finished test run (or npm start) alive.
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt).unref());
      if (!closed) return deliver(url, event, attempt + 1);
    }
  }

  const get = (kind, id) => {
    const obj = db[kind].get(id);
    if (!obj) throw missing(kind.replace(/s$/, "").replace("_", " "), id);
    return obj;
  };
  const metadata = (m) => (m && typeof m === "object" ? Object.fromEntries(Object.entries(m).filter(([, v]) => v !== "")) : {});
  const int = (v, param) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(String(v))) throw badParam(param, `Invalid integer: ${v}`);
    return Number(v);
  };

  function createCustomer(p) {
    checkEmail(p.email, "email");
    if (p.test_clock) get("test_clocks", p.test_clock);
    const c = { id: rid("cus", 14), object: "customer", created: now(), email: p.email ?? null, name: p.name ?? null, metadata: metadata(p.metadata), livemode: false, invoice_settings: { default_payment_method: null }, test_clock: p.test_clock ?? null };
    db.customers.set(c.id, c);
    return c;
  }

  function createPaymentIntent(p) {
    const amount = int(p.amount, "amount");
    if (!amount || amount < 50) throw badParam("amount", "Amount must be at least $0.50 usd");
    if (amount > 99999999) throw badParam("amount", "Amount must be no more than $999,999.99");
    if (!p.currency) throw badParam("currency", "Missing required param: currency.");
    checkEmail(p.receipt_email, "receipt_email");
    if (p.customer) get("customers", p.customer);
    if (p.payment_method) {
      const pm = get("payment_methods", p.payment_method);
      if (pm.customer && pm.customer !== (p.customer ?? null)) throw badParam("payment_method", `The provided PaymentMethod belongs to a different Customer than the one on this PaymentIntent.`);
    }
    const id = rid("pi");
    const pi = {
      id,
      object: "payment_intent",
      amount,
      amount_capturable: 0,
      amount_received: 0,
      automatic_payment_methods: p.automatic_payment_methods?.enabled === "true" ? { enabled: true, allow_redirects: "always" } : null,
      capture_method: "automatic",
      client_secret: `${id}_secret_${randomBytes(12).toString("base64url").replace(/[-_]/g, "")}`,
      confirmation_method: "automatic",
      created: now(),
      currency: String(p.currency).toLowerCase(),
      customer: p.customer ?? null,
      description: p.description ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: metadata(p.metadata),
      next_action: null,
      payment_method: p.payment_method ?? null,
      payment_method_types: ["card"],
      receipt_email: p.receipt_email ?? null,
      setup_future_usage: p.setup_future_usage ?? null,
      status: "requires_payment_method",
    };
    db.payment_intents.set(id, pi);
    emit("payment_intent.created", pi);
    return pi;
  }

  function paymentMethodFrom(p, pi) {
    // Confirming without a card uses the one already set on the PaymentIntent.
    if (!p.payment_method && !p.payment_method_data && pi.payment_method) p = { ...p, payment_method: pi.payment_method };
    if (p.payment_method) {
      const known = db.payment_methods.get(p.payment_method);
      if (known?.customer && known.customer !== pi.customer) {
        throw badParam("payment_method", `The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again.`);
      }
      if (known) return known;
      const number = TEST_PAYMENT_METHODS[p.payment_method];
      if (!number) throw missing("payment_method", p.payment_method);
      return savePaymentMethod(number, 12, new Date().getFullYear() + 2, pi.customer);
    }
    const card = p.payment_method_data?.card;
    if (!card) throw badParam("payment_method", "You must provide a payment_method or payment_method_data to confirm a PaymentIntent.");
    const number = String(card.number ?? "").replace(/\s/g, "");
    if (!luhn(number)) throw new StripeError(402, "card_error", "Your card number is incorrect.", { code: "incorrect_number", param: "number", payment_intent: pi });
    const month = Number(card.exp_month);
    let year = Number(card.exp_year);
    if (year < 100) year += 2000;
    const expired = !month || month > 12 || new Date(year, month) <= new Date();
    if (expired) throw new StripeError(402, "card_error", "Your card's expiration date is incomplete or in the past.", { code: "expired_card", param: "exp_month", payment_intent: pi });
    if (!/^\d{3,4}$/.test(String(card.cvc ?? ""))) throw new StripeError(402, "card_error", "Your card's security code is incomplete.", { code: "incomplete_cvc", param: "cvc", payment_intent: pi });
    return savePaymentMethod(number, month, year, null, p.payment_method_data?.billing_details);
  }

  function savePaymentMethod(number, month, year, customer, billing = {}) {
    const pm = {
      id: rid("pm"),
      object: "payment_method",
      type: "card",
      card: { brand: CARDS[number]?.brand ?? "visa", last4: number.slice(-4), exp_month: month, exp_year: year, funding: "credit", country: "US" },
      billing_details: { email: billing.email ?? null, name: billing.name ?? null },
      customer,
      created: now(),
      livemode: false,
      _number: number,
    };
    db.payment_methods.set(pm.id, pm);
    return pm;
  }
  const publicPm = ({ _number, ...pm }) => pm;

  function succeed(pi) {
    const pm = db.payment_methods.get(pi.payment_method);
    const charge = {
      id: rid("ch"),
      object: "charge",
      amount: pi.amount,
      amount_captured: pi.amount,
      amount_refunded: 0,
      billing_details: pm?.billing_details ?? { email: null },
      captured: true,
      created: now(),
      currency: pi.currency,
      customer: pi.customer,
      disputed: false,
      livemode: false,
      metadata: pi.metadata,
      paid: true,
      payment_intent: pi.id,
      payment_method: pi.payment_method,
      payment_method_details: { type: "card", card: pm ? { brand: pm.card.brand, last4: pm.card.last4 } : null },
      receipt_email: pi.receipt_email,
      refunded: false,
      refunds: { object: "list", data: [], has_more: false, total_count: 0, url: "" },
      status: "succeeded",
    };
    db.charges.set(charge.id, charge);
    charge.refunds.url = `/v1/charges/${charge.id}/refunds`;
    if (pi.setup_future_usage && pi.customer && pm) pm.customer = pi.customer;
    Object.assign(pi, { status: "succeeded", amount_received: pi.amount, latest_charge: charge.id, next_action: null, last_payment_error: null });
    emit("charge.succeeded", charge);
    emit("payment_intent.succeeded", pi);
  }

  function fail(pi, card, pm) {
    const error = { type: "card_error", code: card.code, decline_code: card.decline_code, message: card.message, payment_method: publicPm(pm) };
    Object.assign(pi, { status: "requires_payment_method", last_payment_error: error, payment_method: null, next_action: null });
    emit("payment_intent.payment_failed", pi);
    throw new StripeError(402, "card_error", card.message, { code: card.code, decline_code: card.decline_code, payment_intent: structuredClone(pi) });
  }

  function confirm(pi, p, base) {
    if (pi.status === "succeeded") throw new StripeError(400, "invalid_request_error", "This PaymentIntent has already succeeded.", { code: "payment_intent_unexpected_state", payment_intent: pi });
    if (p.receipt_email) pi.receipt_email = p.receipt_email;
    const pm = paymentMethodFrom(p, pi);
    pi.payment_method = pm.id;
    const card = CARDS[pm._number] ?? { outcome: "success" };
    if (p.off_session === "true") {
      // Off-session charges are for cards saved on the PaymentIntent's own Customer only.
      if (!pi.customer || pm.customer !== pi.customer) throw badParam("payment_method", "This PaymentMethod is not attached to the PaymentIntent's customer; off_session payments need a saved card.");
      if (card.outcome === "authenticate") return fail(pi, AUTH_REQUIRED, pm);
    }
    if (card.outcome === "decline") return fail(pi, card, pm);
    if (card.outcome === "authenticate") {
      pi.status = "requires_action";
      pi.next_action = {
        type: "redirect_to_url",
        redirect_to_url: { url: `${base}/3ds/${pi.id}?client_secret=${encodeURIComponent(pi.client_secret)}&return_url=${encodeURIComponent(p.return_url ?? "")}`, return_url: p.return_url ?? null },
      };
      emit("payment_intent.requires_action", pi);
      return;
    }
    succeed(pi);
  }

  function refund(p) {
    let charge;
    if (p.charge) charge = get("charges", p.charge);
    else if (p.payment_intent) {
      const pi = get("payment_intents", p.payment_intent);
      if (!pi.latest_charge) throw badParam("payment_intent", `PaymentIntent ${pi.id} does not have a successful charge to refund.`);
      charge = get("charges", pi.latest_charge);
    } else throw badParam("charge", "One of the following params should be provided for this request: payment_intent or charge.");
    const amount = int(p.amount, "amount") ?? charge.amount - charge.amount_refunded;
    if (amount <= 0 || amount > charge.amount - charge.amount_refunded) {
      throw new StripeError(400, "invalid_request_error", `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${((charge.amount - charge.amount_refunded) / 100).toFixed(2)})`, { code: "amount_too_large", param: "amount" });
    }
    const r = { id: rid("re"), object: "refund", amount, charge: charge.id, created: now(), currency: charge.currency, metadata: metadata(p.metadata), payment_intent: charge.payment_intent, reason: p.reason ?? null, status: "succeeded" };
    db.refunds.set(r.id, r);
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    charge.refunds.data.unshift(r);
    charge.refunds.total_count += 1;
    emit("refund.created", r);
    emit("charge.refunded", charge);
    return r;
  }

  /** A cardholder's dispute; `inquiry` opens a retrieval request (warning_*), which moves no money. */
  function dispute(chargeId, p = {}) {
    const charge = get("charges", chargeId);
    const status = p.inquiry === "true" ? "warning_needs_response" : "needs_response";
    const d = { id: rid("dp"), object: "dispute", amount: charge.amount, charge: charge.id, created: now(), currency: charge.currency, payment_intent: charge.payment_intent, reason: "fraudulent", status, livemode: false, metadata: {} };
    db.disputes.set(d.id, d);
    charge.disputed = true;
    emit("charge.dispute.created", d);
    return d;
  }

  const requireClientSecret = (pi, p) => {
    if (p.client_secret !== pi.client_secret) throw new StripeError(400, "invalid_request_error", "The client_secret provided does not match the client_secret associated with the PaymentIntent.", { param: "client_secret" });
  };

  // [method, path pattern, who may call ("secret" | "publishable"), handler(params, match, ctx)]
  const routes = [
    ["POST", /^\/v1\/customers$/, "secret", (p) => createCustomer(p)],
    ["GET", /^\/v1\/customers$/, "secret", (p) => list([...db.customers.values()].filter((c) => !p.email || c.email === p.email), p, "/v1/customers")],
    ["GET", /^\/v1\/customers\/(cus_\w+)$/, "secret", (_p, m) => get("customers", m[1])],
    ["POST", /^\/v1\/customers\/(cus_\w+)$/, "secret", (p, m) => {
      const c = get("customers", m[1]);
      if (p.email !== undefined) c.email = p.email || null;
      if (p.name !== undefined) c.name = p.name || null;
      if (p.metadata) Object.assign(c.metadata, metadata(p.metadata));
      return c;
    }],
    ["POST", /^\/v1\/payment_intents$/, "secret", (p, _m, ctx) => {
      const pi = createPaymentIntent(p);
      // confirm=true creates and confirms in one call (off_session charges use this).
      if (p.confirm === "true") confirm(pi, { payment_method: p.payment_method, off_session: p.off_session, receipt_email: p.receipt_email, return_url: p.return_url }, ctx.base);
      return pi;
    }],
    ["GET", /^\/v1\/payment_intents\/(pi_\w+)$/, "either", (p, m, ctx) => {
      const pi = get("payment_intents", m[1]);
      if (ctx.auth === "publishable") requireClientSecret(pi, p);
      return pi;
    }],
    ["POST", /^\/v1\/payment_intents\/(pi_\w+)$/, "secret", (p, m) => {
      const pi = get("payment_intents", m[1]);
      if (pi.status === "succeeded") throw new StripeError(400, "invalid_request_error", "This PaymentIntent's amount could not be updated because it has a status of succeeded.", { code: "payment_intent_unexpected_state" });
      if (p.amount !== undefined) pi.amount = int(p.amount, "amount");
      if (p.receipt_email !== undefined) pi.receipt_email = p.receipt_email || null;
      if (p.customer !== undefined) pi.customer = get("customers", p.customer).id;
      if (p.metadata) Object.assign(pi.metadata, metadata(p.metadata));
      return pi;
    }],
    ["POST", /^\/v1\/payment_intents\/(pi_\w+)\/confirm$/, "either", (p, m, ctx) => {
      const pi = get("payment_intents", m[1]);
      if (ctx.auth === "publishable") requireClientSecret(pi, p);
      confirm(pi, p, ctx.base);
      return pi;
    }],
    ["POST", /^\/v1\/payment_intents\/(pi_\w+)\/cancel$/, "secret", (_p, m) => {
      const pi = get("payment_intents", m[1]);
      if (pi.status === "succeeded") throw new StripeError(400, "invalid_request_error", "You cannot cancel this PaymentIntent because it has a status of succeeded.", { code: "payment_intent_unexpected_state" });
      pi.status = "canceled";
      emit("payment_intent.canceled", pi);
      return pi;
    }],
    ["GET", /^\/v1\/payment_methods\/(pm_\w+)$/, "secret", (_p, m) => publicPm(get("payment_methods", m[1]))],
    // Saved cards: listed newest first, like Stripe.
    ["GET", /^\/v1\/customers\/(cus_\w+)\/payment_methods$/, "secret", (p, m) => savedCards(get("customers", m[1]).id, p, `/v1/customers/${m[1]}/payment_methods`)],
    ["GET", /^\/v1\/payment_methods$/, "secret", (p) => {
      if (!p.customer) throw badParam("customer", "Missing required param: customer.");
      return savedCards(get("customers", p.customer).id, p, "/v1/payment_methods");
    }],
    ["POST", /^\/v1\/payment_methods\/(pm_\w+)\/attach$/, "secret", (p, m) => {
      const customer = get("customers", p.customer ?? "").id;
      const number = TEST_PAYMENT_METHODS[m[1]];
      // A test token attaches as a fresh PaymentMethod, as in Stripe's test mode.
      if (number) return publicPm(savePaymentMethod(number, 12, new Date().getFullYear() + 2, customer));
      const pm = get("payment_methods", m[1]);
      if (pm.customer && pm.customer !== customer) throw badParam("payment_method", "The payment method you provided has already been attached to a customer.");
      pm.customer = customer;
      return publicPm(pm);
    }],
    ["POST", /^\/v1\/payment_methods\/(pm_\w+)\/detach$/, "secret", (_p, m) => {
      const pm = get("payment_methods", m[1]);
      if (!pm.customer) throw badParam("payment_method", "The payment method you provided is not attached to a customer so detachment is impossible.");
      pm.customer = null;
      return publicPm(pm);
    }],
    ["GET", /^\/v1\/charges\/(ch_\w+)$/, "secret", (_p, m) => get("charges", m[1])],
    ["POST", /^\/v1\/refunds$/, "secret", (p) => refund(p)],
    ["GET", /^\/v1\/refunds\/(re_\w+)$/, "secret", (_p, m) => get("refunds", m[1])],
    ["GET", /^\/v1\/disputes\/(dp_\w+)$/, "secret", (_p, m) => get("disputes", m[1])],
    ["GET", /^\/v1\/events\/(evt_\w+)$/, "secret", (_p, m) => {
      const e = db.events.find((ev) => ev.id === m[1]);
      if (!e) throw missing("event", m[1]);
      return e;
    }],
    ["GET", /^\/v1\/events$/, "secret", (p) => list(db.events.filter((e) => !p.type || e.type === p.type), p, "/v1/events")],
    // Stand-in controls: what a real card network or bank would do.
    ["POST", /^\/_standin\/payment_intents\/(pi_\w+)\/authenticate$/, "either", (p, m) => {
      const pi = get("payment_intents", m[1]);
      requireClientSecret(pi, p);
      if (pi.status !== "requires_action") throw new StripeError(400, "invalid_request_error", "This PaymentIntent does not require authentication.");
      if (p.outcome === "fail") {
        const pm = db.payment_methods.get(pi.payment_method);
        Object.assign(pi, {
          status: "requires_payment_method",
          next_action: null,
          payment_method: null,
          last_payment_error: { type: "card_error", code: "payment_intent_authentication_failure", message: "We are unable to authenticate your payment method. Please choose a different payment method and try again.", payment_method: pm ? publicPm(pm) : null },
        });
        emit("payment_intent.payment_failed", pi);
      } else succeed(pi);
      return pi;
    }],
    ["POST", /^\/_standin\/charges\/(ch_\w+)\/dispute$/, "secret", (p, m) => dispute(m[1], p)],
    ["POST", /^\/_standin\/disputes\/(dp_\w+)\/close$/, "secret", (p, m) => {
      const d = get("disputes", m[1]);
      if (!["won", "lost"].includes(p.outcome)) throw badParam("outcome", "outcome must be won or lost");
      d.status = p.outcome;
      emit("charge.dispute.closed", d);
      return d;
    }],
  ];

  // Resource families kept in modules of their own get the same helpers the routes above use.
  const kit = { db, emit, get, metadata, int, rid, now, list, StripeError, missing, badParam, on: (fn) => listeners.push(fn), raw, CARDS, TEST_PAYMENT_METHODS };
  routes.push(...catalogRoutes(kit));
  routes.push(...connectRoutes(kit));
  routes.push(...billingRoutes(kit));

  function savedCards(customer, p, url) {
    const cards = [...db.payment_methods.values()].filter((pm) => pm.customer === customer && (!p.type || pm.type === p.type)).reverse();
    return list(cards.map(publicPm), p, url);
  }

  function list(items, p, url) {
    const limit = Math.min(100, Number(p.limit ?? 10));
    return { object: "list", data: items.slice(0, limit), has_more: items.length > limit, url };
  }

  function authenticate(req) {
    const header = req.headers.authorization ?? "";
    let key = /^Bearer (.+)$/.exec(header)?.[1];
    if (!key && header.startsWith("Basic ")) key = Buffer.from(header.slice(6), "base64").toString().split(":")[0];
    if (!key) throw new StripeError(401, "invalid_request_error", "You did not provide an API key.");
    if (/^(sk|pk|rk)_live_/.test(key)) throw new StripeError(401, "invalid_request_error", "The ApeWall Stripe stand-in refuses live keys: it only plays Stripe's test mode.");
    if (key.startsWith("sk_test_") || key.startsWith("rk_test_")) return { auth: "secret", key };
    if (key.startsWith("pk_test_")) return { auth: "publishable", key };
    throw new StripeError(401, "invalid_request_error", `Invalid API Key provided: ${key.slice(0, 8)}****`);
  }

  async function handle(req, body, base) {
    const url = new URL(req.url, base);
    const params = req.method === "GET" ? parseForm(url.searchParams.toString()) : parseForm(body);
    const route = routes.find(([method, pattern]) => method === req.method && pattern.test(url.pathname));
    if (!route) throw new StripeError(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`);
    // "public" routes are the pages a browser opens (hosted onboarding and the like): no API key.
    const ctx = route[2] === "public" ? { auth: "public", key: "", base } : { ...authenticate(req), base };
    if (route[2] === "secret" && ctx.auth !== "secret") throw new StripeError(401, "invalid_request_error", "This API call cannot be made with a publishable API key. Please use a secret API key.");
    const idemKey = req.method === "POST" ? req.headers["idempotency-key"] : undefined;
    const scope = idemKey && `${ctx.key}:${idemKey}`;
    if (scope && db.idempotency.has(scope)) {
      const saved = db.idempotency.get(scope);
      if (saved.fingerprint !== `${url.pathname}?${body}`) {
        throw new StripeError(400, "idempotency_error", `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`);
      }
      return { status: saved.status, body: saved.body, replayed: true };
    }
    let status = 200;
    let result;
    try {
      result = route[3](params, url.pathname.match(route[1]), ctx);
      if (result?.[RAW]) {
        if (req.method === "POST") save();
        return result[RAW];
      }
      result = result?._number ? publicPm(result) : result;
    } catch (err) {
      if (!(err instanceof StripeError)) throw err;
      status = err.status;
      result = err.body;
    }
    const json = JSON.stringify(result, null, 2);
    if (scope) db.idempotency.set(scope, { fingerprint: `${url.pathname}?${body}`, status, body: json });
    if (req.method === "POST") save();
    return { status, body: json };
  }

  const server = createServer(async (req, res) => {
    const base = `http://${req.headers.host}`;
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString("utf8");
    const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "authorization, content-type, idempotency-key, stripe-version, cf-connecting-ip", "access-control-allow-methods": "GET, POST, OPTIONS" };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    if (req.method === "GET" && (req.url === "/v3" || req.url === "/v3/")) {
      return res.writeHead(200, { ...cors, "content-type": "application/javascript; charset=utf-8", "cache-control": "no-store" }).end(STRIPE_JS.replace("__STANDIN_BASE__", base));
    }
    if (req.method === "GET" && req.url === "/_standin/health") return res.writeHead(200, cors).end("ok");
    const requestId = rid("req", 14);
    try {
      const out = await handle(req, body, base);
      log(`${req.method} ${req.url} -> ${out.status}${out.replayed ? " (replayed)" : ""}`);
      if (out.headers) return res.writeHead(out.status, out.headers).end(out.body);
      res.writeHead(out.status, { ...cors, "content-type": "application/json", "request-id": requestId, "stripe-version": API_VERSION, ...(out.replayed ? { "idempotent-replayed": "true" } : {}) }).end(out.body);
    } catch (err) {
      const e = err instanceof StripeError ? err : new StripeError(500, "api_error", `Stand-in error: ${err.message}`);
      log(`${req.method} ${req.url} -> ${e.status} ${e.message}`);
      res.writeHead(e.status, { ...cors, "content-type": "application/json", "request-id": requestId }).end(JSON.stringify(e.body));
    }
  });

  return {
    server,
    db,
    emit,
    /** Resolves once every webhook sent so far was delivered (or gave up). */
    async flushWebhooks() {
      while (deliveries.length) await Promise.allSettled(deliveries.splice(0));
    },
    listen(port = 0, host = "127.0.0.1") {
      return new Promise((resolve) => server.listen(port, host, () => resolve(`http://${host}:${server.address().port}`)));
    },
    close: () =>
      new Promise((resolve) => {
        closed = true;
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
