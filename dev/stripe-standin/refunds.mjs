// Refunds and the charge as retrieved, Stripe-shaped (API 2026-10-28). A refund is created
// `succeeded`, or `pending` for test card 4000 0000 0000 7726 (it settles later); 4000 0000 0000 5126
// gives one that succeeds and fails later. Its amount leaves the balance at once; a refund that fails
// gives it back (`failure_balance_transaction`, an `adjustment` of category `refund_failure`) and no
// longer counts in the charge's `amount_refunded`. A fully refunded charge answers
// `charge_already_refunded`; a charged-back one `charge_disputed`. A charge read with
// `expand[]=refunds` carries the first 10 (`has_more`). See docs/refunds-and-disputes.md#in-the-stand-in.
// Stand-in control: POST /_standin/refunds/{re}/settle {outcome: succeeded|failed} settles a refund.
import { page } from "./wire.mjs";

const PENDING_REFUND_CARD = "4000000000007726";
const ASYNC_FAILING_REFUND_CARD = "4000000000005126";
const EMBEDDED_REFUNDS = 10;

// A refund's status moves only along these lines (`settle` is what the bank does in its own time).
const REFUND_SETTLES = {
  pending: ["succeeded", "failed"],
  succeeded: ["failed"],
};
// Refunds whose money is gone or on its way: they count in the charge's amount_refunded.
const REFUND_COUNTS = ["pending", "requires_action", "succeeded"];

/** @param {any} kit */
export function refunds(kit) {
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
    publicCharge,
    expandOf,
    chargedBack,
  } = kit;

  const cardNumberOf = (charge) => db.payment_methods.get(charge.payment_method)?._number ?? null;
  const newestFirst = (a, b) => b.created - a.created || (b._seq ?? 0) - (a._seq ?? 0);
  const refundsOf = (charge) => [...db.refunds.values()].filter((r) => r.charge === charge.id).sort(newestFirst);

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
    if (chargedBack(charge))
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

  const routes = [
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
      "POST",
      /^\/_standin\/refunds\/(re_\w+)\/settle$/,
      "secret",
      (p, m) => settleRefund(get("refunds", m[1]), p.outcome),
    ],
  ];

  return { routes };
}
