// Refunds, disputes and invoice payments, Stripe-shaped, as documented for API 2026-10-28:
// - A refund is created `succeeded`, or `pending` for Stripe's test card 4000 0000 0000 7726 (it
//   settles later); the card 4000 0000 0000 5126 gives a refund that succeeds and fails later. Each
//   change sends `refund.updated` and `charge.refund.updated` (and `refund.failed` when it fails).
//   A charge whose chargeback took its funds cannot be refunded (`charge_disputed`).
// - `GET /v1/refunds?charge=` pages with `limit`/`starting_after`; a charge read with
//   `expand[]=refunds` carries only the first 10 of them (`has_more`), and none without the expand.
// - A dispute is a chargeback (`needs_response`, funds withdrawn: a negative balance transaction) or
//   an inquiry (`warning_needs_response`, no money moves). An inquiry may escalate to a chargeback
//   (same dispute: `charge.dispute.updated`, `charge.dispute.funds_withdrawn`). Won: the funds are
//   reinstated (`charge.dispute.funds_reinstated`), then `charge.dispute.closed`. A dispute of a fully
//   refunded charge withdraws nothing. `GET /v1/disputes?charge=|payment_intent=` lists them.
// - `GET /v1/invoice_payments?payment[type]=payment_intent&payment[payment_intent]=` finds the
//   invoice a PaymentIntent paid (billing.mjs keeps invoices).
// A resource module of the stand-in: `kit` carries server.mjs's state and helpers. Its routes are
// registered ahead of server.mjs's own, so they answer these paths.
//
// Stand-in controls (what a bank or card network does in its own time):
//   POST /_standin/charges/{ch}/dispute      {inquiry?: "true", amount?}  opens a dispute
//   POST /_standin/disputes/{dp}/escalate                                  inquiry -> chargeback
//   POST /_standin/disputes/{dp}/close       {outcome: won|lost}           (an inquiry closes as warning_closed)
//   POST /_standin/refunds/{re}/settle       {outcome: succeeded|failed}   a pending (or succeeded) refund settles

const PENDING_REFUND_CARD = "4000000000007726";
const ASYNC_FAILING_REFUND_CARD = "4000000000005126";
const EMBEDDED_REFUNDS = 10;

/** @param {any} kit */
export function disputeRoutes(kit) {
  const { db, get, metadata, int, rid, now, StripeError, badParam, emit } = kit;

  const cardNumberOf = (charge) => db.payment_methods.get(charge.payment_method)?._number ?? null;
  const refundsOf = (charge) => [...db.refunds.values()].filter((r) => r.charge === charge.id).sort((a, b) => b.created - a.created || (b._seq ?? 0) - (a._seq ?? 0));
  const publicRefund = ({ _seq, _fails_later, ...r }) => r;
  const withdrawn = (d) => d.balance_transactions.some((t) => t.amount < 0);
  let seq = 0;

  /** Stripe's list shape with cursor paging (newest first), `limit` up to 100. */
  function page(items, p, url, view = (x) => x) {
    const limit = Math.min(100, Math.max(1, Number(p.limit ?? 10)));
    let start = 0;
    if (p.starting_after) start = items.findIndex((i) => i.id === p.starting_after) + 1;
    const slice = items.slice(start, start + limit);
    return { object: "list", data: slice.map(view), has_more: start + limit < items.length, url };
  }

  /** The charge as Stripe returns it: `refunds` only when expanded, and then its first page only. */
  function chargeView(charge, p) {
    const { refunds: _embedded, ...rest } = charge;
    const expand = [].concat(p.expand ?? []).map(String);
    if (!expand.includes("refunds")) return rest;
    const all = refundsOf(charge);
    return { ...rest, refunds: { object: "list", data: all.slice(0, EMBEDDED_REFUNDS).map(publicRefund), has_more: all.length > EMBEDDED_REFUNDS, total_count: all.length, url: `/v1/charges/${charge.id}/refunds` } };
  }

  /** Keeps the charge's totals in step with its refunds (pending counts: the money is on its way). */
  function retotal(charge) {
    charge.amount_refunded = refundsOf(charge)
      .filter((r) => ["succeeded", "pending", "requires_action"].includes(r.status))
      .reduce((a, r) => a + r.amount, 0);
    charge.refunded = charge.amount_refunded >= charge.amount;
  }

  function createRefund(p) {
    let charge;
    if (p.charge) charge = get("charges", p.charge);
    else if (p.payment_intent) {
      const pi = get("payment_intents", p.payment_intent);
      if (!pi.latest_charge) throw badParam("payment_intent", `PaymentIntent ${pi.id} does not have a successful charge to refund.`);
      charge = get("charges", pi.latest_charge);
    } else throw badParam("charge", "One of the following params should be provided for this request: payment_intent or charge.");
    const chargeback = [...db.disputes.values()].find((d) => d.charge === charge.id && withdrawn(d) && !d.balance_transactions.some((t) => t.amount > 0));
    if (chargeback) throw new StripeError(400, "invalid_request_error", `Charge ${charge.id} has been charged back; cannot issue a refund.`, { code: "charge_disputed" });
    const left = charge.amount - charge.amount_refunded;
    const amount = int(p.amount, "amount") ?? left;
    if (amount <= 0 || amount > left) {
      throw new StripeError(400, "invalid_request_error", `Refund amount ($${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge ($${(left / 100).toFixed(2)})`, { code: "amount_too_large", param: "amount" });
    }
    const card = cardNumberOf(charge);
    const r = {
      id: rid("re"),
      object: "refund",
      amount,
      balance_transaction: rid("txn"),
      charge: charge.id,
      created: now(),
      currency: charge.currency,
      failure_balance_transaction: null,
      failure_reason: null,
      metadata: metadata(p.metadata),
      payment_intent: charge.payment_intent,
      reason: p.reason ?? null,
      status: card === PENDING_REFUND_CARD ? "pending" : "succeeded",
      _seq: seq++,
      _fails_later: card === ASYNC_FAILING_REFUND_CARD,
    };
    db.refunds.set(r.id, r);
    retotal(charge);
    emit("refund.created", publicRefund(r));
    emit("charge.refunded", chargeView(charge, {}));
    return publicRefund(r);
  }

  function settleRefund(r, outcome) {
    if (!["succeeded", "failed"].includes(outcome)) throw badParam("outcome", "outcome must be succeeded or failed");
    if (outcome === "succeeded" && r.status !== "pending") throw new StripeError(400, "invalid_request_error", `Refund ${r.id} is ${r.status}, not pending.`);
    if (outcome === "failed" && !["pending", "succeeded"].includes(r.status)) throw new StripeError(400, "invalid_request_error", `Refund ${r.id} is ${r.status}.`);
    const charge = get("charges", r.charge);
    if (outcome === "failed") Object.assign(r, { status: "failed", failure_reason: "expired_or_canceled_card", failure_balance_transaction: rid("txn") });
    else r.status = "succeeded";
    retotal(charge);
    emit("refund.updated", publicRefund(r));
    emit("charge.refund.updated", publicRefund(r));
    if (outcome === "failed") emit("refund.failed", publicRefund(r));
    return publicRefund(r);
  }

  const balanceTransaction = (d, amount, description) => ({ id: rid("txn"), object: "balance_transaction", amount, created: now(), currency: d.currency, description, fee: amount < 0 ? 1500 : 0, net: amount < 0 ? amount - 1500 : amount, source: d.id, status: "pending", type: "adjustment" });

  /** Funds leave the balance for a chargeback, unless the charge was already fully refunded. */
  function withdraw(d) {
    const charge = get("charges", d.charge);
    if (charge.refunded) return false;
    d.balance_transactions.push(balanceTransaction(d, -d.amount, `Chargeback withdrawal for ${charge.id}`));
    d.is_charge_refundable = false;
    return true;
  }

  function openDispute(chargeId, p = {}) {
    const charge = get("charges", chargeId);
    const inquiry = p.inquiry === "true";
    const d = {
      id: rid("dp"),
      object: "dispute",
      amount: int(p.amount, "amount") ?? charge.amount,
      balance_transactions: [],
      charge: charge.id,
      created: now(),
      currency: charge.currency,
      is_charge_refundable: true,
      livemode: false,
      metadata: {},
      payment_intent: charge.payment_intent,
      reason: inquiry ? "general" : "fraudulent",
      status: inquiry ? "warning_needs_response" : "needs_response",
    };
    db.disputes.set(d.id, d);
    charge.disputed = true;
    const took = !inquiry && withdraw(d);
    emit("charge.dispute.created", d);
    if (took) emit("charge.dispute.funds_withdrawn", d);
    return d;
  }

  function escalate(d) {
    if (!d.status.startsWith("warning_") || d.status === "warning_closed") throw new StripeError(400, "invalid_request_error", `Dispute ${d.id} is ${d.status}: only an open inquiry escalates.`);
    d.status = "needs_response";
    d.reason = "fraudulent";
    const took = withdraw(d);
    emit("charge.dispute.updated", d);
    if (took) emit("charge.dispute.funds_withdrawn", d);
    return d;
  }

  function close(d, outcome) {
    if (!["won", "lost"].includes(outcome)) throw badParam("outcome", "outcome must be won or lost");
    if (["won", "lost", "warning_closed"].includes(d.status)) throw new StripeError(400, "invalid_request_error", `Dispute ${d.id} is already closed (${d.status}).`);
    if (d.status.startsWith("warning_")) {
      d.status = "warning_closed";
      emit("charge.dispute.closed", d);
      return d;
    }
    d.status = outcome;
    const reinstated = outcome === "won" && withdrawn(d);
    if (reinstated) d.balance_transactions.push(balanceTransaction(d, d.amount, `Chargeback reversal for ${d.charge}`));
    if (reinstated) emit("charge.dispute.funds_reinstated", d);
    emit("charge.dispute.closed", d);
    return d;
  }

  function invoicePayments(p) {
    const all = [...db.invoices.values()].flatMap((inv) => inv.payments?.data ?? []);
    const pi = p.payment?.payment_intent;
    const items = all
      .filter((ip) => (!p.invoice || ip.invoice === p.invoice) && (!pi || ip.payment?.payment_intent === pi) && (!p.status || ip.status === p.status))
      .reverse();
    return page(items, p, "/v1/invoice_payments");
  }

  const newestFirst = (rows) => rows.sort((a, b) => b.created - a.created);

  return [
    ["GET", /^\/v1\/charges\/(ch_\w+)$/, "secret", (p, m) => chargeView(get("charges", m[1]), p)],
    ["POST", /^\/v1\/refunds$/, "secret", (p) => createRefund(p)],
    ["GET", /^\/v1\/refunds$/, "secret", (p) => {
      const charge = p.charge ? get("charges", p.charge) : null;
      const pi = p.payment_intent ? get("payment_intents", p.payment_intent) : null;
      const items = charge ? refundsOf(charge) : [...db.refunds.values()].filter((r) => !pi || r.payment_intent === pi.id).reverse();
      return page(items, p, "/v1/refunds", publicRefund);
    }],
    ["GET", /^\/v1\/refunds\/(re_\w+)$/, "secret", (_p, m) => publicRefund(get("refunds", m[1]))],
    ["GET", /^\/v1\/disputes$/, "secret", (p) => {
      const items = newestFirst([...db.disputes.values()].filter((d) => (!p.charge || d.charge === p.charge) && (!p.payment_intent || d.payment_intent === p.payment_intent)));
      return page(items, p, "/v1/disputes");
    }],
    ["GET", /^\/v1\/invoice_payments$/, "secret", (p) => invoicePayments(p)],
    ["POST", /^\/_standin\/charges\/(ch_\w+)\/dispute$/, "secret", (p, m) => openDispute(m[1], p)],
    ["POST", /^\/_standin\/disputes\/(dp_\w+)\/escalate$/, "secret", (_p, m) => escalate(get("disputes", m[1]))],
    ["POST", /^\/_standin\/disputes\/(dp_\w+)\/close$/, "secret", (p, m) => close(get("disputes", m[1]), p.outcome)],
    ["POST", /^\/_standin\/refunds\/(re_\w+)\/settle$/, "secret", (p, m) => settleRefund(get("refunds", m[1]), p.outcome)],
  ];
}
