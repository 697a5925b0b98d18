// PaymentMethods, Stripe-shaped: Stripe's test cards, card PaymentMethods from card details or a
// test token, Link PaymentMethods (the wallet's), and what a charge says about the method that paid.
import { createHmac } from "node:crypto";

// Stripe's documented test cards (docs.stripe.com/testing), by number and by test PaymentMethod id.
// "authenticate": 3155 asks on-session always and off-session unless it was set up (authenticated
// with setup_future_usage); 3184 (`always`) asks on every payment however it was set up.
export const CARDS = {
  4242424242424242: { brand: "visa", outcome: "success" },
  4000056655665556: { brand: "visa", outcome: "success" },
  5555555555554444: { brand: "mastercard", outcome: "success" },
  4000000000000002: {
    brand: "visa",
    outcome: "decline",
    code: "card_declined",
    decline_code: "generic_decline",
    message: "Your card was declined.",
  },
  4000000000009995: {
    brand: "visa",
    outcome: "decline",
    code: "card_declined",
    decline_code: "insufficient_funds",
    message: "Your card has insufficient funds.",
  },
  4000002500003155: { brand: "visa", outcome: "authenticate" },
  4000002760003184: { brand: "visa", outcome: "authenticate", always: true },
  // Succeeds, and the funds skip the pending balance (straight to available).
  4000000000000077: { brand: "visa", outcome: "success", bypassPending: true },
  // Attaches to a Customer fine; every charge to it is declined (Stripe's "charge customer fail" card,
  // used for failed upsell charges and failed renewals).
  4000000000000341: {
    brand: "visa",
    outcome: "decline",
    code: "card_declined",
    decline_code: "generic_decline",
    message: "Your card was declined.",
  },
};
// What Stripe answers when an off-session charge needs the cardholder (the 3155 card, off-session).
export const AUTH_REQUIRED = {
  code: "authentication_required",
  decline_code: "authentication_required",
  message: "Your card was declined. This transaction requires authentication.",
};
export const TEST_PAYMENT_METHODS = {
  pm_card_visa: "4242424242424242",
  pm_card_mastercard: "5555555555554444",
  pm_card_chargeDeclined: "4000000000000002",
  pm_card_chargeDeclinedInsufficientFunds: "4000000000009995",
  pm_card_authenticationRequired: "4000002760003184",
  pm_card_authenticationRequiredOnSetup: "4000002500003155",
  pm_card_bypassPending: "4000000000000077",
  pm_card_chargeCustomerFail: "4000000000000341",
};
export const luhn = (num) => {
  let sum = 0;
  for (let i = 0; i < num.length; i++) {
    let d = Number(num[num.length - 1 - i]);
    if (i % 2) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return num.length >= 12 && sum % 10 === 0;
};

/** PaymentMethods kept in the stand-in's state (`db.payment_methods`); private fields start with "_". */
export function paymentMethods({ db, rid, now }) {
  function savePaymentMethod(number, month, year, customer, billing = {}) {
    const pm = {
      id: rid("pm"),
      object: "payment_method",
      allow_redisplay: "unspecified",
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: billing.email ?? null,
        name: billing.name ?? null,
        phone: null,
        tax_id: null,
      },
      card: {
        brand: CARDS[number]?.brand ?? "visa",
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: "pass" },
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

  return { savePaymentMethod, saveLinkPaymentMethod, publicPm, paymentMethodDetails };
}
