// PaymentIntents, Stripe-shaped: create, retrieve (with the client secret from a browser), update,
// confirm, capture, cancel; the Charge each attempt makes is in charges.mjs. See docs/payments.md.
// Stand-in controls (what a card network or bank does): POST /_standin/payment_intents/{id}/settle
// {outcome} settles a `processing` payment; .../authenticate {outcome?: "fail"} answers the 3-D
// Secure challenge the browser was sent to.
import { randomBytes } from "node:crypto";
import { AUTH_REQUIRED, CARDS } from "./cards.mjs";
import { badParam, checkEmail, missingParam, StripeError, unexpectedState } from "./errors.mjs";
import { int, metadata, now, rid } from "./wire.mjs";

/** @param {any} kit */
export function paymentIntents(kit) {
  const {
    db,
    get,
    emit,
    publicPm,
    resolvePaymentMethod,
    paymentMethodFrom,
    settleCharge,
    publicCharge,
    succeed,
    fail,
    startProcessing,
    settleProcessing,
    spendToken,
    linkTaxCalculation,
  } = kit;

  // ---- PaymentIntents: Stripe's documented lifecycle ----
  //   create: requires_payment_method, or requires_confirmation when it names a payment_method
  //   confirm (from requires_payment_method | requires_confirmation), with a card, a PaymentMethod or a
  //   ConfirmationToken (confirmation-tokens.mjs):
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
  // update with `amount` (Stripe's payment_intent_unexpected_state in any other status).
  const AMOUNT_CHANGEABLE = ["requires_payment_method", "requires_confirmation", "requires_action"];
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
    // Stripe Tax (tax.mjs): the calculation this payment collects, recorded when it succeeds.
    const taxLink = linkTaxCalculation(null, p);
    const pi = newPaymentIntent({
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
      ...(taxLink?.hooks ? { hooks: taxLink.hooks } : {}),
    });
    taxLink?.apply(pi);
    return pi;
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
    if (p.confirmation_token && (p.payment_method || p.payment_method_data))
      throw badParam(
        "confirmation_token",
        "You may only specify one of these parameters: confirmation_token, payment_method, payment_method_data.",
      );
    checkEmail(p.receipt_email, "receipt_email");
    // A ConfirmationToken (confirmation-tokens.mjs) carries the card and the return_url; using it spends it.
    let pm;
    if (p.confirmation_token) {
      const used = spendToken(p.confirmation_token, pi);
      pm = used.pm;
      p = { ...p, return_url: p.return_url ?? used.returnUrl ?? undefined };
    } else pm = paymentMethodFrom(p, pi);
    if (p.receipt_email) pi.receipt_email = p.receipt_email;
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

  const requireClientSecret = (pi, p) => {
    if (p.client_secret !== pi.client_secret)
      throw new StripeError(
        400,
        "invalid_request_error",
        "The client_secret provided does not match the client_secret associated with the PaymentIntent.",
        { param: "client_secret" },
      );
  };

  const routes = [
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
        checkEmail(p.receipt_email, "receipt_email");
        const taxLink = linkTaxCalculation(pi, p);
        // Stripe changes the amount only before a payment is under way; other fields (metadata,
        // description, receipt_email) may still change afterwards.
        if (p.amount !== undefined) {
          if (!AMOUNT_CHANGEABLE.includes(pi.status))
            throw unexpectedState(
              `This PaymentIntent's amount could not be updated because it has a status of ${pi.status}. You may only update the amount of a PaymentIntent with one of the following statuses: ${AMOUNT_CHANGEABLE.join(", ")}.`,
              pi,
            );
          const amount = int(p.amount, "amount");
          if (!amount || amount < 50) throw badParam("amount", "Amount must be at least $0.50 usd");
          if (amount > 99999999) throw badParam("amount", "Amount must be no more than $999,999.99");
          pi.amount = amount;
        }
        if (p.description !== undefined) pi.description = p.description || null;
        if (p.receipt_email !== undefined) pi.receipt_email = p.receipt_email || null;
        if (p.customer !== undefined) pi.customer = get("customers", p.customer).id;
        if (p.metadata && typeof p.metadata === "object") {
          // An empty value unsets its key (Stripe's metadata rule).
          for (const [k, v] of Object.entries(p.metadata)) if (v === "") delete pi.metadata[k];
          Object.assign(pi.metadata, metadata(p.metadata));
        }
        taxLink?.apply(pi);
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
        linkTaxCalculation(pi, p)?.apply(pi);
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
      (p, m) => {
        const pi = get("payment_intents", m[1]);
        linkTaxCalculation(pi, p)?.apply(pi);
        return capture(pi, p);
      },
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
            // As Stripe reports a failed 3-D Secure: an invalid_request_error, not a card_error
            // (no charge was attempted), with the PaymentMethod that failed.
            last_payment_error: {
              type: "invalid_request_error",
              code: "payment_intent_authentication_failure",
              doc_url: "https://stripe.com/docs/error-codes/payment-intent-authentication-failure",
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

  return { newPaymentIntent, confirm, routes };
}
