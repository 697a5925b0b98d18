// Stripe's test cards (docs.stripe.com/testing) and what each one does: succeed, decline, ask the
// cardholder to authenticate, or skip the pending balance. See docs/payments.md.

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
