// Refunds, disputes, the charge as retrieved, and invoice payments, Stripe-shaped, as documented for
// API 2026-10-28. The one place the stand-in keeps refunds (db.refunds) and disputes (db.disputes);
// every movement of money goes through the kit's balance transactions, so `GET /v1/balance` agrees.
// - A refund is created `succeeded`, or `pending` for Stripe's test card 4000 0000 0000 7726 (it
//   settles later); the card 4000 0000 0000 5126 gives a refund that succeeds and fails later. Either
//   way its amount leaves the balance at once (a `refund` balance transaction of -amount); a refund
//   that fails gives it back (`failure_balance_transaction`: an `adjustment`, reporting category
//   `refund_failure`) and no longer counts in the charge's `amount_refunded`. Each change sends
//   `refund.updated` and `charge.refund.updated` (and `refund.failed` when it fails).
// - A fully refunded charge answers `charge_already_refunded`; a charge whose chargeback took its
//   funds cannot be refunded (`charge_disputed`).
// - `GET /v1/refunds?charge=` pages with `limit`/`starting_after`, newest first; a charge read with
//   `expand[]=refunds` carries only the first 10 of them (`has_more`), and none without the expand.
// - A dispute is a chargeback (`needs_response`, funds withdrawn: an `adjustment` of -amount,
//   reporting category `dispute`, with Stripe's $15.00 dispute fee, given back if won) or an inquiry (`warning_needs_response`, no
//   money moves). An inquiry may escalate to a chargeback (same dispute: `charge.dispute.updated`,
//   `charge.dispute.funds_withdrawn`). Won: the funds are reinstated (+amount, `dispute_reversal`,
//   `charge.dispute.funds_reinstated`), then `charge.dispute.closed`. Once a charge is fully refunded a
//   dispute withdraws nothing more (Stripe's `is_charge_refundable`). `balance_transactions` on a
//   dispute are the full objects. `GET /v1/disputes?charge=|payment_intent=` lists them.
// - `GET /v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=` finds the
//   invoice a PaymentIntent paid (billing.mjs keeps invoices).
// A resource module of the stand-in: `kit` carries server.mjs's state and helpers.
//
// Stand-in controls (what a bank or card network does in its own time):
//   POST /_standin/charges/{ch}/dispute      {inquiry?: "true", amount?}  opens a dispute
//   POST /_standin/disputes/{dp}/escalate                                  inquiry -> chargeback
//   POST /_standin/disputes/{dp}/close       {outcome: won|lost}           (an inquiry closes as warning_closed)
//   POST /_standin/refunds/{re}/settle       {outcome: succeeded|failed}   a pending (or succeeded) refund settles

const PENDING_REFUND_CARD = "4000000000007726";
const ASYNC_FAILING_REFUND_CARD = "4000000000005126";
const EMBEDDED_REFUNDS = 10;
const DAY = 24 * 60 * 60;
const EVIDENCE_FIELDS = [
  "access_activity_log",
  "billing_address",
  "cancellation_policy",
  "cancellation_policy_disclosure",
  "cancellation_rebuttal",
  "customer_communication",
  "customer_email_address",
  "customer_name",
  "customer_purchase_ip",
  "customer_signature",
  "duplicate_charge_documentation",
  "duplicate_charge_explanation",
  "duplicate_charge_id",
  "product_description",
  "receipt",
  "refund_policy",
  "refund_policy_disclosure",
  "refund_refusal_explanation",
  "service_date",
  "service_documentation",
  "shipping_address",
  "shipping_carrier",
  "shipping_date",
  "shipping_documentation",
  "shipping_tracking_number",
  "uncategorized_file",
  "uncategorized_text",
];

// A refund's status moves only along these lines (`settle` is what the bank does in its own time).
const REFUND_SETTLES = {
  pending: ["succeeded", "failed"],
  succeeded: ["failed"],
};
// Refunds whose money is gone or on its way: they count in the charge's amount_refunded.
const REFUND_COUNTS = ["pending", "requires_action", "succeeded"];

// A dispute's status by what happens to it; a missing entry is refused. `withdraw`/`reinstate`
// say which balance transaction the step writes.
const DISPUTE_MOVES = {
  warning_needs_response: {
    escalate: { to: "needs_response", withdraw: true },
    won: { to: "warning_closed" },
    lost: { to: "warning_closed" },
  },
  warning_under_review: {
    escalate: { to: "needs_response", withdraw: true },
    won: { to: "warning_closed" },
    lost: { to: "warning_closed" },
  },
  needs_response: { won: { to: "won", reinstate: true }, lost: { to: "lost" } },
  under_review: { won: { to: "won", reinstate: true }, lost: { to: "lost" } },
};

/** @param {any} kit */
/** Stripe's dispute fee in the US: taken with the chargeback's withdrawal, returned with its reinstatement. */
const DISPUTE_FEE = 1500;

export function refundDisputeRoutes(kit) {
  const {
    db,
    get,
    metadata,
    int,
    rid,
    now,
    StripeError,
    badParam,
    emit,
    balanceTransaction,
    publicTxn,
    publicCharge,
    expandOf,
  } = kit;

  const cardNumberOf = (charge) => db.payment_methods.get(charge.payment_method)?._number ?? null;
  const newestFirst = (a, b) => b.created - a.created || (b._seq ?? 0) - (a._seq ?? 0);
  const refundsOf = (charge) => [...db.refunds.values()].filter((r) => r.charge === charge.id).sort(newestFirst);
  const txnsOf = (d) => (d._txns ?? []).map((id) => db.balance_transactions.get(id));
  const withdrawn = (d) => txnsOf(d).some((t) => t.amount < 0);
  const reinstated = (d) => txnsOf(d).some((t) => t.amount > 0);

  /** Stripe's list shape with cursor paging (newest first), `limit` up to 100. */
  function page(items, p, url, view = (x) => x) {
    const limit = Math.min(100, Math.max(1, Number(p.limit ?? 10)));
    let start = 0;
    if (p.starting_after) start = items.findIndex((i) => i.id === p.starting_after) + 1;
    const slice = items.slice(start, start + limit);
    return { object: "list", data: slice.map(view), has_more: start + limit < items.length, url };
  }

  /**
   * The charge as Stripe returns it: `balance_transaction` and `refunds` only when expanded (since API
   * version 2022-11-15), and then only the first page of refunds.
   */
  function chargeView(charge, p) {
    const expand = expandOf(p);
    const out = publicCharge(charge, expand);
    if (!expand.includes("refunds")) return out;
    const all = refundsOf(charge);
    return {
      ...out,
      refunds: {
        object: "list",
        data: all.slice(0, EMBEDDED_REFUNDS),
        has_more: all.length > EMBEDDED_REFUNDS,
        total_count: all.length,
        url: `/v1/charges/${charge.id}/refunds`,
      },
    };
  }

  /** Keeps the charge's totals in step with its refunds (and what an uncaptured authorisation released). */
  function retotal(charge) {
    const refunds = refundsOf(charge)
      .filter((r) => REFUND_COUNTS.includes(r.status))
      .reduce((a, r) => a + r.amount, 0);
    charge.amount_refunded = (charge._released ?? 0) + refunds;
    charge.refunded = charge.amount_refunded >= charge.amount;
  }

  function chargeToRefund(p) {
    if (p.charge) return get("charges", p.charge);
    if (!p.payment_intent)
      throw badParam(
        "charge",
        "One of the following params should be provided for this request: payment_intent or charge.",
      );
    const pi = get("payment_intents", p.payment_intent);
    const latest = pi.latest_charge && db.charges.get(pi.latest_charge);
    if (latest?.status !== "succeeded")
      throw badParam("payment_intent", `This PaymentIntent (${pi.id}) does not have a successful charge to refund.`);
    return latest;
  }

  function createRefund(p) {
    const charge = chargeToRefund(p);
    if (charge.refunded)
      throw new StripeError(
        400,
        "invalid_request_error",
        `Charge ${charge.id} has already been refunded.`,
        { code: "charge_already_refunded" },
        { validation: true },
      );
    if (charge.status !== "succeeded")
      throw badParam("charge", `Charge ${charge.id} has not succeeded and cannot be refunded.`);
    const chargeback = [...db.disputes.values()].find((d) => d.charge === charge.id && withdrawn(d) && !reinstated(d));
    if (chargeback)
      throw new StripeError(
        400,
        "invalid_request_error",
        `Charge ${charge.id} has been charged back; cannot issue a refund.`,
        { code: "charge_disputed" },
        { validation: true },
      );
    const left = charge.amount_captured - (charge.amount_refunded - (charge._released ?? 0));
    const amount = int(p.amount, "amount") ?? left;
    if (amount <= 0) throw badParam("amount", "This value must be greater than or equal to 1.");
    if (amount > left) {
      throw new StripeError(
        400,
        "invalid_request_error",
        `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`,
        { code: "amount_too_large", param: "amount" },
        { validation: true },
      );
    }
    const card = cardNumberOf(charge);
    const r = {
      id: rid("re"),
      object: "refund",
      amount,
      balance_transaction: null,
      charge: charge.id,
      created: now(),
      currency: charge.currency,
      customer: charge.customer ?? null,
      customer_account: null,
      destination_details: {
        card: { reference_status: "pending", reference_type: "acquirer_reference_number", type: "refund" },
        type: "card",
      },
      metadata: metadata(p.metadata),
      payment_intent: charge.payment_intent,
      payment_method: charge.payment_method ?? null,
      reason: p.reason ?? null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: card === PENDING_REFUND_CARD ? "pending" : "succeeded",
      transfer_reversal: null,
      // Refunds are never deleted, so the count orders refunds made within the same second.
      _seq: db.refunds.size,
      _fails_later: card === ASYNC_FAILING_REFUND_CARD,
    };
    // The refund is taken from the balance when it is made, pending or not.
    r.balance_transaction = balanceTransaction({
      amount: -amount,
      type: "refund",
      source: r.id,
      currency: charge.currency,
    });
    db.refunds.set(r.id, r);
    retotal(charge);
    emit("refund.created", r);
    emit("charge.refunded", chargeView(charge, {}));
    return r;
  }

  /** The bank's answer about a refund; without `outcome`, the one its test card gives. */
  function settleRefund(r, outcome = r._fails_later ? "failed" : "succeeded") {
    if (!["succeeded", "failed"].includes(outcome)) throw badParam("outcome", "outcome must be succeeded or failed");
    if (!REFUND_SETTLES[r.status]?.includes(outcome))
      throw new StripeError(
        400,
        "invalid_request_error",
        `Refund ${r.id} is ${r.status} and cannot become ${outcome}.`,
      );
    const charge = get("charges", r.charge);
    if (outcome === "failed") {
      // The money comes back: the reverse of the refund's own balance transaction.
      const back = balanceTransaction({
        amount: r.amount,
        type: "adjustment",
        reportingCategory: "refund_failure",
        source: r.id,
        currency: r.currency,
        description: `REFUND FOR CHARGE FAILED (${r.charge})`,
      });
      Object.assign(r, {
        status: "failed",
        failure_reason: "expired_or_canceled_card",
        failure_balance_transaction: back,
      });
    } else r.status = "succeeded";
    retotal(charge);
    emit("refund.updated", r);
    emit("charge.refund.updated", r);
    if (outcome === "failed") emit("refund.failed", r);
    return r;
  }

  /** A dispute as the API answers for it: its balance transactions as full objects. */
  const disputeView = (d) => ({ ...d, balance_transactions: txnsOf(d).map(publicTxn) });

  /** Funds leave the balance for a chargeback, unless the charge was already fully refunded. */
  function withdraw(d) {
    d.is_charge_refundable = false;
    const charge = get("charges", d.charge);
    if (charge.refunded) return false;
    d._txns.push(
      balanceTransaction({
        amount: -d.amount,
        type: "adjustment",
        reportingCategory: "dispute",
        source: d.id,
        currency: d.currency,
        description: `Chargeback withdrawal for ${charge.id}`,
        fee: DISPUTE_FEE,
        feeDescription: "Dispute fee",
      }),
    );
    return true;
  }

  function openDispute(chargeId, p = {}) {
    const charge = get("charges", chargeId);
    if (charge.status !== "succeeded")
      throw badParam("charge", `Charge ${charge.id} has not succeeded and cannot be disputed.`);
    const inquiry = p.inquiry === "true";
    const d = {
      id: rid("dp"),
      object: "dispute",
      amount: int(p.amount, "amount") ?? charge.amount,
      charge: charge.id,
      created: now(),
      currency: charge.currency,
      enhanced_eligibility_types: [],
      evidence: { ...Object.fromEntries(EVIDENCE_FIELDS.map((k) => [k, null])), enhanced_evidence: {} },
      evidence_details: {
        due_by: now() + 7 * DAY,
        enhanced_eligibility: {},
        has_evidence: false,
        past_due: false,
        submission_count: 0,
        submission_method: null,
      },
      intended_submission_method: null,
      is_charge_refundable: inquiry && !charge.refunded,
      livemode: false,
      metadata: {},
      payment_intent: charge.payment_intent,
      payment_method_details: {
        card: {
          brand: charge.payment_method_details?.card?.brand ?? "visa",
          case_type: inquiry ? "inquiry" : "chargeback",
          network_reason_code: inquiry ? null : "10.4",
        },
        type: "card",
      },
      reason: inquiry ? "general" : "fraudulent",
      status: inquiry ? "warning_needs_response" : "needs_response",
      _txns: [],
    };
    db.disputes.set(d.id, d);
    charge.disputed = true;
    const took = !inquiry && withdraw(d);
    emit("charge.dispute.created", disputeView(d));
    if (took) emit("charge.dispute.funds_withdrawn", disputeView(d));
    return disputeView(d);
  }

  /** One step of DISPUTE_MOVES: `escalate`, or the network's decision `won`/`lost`. */
  function move(d, action) {
    const step = DISPUTE_MOVES[d.status]?.[action];
    if (!step)
      throw new StripeError(
        400,
        "invalid_request_error",
        `Dispute ${d.id} is ${d.status}: it cannot ${action === "escalate" ? "escalate (only an open inquiry does)" : `close as ${action}`}.`,
      );
    d.status = step.to;
    let took = false;
    let gaveBack = false;
    if (step.withdraw) {
      Object.assign(d, {
        reason: "fraudulent",
        payment_method_details: {
          ...d.payment_method_details,
          card: { ...d.payment_method_details.card, case_type: "chargeback", network_reason_code: "10.4" },
        },
      });
      took = withdraw(d);
    }
    if (step.reinstate && withdrawn(d) && !reinstated(d)) {
      d._txns.push(
        balanceTransaction({
          amount: d.amount,
          type: "adjustment",
          reportingCategory: "dispute_reversal",
          source: d.id,
          currency: d.currency,
          description: `Chargeback reversal for ${d.charge}`,
          fee: -DISPUTE_FEE,
          feeDescription: "Dispute fee returned",
        }),
      );
      gaveBack = true;
    }
    if (action === "escalate") emit("charge.dispute.updated", disputeView(d));
    if (took) emit("charge.dispute.funds_withdrawn", disputeView(d));
    if (gaveBack) emit("charge.dispute.funds_reinstated", disputeView(d));
    if (action !== "escalate") emit("charge.dispute.closed", disputeView(d));
    return disputeView(d);
  }

  function invoicePayments(p) {
    const all = [...db.invoices.values()].flatMap((inv) => inv.payments?.data ?? []);
    const pi = p.payment?.payment_intent;
    const items = all
      .filter(
        (ip) =>
          (!p.invoice || ip.invoice === p.invoice) &&
          (!pi || ip.payment?.payment_intent === pi) &&
          (!p.status || ip.status === p.status),
      )
      .reverse();
    return page(items, p, "/v1/invoice_payments");
  }

  return [
    ["GET", /^\/v1\/charges\/(ch_\w+)$/, "secret", (p, m) => chargeView(get("charges", m[1]), p)],
    ["POST", /^\/v1\/refunds$/, "secret", (p) => createRefund(p)],
    [
      "GET",
      /^\/v1\/refunds$/,
      "secret",
      (p) => {
        const charge = p.charge ? get("charges", p.charge) : null;
        const pi = p.payment_intent ? get("payment_intents", p.payment_intent) : null;
        const items = charge
          ? refundsOf(charge)
          : [...db.refunds.values()].filter((r) => !pi || r.payment_intent === pi.id).sort(newestFirst);
        return page(items, p, "/v1/refunds");
      },
    ],
    ["GET", /^\/v1\/refunds\/(re_\w+)$/, "secret", (_p, m) => get("refunds", m[1])],
    [
      "GET",
      /^\/v1\/disputes$/,
      "secret",
      (p) => {
        const items = [...db.disputes.values()]
          .filter(
            (d) => (!p.charge || d.charge === p.charge) && (!p.payment_intent || d.payment_intent === p.payment_intent),
          )
          .sort((a, b) => b.created - a.created);
        return page(items, p, "/v1/disputes", disputeView);
      },
    ],
    ["GET", /^\/v1\/disputes\/(dp_\w+)$/, "secret", (_p, m) => disputeView(get("disputes", m[1]))],
    ["GET", /^\/v1\/invoice_payments$/, "secret", (p) => invoicePayments(p)],
    ["POST", /^\/_standin\/charges\/(ch_\w+)\/dispute$/, "secret", (p, m) => openDispute(m[1], p)],
    [
      "POST",
      /^\/_standin\/disputes\/(dp_\w+)\/escalate$/,
      "secret",
      (_p, m) => move(get("disputes", m[1]), "escalate"),
    ],
    [
      "POST",
      /^\/_standin\/disputes\/(dp_\w+)\/close$/,
      "secret",
      (p, m) => {
        if (!["won", "lost"].includes(p.outcome)) throw badParam("outcome", "outcome must be won or lost");
        return move(get("disputes", m[1]), p.outcome);
      },
    ],
    [
      "POST",
      /^\/_standin\/refunds\/(re_\w+)\/settle$/,
      "secret",
      (p, m) => settleRefund(get("refunds", m[1]), p.outcome),
    ],
  ];
}
