// PaymentMethods, Stripe-shaped: card PaymentMethods from card details or a test token, Link
// PaymentMethods (the wallet's), what a charge says about the method that paid, and the calls on
// them (retrieve, a Customer's saved cards, attach, detach). The test cards are in cards.mjs.
// See docs/payments.md.
import { createHmac } from "node:crypto";
import { CARDS, luhn, TEST_PAYMENT_METHODS } from "./cards.mjs";
import { badParam, missing, missingParam, StripeError } from "./errors.mjs";
import { list, now, rid } from "./wire.mjs";

const ADDRESS_FIELDS = ["city", "country", "line1", "line2", "postal_code", "state"];
/** billing_details.address as Stripe answers it: every field, null where not given. */
const addressOf = (given) =>
  Object.fromEntries(ADDRESS_FIELDS.map((k) => [k, given?.[k] === undefined || given[k] === "" ? null : given[k]]));

/** PaymentMethods kept in the stand-in's state (`db.payment_methods`); private fields start with "_". */
/** @param {any} kit */
export function paymentMethods(kit) {
  const { db, get } = kit;

  function savePaymentMethod(number, month, year, customer, billing = {}) {
    const pm = {
      id: rid("pm"),
      object: "payment_method",
      allow_redisplay: "unspecified",
      billing_details: {
        address: addressOf(billing.address),
        email: billing.email ?? null,
        name: billing.name ?? null,
        phone: null,
        tax_id: null,
      },
      card: {
        brand: CARDS[number]?.brand ?? "visa",
        checks: {
          address_line1_check: null,
          address_postal_code_check: billing.address?.postal_code ? "pass" : null,
          cvc_check: "pass",
        },
        country: "US",
        display_brand: CARDS[number]?.brand ?? "visa",
        exp_month: month,
        exp_year: year,
        fingerprint: createHmac("sha256", "fingerprint").update(number).digest("hex").slice(0, 16),
        funding: "credit",
        generated_from: null,
        last4: number.slice(-4),
        networks: { available: [CARDS[number]?.brand ?? "visa"], preferred: null },
        regulated_status: "unregulated",
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: now(),
      customer,
      customer_account: null,
      livemode: false,
      metadata: {},
      type: "card",
      _number: number,
      // Set once the cardholder authenticated it for later off-session use (setup_future_usage).
      _setUpOffSession: false,
    };
    db.payment_methods.set(pm.id, pm);
    return pm;
  }

  /**
   * A Link PaymentMethod (the wallet's): `type: "link"` with the Link account's email. Link pays from
   * the account's saved card (4242, at once), or, for a Link account whose email's local part ends in
   * "+bank", from its bank account, which settles later: the PaymentIntent stays `processing` until
   * POST /_standin/payment_intents/{id}/settle (as Link's bank payments do).
   */
  function saveLinkPaymentMethod(billing = {}) {
    const email = billing.email ?? "link-buyer@example.com";
    const pm = {
      id: rid("pm"),
      object: "payment_method",
      allow_redisplay: "unspecified",
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email,
        name: billing.name ?? null,
        phone: null,
        tax_id: null,
      },
      created: now(),
      customer: null,
      customer_account: null,
      link: { email },
      livemode: false,
      metadata: {},
      type: "link",
      _number: /\+bank@/i.test(email) ? null : "4242424242424242",
      _setUpOffSession: false,
    };
    db.payment_methods.set(pm.id, pm);
    return pm;
  }

  const publicPm = ({ _number, _setUpOffSession, ...pm }) => pm;

  /** What a charge says about how it was paid: the card's details, or Link's. */
  function paymentMethodDetails(pm) {
    if (!pm) return null;
    if (pm.type === "link") return { type: "link", link: { country: "US" } };
    const c = pm.card;
    return {
      type: "card",
      card: {
        amount_authorized: null,
        authorization_code: null,
        brand: c.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: c.checks.cvc_check },
        country: c.country,
        electronic_commerce_indicator: null,
        exp_month: c.exp_month,
        exp_year: c.exp_year,
        fingerprint: c.fingerprint,
        funding: c.funding,
        installments: null,
        last4: c.last4,
        mandate: null,
        network: c.brand,
        network_transaction_id: null,
        regulated_status: c.regulated_status,
        three_d_secure: null,
        transaction_link_id: null,
        wallet: null,
      },
    };
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

  /** The PaymentMethod a confirm (or a ConfirmationToken, `pi` null) names or describes. */
  function paymentMethodFrom(p, pi) {
    // Confirming without a card uses the one already set on the PaymentIntent.
    if (!p.payment_method && !p.payment_method_data && pi?.payment_method)
      p = { ...p, payment_method: pi.payment_method };
    if (p.payment_method) return resolvePaymentMethod(p.payment_method, pi?.customer ?? null);
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
        { code: "incorrect_number", param: "number", payment_intent: pi ?? undefined },
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
        { code: "expired_card", param: "exp_month", payment_intent: pi ?? undefined },
        { validation: true },
      );
    if (!/^\d{3,4}$/.test(String(card.cvc ?? "")))
      throw new StripeError(
        402,
        "card_error",
        "Your card's security code is incomplete.",
        { code: "incomplete_cvc", param: "cvc", payment_intent: pi ?? undefined },
        { validation: true },
      );
    return savePaymentMethod(number, month, year, null, p.payment_method_data?.billing_details);
  }

  function savedCards(customer, p, url) {
    const cards = [...db.payment_methods.values()]
      .filter((pm) => pm.customer === customer && (!p.type || pm.type === p.type))
      .reverse();
    return list(cards.map(publicPm), p, url);
  }

  const routes = [
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
  ];

  return {
    savePaymentMethod,
    saveLinkPaymentMethod,
    publicPm,
    paymentMethodDetails,
    resolvePaymentMethod,
    paymentMethodFrom,
    routes,
  };
}
