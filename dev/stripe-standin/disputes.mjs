// Disputes, Stripe-shaped (API 2026-10-28): a chargeback (`needs_response`, funds withdrawn: an
// `adjustment` of -amount, category `dispute`, with Stripe's $15.00 fee, given back if won) or an
// inquiry (`warning_needs_response`, no money moves) that may escalate to a chargeback. Won: funds
// reinstated (`dispute_reversal`), then `charge.dispute.closed`. A fully refunded charge has nothing
// more to withdraw. See docs/refunds-and-disputes.md#in-the-stand-in.
// Stand-in controls (what a card network does in its own time):
//   POST /_standin/charges/{ch}/dispute      {inquiry?: "true", amount?}  opens a dispute
//   POST /_standin/disputes/{dp}/escalate                                  inquiry -> chargeback
//   POST /_standin/disputes/{dp}/close       {outcome: won|lost}           (an inquiry closes as warning_closed)
import { DAY, page } from "./wire.mjs";

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

/** Stripe's dispute fee in the US: taken with the chargeback's withdrawal, returned with its reinstatement. */
const DISPUTE_FEE = 1500;

/** @param {any} kit */
export function disputes(kit) {
  const { db, get, int, rid, now, StripeError, badParam, emit, balanceTransaction, publicTxn } = kit;

  const txnsOf = (d) => (d._txns ?? []).map((id) => db.balance_transactions.get(id));
  const withdrawn = (d) => txnsOf(d).some((t) => t.amount < 0);
  const reinstated = (d) => txnsOf(d).some((t) => t.amount > 0);
  /** A charge whose chargeback took its funds (and did not give them back) cannot be refunded. */
  const chargedBack = (charge) =>
    [...db.disputes.values()].find((d) => d.charge === charge.id && withdrawn(d) && !reinstated(d));

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

  const routes = [
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
  ];

  return { chargedBack, routes };
}
