// Stripe's errors as the stand-in answers them: the error object's shape, and the few refusals every
// resource shares (unknown id, bad or missing param, wrong state, malformed email). See docs/payments.md.

export class StripeError extends Error {
  /** `validation`: refused before any work began, so Stripe keeps no result under the Idempotency-Key. */
  constructor(status, type, message, extra = {}, { validation = false } = {}) {
    super(message);
    this.status = status;
    this.validation = validation;
    this.body = { error: { type, message, ...extra } };
  }
}
export const missing = (kind, id, param = "id") =>
  new StripeError(
    404,
    "invalid_request_error",
    `No such ${kind}: '${id}'`,
    { code: "resource_missing", param },
    { validation: true },
  );
export const badParam = (param, message) =>
  new StripeError(400, "invalid_request_error", message, { param }, { validation: true });
export const missingParam = (param) =>
  new StripeError(
    400,
    "invalid_request_error",
    `Missing required param: ${param}.`,
    { code: "parameter_missing", param },
    { validation: true },
  );
export const unexpectedState = (message, pi) =>
  new StripeError(400, "invalid_request_error", message, {
    code: "payment_intent_unexpected_state",
    payment_intent: structuredClone(pi),
  });
// Stripe refuses a malformed address with code email_invalid ("not properly formatted"): here a
// local part, "@", and a domain of dot-separated DNS labels (letters, digits, inner hyphens) ending
// in a letters-only top-level label.
const LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const EMAIL = new RegExp(`^[^\\s@"(),:;<>\\[\\]]{1,64}@(?:${LABEL}\\.)+[a-z]{2,63}$`, "i");
export const checkEmail = (value, param) => {
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
