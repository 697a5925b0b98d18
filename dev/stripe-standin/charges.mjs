// Charges, Stripe-shaped: what confirming a PaymentIntent does. A Charge per attempt; success (the
// money reaches the balance, pending until available_on), a decline (402, the intent waits for
// another card), or a payment that settles later (`processing`, then the bank's answer).
// See docs/payments.md.
import { CARDS } from "./cards.mjs";
import { badParam, StripeError } from "./errors.mjs";
import { DAY, now, rid } from "./wire.mjs";

/** Test mode holds card payments as pending for this long (available_on), as a US account's 2-day schedule does. */
const PENDING_DAYS = 2;

/** @param {any} kit */
export function charges(kit) {
  const { db, get, emit, balanceTransaction, processingFee, publicTxn, publicPm, paymentMethodDetails } = kit;

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

  /**
   * A charge as the API answers for it, `balance_transaction` expanded when asked for. Its `refunds`
   * (also only when expanded) are added by refunds.mjs, which keeps the refunds and serves the charge.
   */
  function publicCharge(charge, expand = []) {
    const out = { ...charge };
    if (expand.includes("balance_transaction") && charge.balance_transaction)
      out.balance_transaction = publicTxn(db.balance_transactions.get(charge.balance_transaction));
    return out;
  }

  return { newCharge, settleCharge, publicCharge, succeed, fail, startProcessing, settleProcessing };
}
