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
import { refundDisputeRoutes } from "./refunds-disputes.mjs";
import { parseForm } from "./form.mjs";
import { AUTH_REQUIRED, CARDS, luhn, paymentMethods, TEST_PAYMENT_METHODS } from "./payment-methods.mjs";

// The API version the pinned stripe package (23.1.0) sends and is typed for.
export const API_VERSION = "2026-10-28.endive";
/** Test mode holds card payments as pending for this long (available_on), as a US account's 2-day schedule does. */
const PENDING_DAYS = 2;
const DAY = 24 * 60 * 60;
const STRIPE_JS = readFileSync(new URL("./stripe-js.js", import.meta.url), "utf8");

const rid = (prefix, n = 24) => `${prefix}_${randomBytes(n).toString("base64url").replace(/[-_]/g, "").slice(0, n)}`;
const now = () => Math.floor(Date.now() / 1000);

export class StripeError extends Error {
  /** `validation`: refused before any work began, so Stripe keeps no result under the Idempotency-Key. */
  constructor(status, type, message, extra = {}, { validation = false } = {}) {
    super(message);
    this.status = status;
    this.validation = validation;
    this.body = { error: { type, message, ...extra } };
  }
}
// A handler may answer with a page or a redirect instead of a JSON object (hosted pages).
const RAW = Symbol("raw");
const raw = (status, headers, body = "") => ({ [RAW]: { status, headers, body } });
const missing = (kind, id, param = "id") =>
  new StripeError(
    404,
    "invalid_request_error",
    `No such ${kind}: '${id}'`,
    { code: "resource_missing", param },
    { validation: true },
  );
const badParam = (param, message) =>
  new StripeError(400, "invalid_request_error", message, { param }, { validation: true });
const missingParam = (param) =>
  new StripeError(
    400,
    "invalid_request_error",
    `Missing required param: ${param}.`,
    { code: "parameter_missing", param },
    { validation: true },
  );
const unexpectedState = (message, pi) =>
  new StripeError(400, "invalid_request_error", message, {
    code: "payment_intent_unexpected_state",
    payment_intent: structuredClone(pi),
  });
// Private fields (the card number, links between records) start with "_" and never leave the stand-in.
const publicJson = (value, space) => JSON.stringify(value, (k, v) => (k.startsWith("_") ? undefined : v), space);
// Stripe refuses a malformed address with code email_invalid ("not properly formatted"): here a
// local part, "@", and a domain of dot-separated DNS labels (letters, digits, inner hyphens) ending
// in a letters-only top-level label.
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const EMAIL = new RegExp(`^[^\\s@"(),:;<>\\[\\]]{1,64}@(?:${LABEL}\\.)+[a-z]{2,63}$`, "i");
const checkEmail = (value, param) => {
  if (value === undefined || value === null || value === "") return;
  if (!EMAIL.test(String(value)) || String(value).length > 512) {
    throw new StripeError(
      400,
      "invalid_request_error",
      `Invalid email address: ${value}`,
      { code: "email_invalid", param },
      { validation: true },
    );
  }
};

/**
 * `stateFile`: where to keep state across restarts (npm start); without it, state lives in memory.
 * Webhook endpoints, as a Stripe account has them: `webhookUrls` are "Your account" endpoints, sent
 * the events about the platform's own objects and signed with `webhookSecret`; `connectWebhookUrls`
 * are "Connected accounts" endpoints, sent only the events about a connected account (`account`
 * set) and signed with `connectWebhookSecret`. An endpoint never gets the other kind, so every
 * delivery verifies with the one secret its endpoint has (the app points both at one path).
 */
export function createStandin({
  webhookUrls = [],
  connectWebhookUrls = [],
  webhookSecret = "whsec_standin",
  connectWebhookSecret = webhookSecret,
  log = () => {},
  stateFile,
} = {}) {
  const endpoints = [
    ...webhookUrls.map((url) => ({ url, secret: webhookSecret, connect: false })),
    ...connectWebhookUrls.map((url) => ({ url, secret: connectWebhookSecret, connect: true })),
  ];
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
    balance_transactions: new Map(),
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
    const out = Object.fromEntries(
      Object.entries(db).map(([k, v]) => [k, v instanceof Map ? [...v.entries()] : v.slice(0, 500)]),
    );
    writeFileSync(stateFile, JSON.stringify(out));
  };
  const deliveries = [];
  // Resource modules (catalog.mjs and the like) react to events here, as Stripe's own services do.
  const listeners = [];
  let closed = false;

  function emit(type, object) {
    // An event about a connected account names it in `account` (Stripe sends those to Connect endpoints).
    const account = type.startsWith("account.")
      ? object.object === "account"
        ? object.id
        : object.account
      : undefined;
    const to = endpoints.filter((e) => e.connect === (typeof account === "string"));
    const event = {
      id: rid("evt"),
      object: "event",
      api_version: API_VERSION,
      created: now(),
      data: { object: JSON.parse(publicJson(object)) },
      livemode: false,
      pending_webhooks: to.length,
      request: { id: null, idempotency_key: null },
      type,
    };
    if (typeof account === "string") event.account = account;
    db.events.unshift(event);
    for (const listener of listeners) listener(event);
    for (const endpoint of to) deliveries.push(deliver(endpoint, event));
    return event;
  }

  /** Signs and posts an event like Stripe: `Stripe-Signature: t=…,v1=HMAC(endpoint secret, "t.body")`; retries with backoff. */
  async function deliver({ url, secret }, event, attempt = 0) {
    const payload = publicJson(event, 2);
    const t = now();
    const v1 = createHmac("sha256", secret).update(`${t}.${payload}`).digest("hex");
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": `t=${t},v1=${v1}` },
        body: payload,
      });
      log(`webhook ${event.type} ${event.id} -> ${res.status}`);
      if (res.ok) return;
    } catch (err) {
      log(`webhook ${event.type} ${event.id} failed: ${err.message}`);
    }
    if (attempt < 5 && !closed) {
      // Unref'd: a pending retry never keeps a finished test run (or npm start) alive.
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt).unref());
      if (!closed) return deliver({ url, secret }, event, attempt + 1);
    }
  }

  const get = (kind, id) => {
    const obj = db[kind].get(id);
    if (!obj) throw missing(kind.replace(/s$/, "").replace("_", " "), id);
    return obj;
  };
  const metadata = (m) =>
    m && typeof m === "object" ? Object.fromEntries(Object.entries(m).filter(([, v]) => v !== "")) : {};
  const int = (v, param) => {
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(String(v))) throw badParam(param, `Invalid integer: ${v}`);
    return Number(v);
  };

  // Cards, Link and what a charge says about them (./payment-methods.mjs).
  const { savePaymentMethod, saveLinkPaymentMethod, publicPm, paymentMethodDetails } = paymentMethods({ db, rid, now });

  function createCustomer(p) {
    checkEmail(p.email, "email");
    if (p.test_clock) get("test_clocks", p.test_clock);
    const c = {
      id: rid("cus", 14),
      object: "customer",
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: p.description ?? null,
      discount: null,
      email: p.email ?? null,
      invoice_prefix: randomBytes(4).toString("hex").toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: metadata(p.metadata),
      name: p.name ?? null,
      next_invoice_sequence: 1,
      phone: null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: "none",
      test_clock: p.test_clock ?? null,
    };
    db.customers.set(c.id, c);
    emit("customer.created", c);
    return c;
  }

  // ---- the platform balance: one balance transaction per movement of money ----

  /**
   * Funds land as pending and become available at `available_on` (`status` is read against the clock).
   * `reportingCategory` tells apart the kinds of `adjustment` (dispute, dispute_reversal, refund_failure).
   * `fee` is Stripe's (a card charge's processing fee, a dispute fee; negative when given back) and
   * `net` is `amount - fee`, as Stripe reports them.
   */
  function balanceTransaction({
    amount,
    type,
    source,
    description = null,
    availableOn = now(),
    currency = "usd",
    reportingCategory = type,
    fee = 0,
    feeDescription = "Stripe processing fees",
  }) {
    const feeDetails = fee
      ? [{ amount: fee, application: null, currency, description: feeDescription, type: "stripe_fee" }]
      : [];
    const t = {
      id: rid("txn", 24),
      object: "balance_transaction",
      amount,
      available_on: availableOn,
      balance_type: "payments",
      created: now(),
      currency,
      description,
      exchange_rate: null,
      fee,
      fee_details: feeDetails,
      net: amount - fee,
      reporting_category: reportingCategory,
      source,
      status: "pending",
      type,
    };
    db.balance_transactions.set(t.id, t);
    return t.id;
  }
  /** Stripe's standard US card pricing: 2.9% + 30¢ per successful charge, kept when it is refunded. */
  const processingFee = (amount) => Math.round(amount * 0.029) + 30;
  const publicTxn = (t) => ({ ...t, status: t.available_on <= now() ? "available" : "pending" });
  /** The platform balance in cents (usd): `available` can be paid out or transferred now, `pending` cannot yet. */
  function balanceOf() {
    const out = { available: 0, pending: 0 };
    for (const t of db.balance_transactions.values()) out[t.available_on <= now() ? "available" : "pending"] += t.net;
    return out;
  }

  // ---- PaymentIntents: Stripe's documented lifecycle ----
  //   create: requires_payment_method, or requires_confirmation when it names a payment_method
  //   confirm (from requires_payment_method | requires_confirmation):
  //     succeeded (requires_capture with capture_method=manual) | requires_action (the bank asks the
  //     cardholder) | a decline: 402, back to requires_payment_method with last_payment_error and a failed Charge
  //   capture (from requires_capture): succeeded
  //   cancel (from requires_payment_method | requires_capture | requires_confirmation | requires_action | processing):
  //     canceled, with canceled_at and cancellation_reason. canceled and succeeded are final.
  const CANCELABLE = [
    "requires_payment_method",
    "requires_capture",
    "requires_confirmation",
    "requires_action",
    "processing",
  ];
  const CONFIRMABLE = ["requires_payment_method", "requires_confirmation"];
  const CANCELLATION_REASONS = ["duplicate", "fraudulent", "requested_by_customer", "abandoned"];
  // The payment method types this test account has turned on (cards, and Link's wallet).
  const ACCOUNT_METHODS = ["card", "link"];

  /** A PaymentIntent with every property Stripe sends; `fields` are the ones this call sets. */
  function newPaymentIntent(fields) {
    const id = rid("pi");
    const pi = {
      id,
      object: "payment_intent",
      allowed_payment_method_types: null,
      amount: 0,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: null,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: "automatic_async",
      client_secret: `${id}_secret_${randomBytes(12).toString("base64url").replace(/[-_]/g, "")}`,
      confirmation_method: "automatic",
      created: now(),
      currency: "usd",
      customer: null,
      customer_account: null,
      description: null,
      excluded_payment_method_types: null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      managed_payments: null,
      metadata: {},
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_configuration_details: null,
      payment_method_options: {
        card: { installments: null, mandate_options: null, network: null, request_three_d_secure: "automatic" },
      },
      payment_method_types: ["card"],
      payment_record: null,
      processing: null,
      receipt_email: null,
      review: null,
      setup_future_usage: null,
      shipping: null,
      source: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: "requires_payment_method",
      transfer_group: null,
      ...fields,
    };
    db.payment_intents.set(id, pi);
    emit("payment_intent.created", pi);
    return pi;
  }

  function createPaymentIntent(p) {
    if (p.amount === undefined) throw missingParam("amount");
    if (!p.currency) throw missingParam("currency");
    const amount = int(p.amount, "amount");
    if (!amount || amount < 50) throw badParam("amount", "Amount must be at least $0.50 usd");
    if (amount > 99999999) throw badParam("amount", "Amount must be no more than $999,999.99");
    if (p.capture_method && !["automatic", "automatic_async", "manual"].includes(p.capture_method))
      throw badParam("capture_method", "Invalid capture_method: must be one of automatic, automatic_async, or manual");
    checkEmail(p.receipt_email, "receipt_email");
    if (p.customer) get("customers", p.customer);
    const allowed = Array.isArray(p.allowed_payment_method_types) ? p.allowed_payment_method_types : null;
    if (allowed && !allowed.some((t) => ACCOUNT_METHODS.includes(t))) {
      throw badParam(
        "allowed_payment_method_types",
        `The payment method type provided: ${allowed.join(", ")} is invalid. Please ensure the provided type is activated in your dashboard (https://dashboard.stripe.com/account/payments/settings) and your account is enabled for any preview features that you are trying to use.`,
      );
    }
    let paymentMethod = null;
    if (p.payment_method) {
      paymentMethod = resolvePaymentMethod(p.payment_method, p.customer ?? null).id;
    }
    return newPaymentIntent({
      amount,
      automatic_payment_methods:
        p.automatic_payment_methods?.enabled === "true"
          ? { allow_redirects: p.automatic_payment_methods.allow_redirects ?? "always", enabled: true }
          : null,
      capture_method: p.capture_method ?? "automatic_async",
      currency: String(p.currency).toLowerCase(),
      customer: p.customer ?? null,
      description: p.description ?? null,
      metadata: metadata(p.metadata),
      payment_method: paymentMethod,
      // API version 2026-10-28 takes the allowed types as allowed_payment_method_types and answers
      // with those of them the account can take in payment_method_types.
      allowed_payment_method_types: allowed,
      payment_method_types: allowed ? allowed.filter((t) => ACCOUNT_METHODS.includes(t)) : ["card"],
      receipt_email: p.receipt_email ?? null,
      setup_future_usage: p.setup_future_usage ?? null,
      statement_descriptor_suffix: p.statement_descriptor_suffix ?? null,
      status: paymentMethod ? "requires_confirmation" : "requires_payment_method",
      transfer_group: p.transfer_group ?? null,
    });
  }

  /**
   * A PaymentMethod by id; a test PaymentMethod (pm_card_visa…) becomes a fresh one, as in test mode.
   * A card saved on a Customer can only be used with that Customer.
   */
  function resolvePaymentMethod(id, customer) {
    const known = db.payment_methods.get(id);
    if (known) {
      if (known.customer && known.customer !== customer) {
        throw badParam(
          "payment_method",
          `The provided PaymentMethod belongs to a different Customer than the one on this PaymentIntent.`,
        );
      }
      return known;
    }
    const number = TEST_PAYMENT_METHODS[id];
    if (!number) throw missing("payment_method", id, "payment_method");
    return savePaymentMethod(number, 12, new Date().getFullYear() + 2, null);
  }

  function paymentMethodFrom(p, pi) {
    // Confirming without a card uses the one already set on the PaymentIntent.
    if (!p.payment_method && !p.payment_method_data && pi.payment_method)
      p = { ...p, payment_method: pi.payment_method };
    if (p.payment_method) return resolvePaymentMethod(p.payment_method, pi.customer);
    if (p.payment_method_data?.type === "link") return saveLinkPaymentMethod(p.payment_method_data.billing_details);
    const card = p.payment_method_data?.card;
    if (!card)
      throw badParam(
        "payment_method",
        "You must provide a payment_method or payment_method_data to confirm a PaymentIntent.",
      );
    const number = String(card.number ?? "").replace(/\s/g, "");
    if (!luhn(number))
      throw new StripeError(
        402,
        "card_error",
        "Your card number is incorrect.",
        { code: "incorrect_number", param: "number", payment_intent: pi },
        { validation: true },
      );
    const month = Number(card.exp_month);
    let year = Number(card.exp_year);
    if (year < 100) year += 2000;
    const expired = !month || month > 12 || new Date(year, month) <= new Date();
    if (expired)
      throw new StripeError(
        402,
        "card_error",
        "Your card's expiration date is incomplete or in the past.",
        { code: "expired_card", param: "exp_month", payment_intent: pi },
        { validation: true },
      );
    if (!/^\d{3,4}$/.test(String(card.cvc ?? "")))
      throw new StripeError(
        402,
        "card_error",
        "Your card's security code is incomplete.",
        { code: "incomplete_cvc", param: "cvc", payment_intent: pi },
        { validation: true },
      );
    return savePaymentMethod(number, month, year, null, p.payment_method_data?.billing_details);
  }

  /** A Charge with every property Stripe sends, for an attempt on `pi` with `pm`. */
  function newCharge(pi, pm, fields) {
    const charge = {
      id: rid("ch"),
      object: "charge",
      amount: pi.amount,
      amount_captured: 0,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: null,
      billing_details: pm?.billing_details ?? { address: null, email: null, name: null, phone: null, tax_id: null },
      calculated_statement_descriptor: "APEWALL",
      captured: false,
      created: now(),
      currency: pi.currency,
      customer: pi.customer,
      description: pi.description,
      disputed: false,
      failure_balance_transaction: null,
      failure_code: null,
      failure_message: null,
      fraud_details: {},
      livemode: false,
      metadata: pi.metadata,
      on_behalf_of: null,
      outcome: {
        advice_code: null,
        network_advice_code: null,
        network_decline_code: null,
        network_status: "approved_by_network",
        reason: null,
        risk_level: "normal",
        risk_score: 20,
        seller_message: "Payment complete.",
        type: "authorized",
      },
      paid: false,
      payment_intent: pi.id,
      payment_method: pm?.id ?? null,
      payment_method_details: paymentMethodDetails(pm),
      receipt_email: pi.receipt_email,
      receipt_number: null,
      receipt_url: null,
      refunded: false,
      review: null,
      shipping: null,
      source: null,
      source_transfer: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: "pending",
      transfer_data: null,
      transfer_group: pi.transfer_group,
      // What an authorisation released without capturing it (counted in amount_refunded, no Refund object).
      _released: 0,
      ...fields,
    };
    charge.receipt_url = `https://pay.stripe.com/receipts/standin/${charge.id}`;
    db.charges.set(charge.id, charge);
    pi.latest_charge = charge.id;
    return charge;
  }

  /** The card's money reaches the platform balance: pending until available_on, unless the card skips that. */
  function settleCharge(charge, card, amount) {
    charge.balance_transaction = balanceTransaction({
      amount,
      type: "charge",
      source: charge.id,
      currency: charge.currency,
      availableOn: card?.bypassPending ? now() : now() + PENDING_DAYS * DAY,
      fee: processingFee(amount),
    });
  }

  function succeed(pi) {
    const pm = db.payment_methods.get(pi.payment_method);
    const card = pm ? CARDS[pm._number] : undefined;
    const manual = pi.capture_method === "manual";
    const charge = newCharge(pi, pm, {
      captured: !manual,
      amount_captured: manual ? 0 : pi.amount,
      paid: true,
      status: "succeeded",
    });
    if (!manual) settleCharge(charge, card, pi.amount);
    if (pi.setup_future_usage && pi.customer && pm) {
      pm.customer = pi.customer;
      pm._setUpOffSession = true;
    }
    Object.assign(
      pi,
      { next_action: null, last_payment_error: null },
      manual
        ? { status: "requires_capture", amount_capturable: pi.amount }
        : { status: "succeeded", amount_received: pi.amount },
    );
    emit("charge.succeeded", publicCharge(charge));
    emit(manual ? "payment_intent.amount_capturable_updated" : "payment_intent.succeeded", pi);
  }

  /** A decline: the failed Charge is recorded, the intent waits for another card, and the caller gets a 402. */
  function fail(pi, card, pm) {
    const charge = newCharge(pi, pm, {
      failure_code: card.code,
      failure_message: card.message,
      outcome: {
        advice_code: null,
        network_advice_code: null,
        network_decline_code: null,
        network_status: "declined_by_network",
        reason: card.decline_code ?? null,
        risk_level: "normal",
        risk_score: 20,
        seller_message: "The bank did not return any further details with this decline.",
        type: "issuer_declined",
      },
      status: "failed",
    });
    const error = {
      type: "card_error",
      charge: charge.id,
      code: card.code,
      decline_code: card.decline_code,
      doc_url: `https://stripe.com/docs/error-codes/${card.code.replace(/_/g, "-")}`,
      message: card.message,
      payment_method: publicPm(pm),
    };
    Object.assign(pi, {
      status: "requires_payment_method",
      last_payment_error: error,
      payment_method: null,
      next_action: null,
    });
    emit("charge.failed", publicCharge(charge));
    emit("payment_intent.payment_failed", pi);
    throw new StripeError(402, "card_error", card.message, {
      charge: charge.id,
      code: card.code,
      decline_code: card.decline_code,
      payment_intent: structuredClone(pi),
    });
  }

  function confirm(pi, p, base) {
    if (pi.status === "succeeded")
      throw unexpectedState(
        "You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.",
        pi,
      );
    if (!CONFIRMABLE.includes(pi.status)) {
      throw unexpectedState(
        `You cannot confirm this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be confirmed: ${CONFIRMABLE.join(", ")}.`,
        pi,
      );
    }
    if (p.receipt_email) pi.receipt_email = p.receipt_email;
    const pm = paymentMethodFrom(p, pi);
    if (!pi.payment_method_types.includes(pm.type)) {
      throw new StripeError(
        400,
        "invalid_request_error",
        `The PaymentMethod provided (${pm.type}) is not allowed for this PaymentIntent. Please attach a PaymentMethod of one of the following types: ${pi.payment_method_types.join(", ")}. Alternatively update the allowed payment_method_types for this PaymentIntent to include "${pm.type}".`,
        { code: "payment_intent_incompatible_payment_method", param: "payment_method" },
      );
    }
    const offSession = p.off_session === "true" || p.off_session === "one_off" || p.off_session === "recurring";
    // Off-session charges are for cards saved on the PaymentIntent's own Customer only.
    if (offSession && (!pi.customer || pm.customer !== pi.customer))
      throw badParam(
        "payment_method",
        "This PaymentMethod is not attached to the PaymentIntent's customer; off_session payments need a saved card.",
      );
    pi.payment_method = pm.id;
    if (pm.type === "link" && !pm._number) return startProcessing(pi, pm);
    const card = CARDS[pm._number] ?? { outcome: "success" };
    if (card.outcome === "authenticate" && offSession && (card.always || !pm._setUpOffSession))
      return fail(pi, AUTH_REQUIRED, pm);
    if (card.outcome === "decline") return fail(pi, card, pm);
    if (card.outcome === "authenticate" && !offSession) {
      pi.status = "requires_action";
      pi.next_action = {
        type: "redirect_to_url",
        redirect_to_url: {
          url: `${base}/3ds/${pi.id}?client_secret=${encodeURIComponent(pi.client_secret)}&return_url=${encodeURIComponent(p.return_url ?? "")}`,
          return_url: p.return_url ?? null,
        },
      };
      emit("payment_intent.requires_action", pi);
      return;
    }
    succeed(pi);
  }

  /** A payment that settles later (Link from a bank account): the intent waits in `processing`, its charge `pending`. */
  function startProcessing(pi, pm) {
    const charge = newCharge(pi, pm, {
      captured: true,
      amount_captured: pi.amount,
      paid: false,
      status: "pending",
      outcome: {
        advice_code: null,
        network_advice_code: null,
        network_decline_code: null,
        network_status: "approved_by_network",
        reason: null,
        risk_level: "normal",
        risk_score: 20,
        seller_message: "Payment complete.",
        type: "authorized",
      },
    });
    Object.assign(pi, { status: "processing", next_action: null, last_payment_error: null });
    emit("charge.pending", publicCharge(charge));
    emit("payment_intent.processing", pi);
  }

  /** The bank's answer for a `processing` payment: succeeded (the funds arrive) or failed (back to requires_payment_method). */
  function settleProcessing(pi, outcome) {
    if (pi.status !== "processing")
      throw new StripeError(
        400,
        "invalid_request_error",
        `This PaymentIntent is not processing (its status is ${pi.status}).`,
      );
    if (!["succeeded", "failed"].includes(outcome))
      throw badParam("outcome", "outcome must be one of succeeded, failed");
    const charge = get("charges", pi.latest_charge);
    if (outcome === "succeeded") {
      Object.assign(charge, { status: "succeeded", paid: true });
      settleCharge(charge, undefined, charge.amount);
      Object.assign(pi, { status: "succeeded", amount_received: pi.amount });
      emit("charge.succeeded", publicCharge(charge));
      emit("payment_intent.succeeded", pi);
      return pi;
    }
    const failure = {
      code: "insufficient_funds",
      message: "The customer's account has insufficient funds to cover this payment.",
    };
    Object.assign(charge, {
      status: "failed",
      failure_code: failure.code,
      failure_message: failure.message,
      outcome: {
        ...charge.outcome,
        network_status: "declined_by_network",
        reason: failure.code,
        seller_message: "The bank returned the payment.",
        type: "issuer_declined",
      },
    });
    const pm = db.payment_methods.get(pi.payment_method);
    Object.assign(pi, {
      status: "requires_payment_method",
      payment_method: null,
      last_payment_error: {
        type: "card_error",
        charge: charge.id,
        code: failure.code,
        decline_code: failure.code,
        message: failure.message,
        payment_method: pm ? publicPm(pm) : null,
      },
    });
    emit("charge.failed", publicCharge(charge));
    emit("payment_intent.payment_failed", pi);
    return pi;
  }

  function capture(pi, p) {
    if (pi.status !== "requires_capture") {
      throw unexpectedState(
        `This PaymentIntent could not be captured because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
        pi,
      );
    }
    const amount = int(p.amount_to_capture, "amount_to_capture") ?? pi.amount_capturable;
    if (amount > pi.amount_capturable)
      throw badParam("amount_to_capture", "The amount to capture must be less than or equal to the amount capturable.");
    const charge = get("charges", pi.latest_charge);
    Object.assign(charge, { captured: true, amount_captured: amount });
    settleCharge(charge, CARDS[db.payment_methods.get(pi.payment_method)?._number], amount);
    if (amount < charge.amount)
      Object.assign(charge, {
        _released: charge.amount - amount,
        amount_refunded: charge.amount - amount,
        refunded: false,
      });
    Object.assign(pi, { status: "succeeded", amount_capturable: 0, amount_received: amount });
    emit("charge.captured", publicCharge(charge));
    emit("payment_intent.succeeded", pi);
    return pi;
  }

  function cancelIntent(pi, p) {
    if (!CANCELABLE.includes(pi.status)) {
      throw unexpectedState(
        `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(", ")}.`,
        pi,
      );
    }
    if (p.cancellation_reason !== undefined && !CANCELLATION_REASONS.includes(p.cancellation_reason)) {
      throw badParam(
        "cancellation_reason",
        `Invalid cancellation_reason: must be one of ${CANCELLATION_REASONS.join(", ")}`,
      );
    }
    if (pi.status === "requires_capture") {
      // Releasing an authorisation refunds the uncaptured charge.
      const charge = get("charges", pi.latest_charge);
      Object.assign(charge, { _released: charge.amount, amount_refunded: charge.amount, refunded: true });
      emit("charge.refunded", publicCharge(charge));
    }
    Object.assign(pi, {
      status: "canceled",
      canceled_at: now(),
      cancellation_reason: p.cancellation_reason ?? null,
      next_action: null,
      amount_capturable: 0,
    });
    emit("payment_intent.canceled", pi);
    return pi;
  }

  /**
   * A charge as the API answers for it, `balance_transaction` expanded when asked for. Its `refunds`
   * (also only when expanded) are added by refunds-disputes.mjs, which keeps the refunds.
   */
  function publicCharge(charge, expand = []) {
    const out = { ...charge };
    if (expand.includes("balance_transaction") && charge.balance_transaction)
      out.balance_transaction = publicTxn(db.balance_transactions.get(charge.balance_transaction));
    return out;
  }
  const expandOf = (p) => (Array.isArray(p.expand) ? p.expand : Object.values(p.expand ?? {}));

  const requireClientSecret = (pi, p) => {
    if (p.client_secret !== pi.client_secret)
      throw new StripeError(
        400,
        "invalid_request_error",
        "The client_secret provided does not match the client_secret associated with the PaymentIntent.",
        { param: "client_secret" },
      );
  };

  // [method, path pattern, who may call ("secret" | "publishable"), handler(params, match, ctx)]
  const routes = [
    ["POST", /^\/v1\/customers$/, "secret", (p) => createCustomer(p)],
    [
      "GET",
      /^\/v1\/customers$/,
      "secret",
      (p) =>
        list(
          [...db.customers.values()].filter((c) => !p.email || c.email === p.email),
          p,
          "/v1/customers",
        ),
    ],
    ["GET", /^\/v1\/customers\/(cus_\w+)$/, "secret", (_p, m) => get("customers", m[1])],
    [
      "POST",
      /^\/v1\/customers\/(cus_\w+)$/,
      "secret",
      (p, m) => {
        const c = get("customers", m[1]);
        if (p.email !== undefined) c.email = p.email || null;
        if (p.name !== undefined) c.name = p.name || null;
        if (p.metadata) Object.assign(c.metadata, metadata(p.metadata));
        emit("customer.updated", c);
        return c;
      },
    ],
    [
      "POST",
      /^\/v1\/payment_intents$/,
      "secret",
      (p, _m, ctx) => {
        const pi = createPaymentIntent(p);
        // confirm=true creates and confirms in one call (off_session charges use this).
        if (p.confirm === "true")
          confirm(
            pi,
            { off_session: p.off_session, receipt_email: p.receipt_email, return_url: p.return_url },
            ctx.base,
          );
        return pi;
      },
    ],
    [
      "GET",
      /^\/v1\/payment_intents\/(pi_\w+)$/,
      "either",
      (p, m, ctx) => {
        const pi = get("payment_intents", m[1]);
        if (ctx.auth === "publishable") requireClientSecret(pi, p);
        return pi;
      },
    ],
    [
      "POST",
      /^\/v1\/payment_intents\/(pi_\w+)$/,
      "secret",
      (p, m) => {
        const pi = get("payment_intents", m[1]);
        if (["succeeded", "canceled"].includes(pi.status))
          throw unexpectedState(
            `This PaymentIntent's amount could not be updated because it has a status of ${pi.status}. You may only update the amount of a PaymentIntent with one of the following statuses: requires_payment_method, requires_confirmation, requires_action.`,
            pi,
          );
        if (p.amount !== undefined) pi.amount = int(p.amount, "amount");
        checkEmail(p.receipt_email, "receipt_email");
        if (p.receipt_email !== undefined) pi.receipt_email = p.receipt_email || null;
        if (p.customer !== undefined) pi.customer = get("customers", p.customer).id;
        if (p.metadata) Object.assign(pi.metadata, metadata(p.metadata));
        return pi;
      },
    ],
    [
      "POST",
      /^\/v1\/payment_intents\/(pi_\w+)\/confirm$/,
      "either",
      (p, m, ctx) => {
        const pi = get("payment_intents", m[1]);
        if (ctx.auth === "publishable") requireClientSecret(pi, p);
        confirm(pi, p, ctx.base);
        return pi;
      },
    ],
    [
      "POST",
      /^\/v1\/payment_intents\/(pi_\w+)\/cancel$/,
      "secret",
      (p, m) => cancelIntent(get("payment_intents", m[1]), p),
    ],
    [
      "POST",
      /^\/v1\/payment_intents\/(pi_\w+)\/capture$/,
      "secret",
      (p, m) => capture(get("payment_intents", m[1]), p),
    ],
    ["GET", /^\/v1\/payment_methods\/(pm_\w+)$/, "secret", (_p, m) => publicPm(get("payment_methods", m[1]))],
    // Saved cards: listed newest first, like Stripe.
    [
      "GET",
      /^\/v1\/customers\/(cus_\w+)\/payment_methods$/,
      "secret",
      (p, m) => savedCards(get("customers", m[1]).id, p, `/v1/customers/${m[1]}/payment_methods`),
    ],
    [
      "GET",
      /^\/v1\/payment_methods$/,
      "secret",
      (p) => {
        if (!p.customer) throw missingParam("customer");
        return savedCards(get("customers", p.customer).id, p, "/v1/payment_methods");
      },
    ],
    [
      "POST",
      /^\/v1\/payment_methods\/(pm_\w+)\/attach$/,
      "secret",
      (p, m) => {
        const customer = get("customers", p.customer ?? "").id;
        const number = TEST_PAYMENT_METHODS[m[1]];
        // A test token attaches as a fresh PaymentMethod, as in Stripe's test mode.
        if (number) return publicPm(savePaymentMethod(number, 12, new Date().getFullYear() + 2, customer));
        const pm = get("payment_methods", m[1]);
        if (pm.customer && pm.customer !== customer)
          throw badParam("payment_method", "The payment method you provided has already been attached to a customer.");
        pm.customer = customer;
        return publicPm(pm);
      },
    ],
    [
      "POST",
      /^\/v1\/payment_methods\/(pm_\w+)\/detach$/,
      "secret",
      (_p, m) => {
        const pm = get("payment_methods", m[1]);
        if (!pm.customer)
          throw badParam(
            "payment_method",
            "The payment method you provided is not attached to a customer so detachment is impossible.",
          );
        pm.customer = null;
        return publicPm(pm);
      },
    ],
    [
      "GET",
      /^\/v1\/balance_transactions\/(txn_\w+)$/,
      "secret",
      (_p, m) => publicTxn(get("balance_transactions", m[1])),
    ],
    [
      "GET",
      /^\/v1\/events\/(evt_\w+)$/,
      "secret",
      (_p, m) => {
        const e = db.events.find((ev) => ev.id === m[1]);
        if (!e) throw missing("event", m[1]);
        return e;
      },
    ],
    [
      "GET",
      /^\/v1\/events$/,
      "secret",
      (p) =>
        list(
          db.events.filter((e) => !p.type || e.type === p.type),
          p,
          "/v1/events",
        ),
    ],
    // Stand-in controls: what a real card network or bank would do.
    [
      "POST",
      /^\/_standin\/payment_intents\/(pi_\w+)\/settle$/,
      "secret",
      (p, m) => settleProcessing(get("payment_intents", m[1]), p.outcome),
    ],
    [
      "POST",
      /^\/_standin\/payment_intents\/(pi_\w+)\/authenticate$/,
      "either",
      (p, m) => {
        const pi = get("payment_intents", m[1]);
        requireClientSecret(pi, p);
        if (pi.status !== "requires_action")
          throw new StripeError(400, "invalid_request_error", "This PaymentIntent does not require authentication.");
        if (p.outcome === "fail") {
          const pm = db.payment_methods.get(pi.payment_method);
          Object.assign(pi, {
            status: "requires_payment_method",
            next_action: null,
            payment_method: null,
            last_payment_error: {
              type: "card_error",
              code: "payment_intent_authentication_failure",
              message:
                "We are unable to authenticate your payment method. Please choose a different payment method and try again.",
              payment_method: pm ? publicPm(pm) : null,
            },
          });
          emit("payment_intent.payment_failed", pi);
        } else succeed(pi);
        return pi;
      },
    ],
  ];

  // Resource families kept in modules of their own get the same helpers the routes above use.
  const kit = {
    db,
    save,
    emit,
    get,
    metadata,
    int,
    rid,
    now,
    list,
    StripeError,
    missing,
    badParam,
    missingParam,
    on: (fn) => listeners.push(fn),
    raw,
    CARDS,
    TEST_PAYMENT_METHODS,
    newPaymentIntent,
    confirm,
    balanceTransaction,
    balanceOf,
    publicTxn,
    publicCharge,
    expandOf,
  };
  routes.push(...catalogRoutes(kit));
  routes.push(...connectRoutes(kit));
  routes.push(...billingRoutes(kit));
  // Refunds, disputes and the charge as retrieved (with its refunds when expanded).
  routes.push(...refundDisputeRoutes(kit));

  function savedCards(customer, p, url) {
    const cards = [...db.payment_methods.values()]
      .filter((pm) => pm.customer === customer && (!p.type || pm.type === p.type))
      .reverse();
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
    if (/^(sk|pk|rk)_live_/.test(key))
      throw new StripeError(
        401,
        "invalid_request_error",
        "The ApeWall Stripe stand-in refuses live keys: it only plays Stripe's test mode.",
      );
    if (key.startsWith("sk_test_") || key.startsWith("rk_test_")) return { auth: "secret", key };
    if (key.startsWith("pk_test_")) return { auth: "publishable", key };
    throw new StripeError(401, "invalid_request_error", `Invalid API Key provided: ${key.slice(0, 8)}****`);
  }

  async function handle(req, body, base) {
    const url = new URL(req.url, base);
    const params = req.method === "GET" ? parseForm(url.searchParams.toString()) : parseForm(body);
    const route = routes.find(([method, pattern]) => method === req.method && pattern.test(url.pathname));
    if (!route)
      throw new StripeError(404, "invalid_request_error", `Unrecognized request URL (${req.method}: ${url.pathname}).`);
    // "public" routes are the pages a browser opens (hosted onboarding and the like): no API key.
    const ctx = route[2] === "public" ? { auth: "public", key: "", base } : { ...authenticate(req), base };
    if (route[2] === "secret" && ctx.auth !== "secret")
      throw new StripeError(
        401,
        "invalid_request_error",
        "This API call cannot be made with a publishable API key. Please use a secret API key.",
      );
    const idemKey = req.method === "POST" ? req.headers["idempotency-key"] : undefined;
    const scope = idemKey && `${ctx.key}:${idemKey}`;
    if (scope && db.idempotency.has(scope)) {
      const saved = db.idempotency.get(scope);
      if (saved.fingerprint !== `${url.pathname}?${body}`) {
        throw new StripeError(
          400,
          "idempotency_error",
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idemKey}' if you meant to execute a different request.`,
        );
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
      // Stripe keeps a result only once the endpoint began executing: a request refused by
      // validation can be corrected and retried under the same key.
      if (err.validation) return { status: err.status, body: publicJson(err.body, 2) };
      status = err.status;
      result = err.body;
    }
    const json = publicJson(result, 2);
    if (scope) db.idempotency.set(scope, { fingerprint: `${url.pathname}?${body}`, status, body: json });
    if (req.method === "POST") save();
    return { status, body: json };
  }

  const server = createServer(async (req, res) => {
    const base = `http://${req.headers.host}`;
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString("utf8");
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-headers": "authorization, content-type, idempotency-key, stripe-version, cf-connecting-ip",
      "access-control-allow-methods": "GET, POST, OPTIONS",
    };
    if (req.method === "OPTIONS") return res.writeHead(204, cors).end();
    if (req.method === "GET" && (req.url === "/v3" || req.url === "/v3/")) {
      return res
        .writeHead(200, {
          ...cors,
          "content-type": "application/javascript; charset=utf-8",
          "cache-control": "no-store",
        })
        .end(STRIPE_JS.replace("__STANDIN_BASE__", base));
    }
    if (req.method === "GET" && req.url === "/_standin/health") return res.writeHead(200, cors).end("ok");
    const requestId = rid("req", 14);
    try {
      const out = await handle(req, body, base);
      log(`${req.method} ${req.url} -> ${out.status}${out.replayed ? " (replayed)" : ""}`);
      if (out.headers) return res.writeHead(out.status, out.headers).end(out.body);
      res
        .writeHead(out.status, {
          ...cors,
          "content-type": "application/json",
          "request-id": requestId,
          "stripe-version": API_VERSION,
          ...(out.replayed ? { "idempotent-replayed": "true" } : {}),
        })
        .end(out.body);
    } catch (err) {
      const e = err instanceof StripeError ? err : new StripeError(500, "api_error", `Stand-in error: ${err.message}`);
      log(`${req.method} ${req.url} -> ${e.status} ${e.message}`);
      res
        .writeHead(e.status, { ...cors, "content-type": "application/json", "request-id": requestId })
        .end(JSON.stringify(e.body));
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
      return new Promise((resolve) =>
        server.listen(port, host, () => resolve(`http://${host}:${server.address().port}`)),
      );
    },
    close: () =>
      new Promise((resolve) => {
        closed = true;
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
