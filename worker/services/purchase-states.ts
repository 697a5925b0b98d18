// The money states of a paid purchase, and the one table of what each fact Stripe states about its
// refunds and disputes does to it: the next state and the ledger effect.
//
// How it is applied (worker/services/purchases.ts `settle`): on any refund or dispute event the
// charge is re-read from Stripe with ALL its refunds (paged) and ALL its disputes. Each refund and
// each dispute gives its facts (below, `factsOf`), each fact's ledger effect is keyed by the Stripe
// object it comes from (refund:{re}, refund-failed:{re}, dispute:{dp}, dispute-won:{dp}), and all of
// them are written in one D1 batch, followed by the purchase's state computed from the ledger it now
// holds. Effects are only ever added, each once, so whichever events arrive, in whatever order and
// however often, the last one to be handled has written every fact: the state and the ledger's sums
// are the same. (A read that raced a newer one can only miss facts, never undo them: an object that
// can be given back — a failed refund, a won dispute — states its taking too, so the taking's key is
// written with its giving back and a stale read's taking finds it taken.)
//
// Rules:
// - A refund books nothing until Stripe says it succeeded; a failed or canceled refund books nothing,
//   and one that succeeded and then failed gives back what it had taken (the money came back to us).
// - A partial refund keeps access and reverses that part of the split; a full refund ends access,
//   and a dispute's outcome never gives it back.
// - An inquiry (warning_*) moves no money. A chargeback reverses the sale when Stripe withdraws its
//   funds (a negative balance transaction on the dispute: an escalated inquiry too); a won dispute
//   gives back exactly what that dispute took (a refunded purchase stays refunded).
// - Reversals never take more than the sale (worker/services/ledger.ts `reverseSale`). A reversal
//   that the cap left at nothing is retried after the restores (unless its own object was given
//   back), so the end does not depend on the order. Known limit: one the cap left only partly
//   booked is not topped up later (its key is taken).
import type Stripe from "stripe";

export type PurchaseState = "paid" | "refunded" | "disputed";

/** What Stripe can say about one refund or one dispute of the purchase's charge. */
export type Fact =
  | "refund_pending" // pending or requires_action: nothing moved yet
  | "refund_succeeded" // part of the amount went back
  | "refund_completed" // a succeeded refund that brings the refunded total to the whole amount
  | "refund_failed" // failed or canceled (after succeeding, or never)
  | "inquiry_open" // warning_needs_response / warning_under_review
  | "inquiry_closed" // warning_closed
  | "funds_withdrawn" // a chargeback: needs_response, under_review, lost, or won (before reinstatement)
  | "funds_reinstated" // won: the withdrawn funds came back
  | "dispute_lost"; // lost: what was withdrawn stays withdrawn

export type Effect =
  | "none"
  | "reverse_refund" // refund:{re}  the refund's amount, split like the sale
  | "restore_refund" // refund-failed:{re}  minus whatever refund:{re} booked
  | "reverse_dispute" // dispute:{dp}  the dispute's amount, split like the sale
  | "restore_dispute"; // dispute-won:{dp}  minus whatever dispute:{dp} booked

type Row = Record<Fact, { next: PurchaseState | "paid_unless_held"; effect: Effect }>;

/**
 * state × fact → next state + ledger effect. "paid_unless_held" is paid unless another dispute
 * still holds withdrawn funds (then disputed) or refunds total the amount (then refunded).
 */
export const TRANSITIONS: Record<PurchaseState, Row> = {
  paid: {
    refund_pending: { next: "paid", effect: "none" },
    refund_succeeded: { next: "paid", effect: "reverse_refund" },
    refund_completed: { next: "refunded", effect: "reverse_refund" },
    refund_failed: { next: "paid", effect: "restore_refund" },
    inquiry_open: { next: "paid", effect: "none" },
    inquiry_closed: { next: "paid", effect: "none" },
    funds_withdrawn: { next: "disputed", effect: "reverse_dispute" },
    funds_reinstated: { next: "paid_unless_held", effect: "restore_dispute" },
    dispute_lost: { next: "disputed", effect: "reverse_dispute" },
  },
  refunded: {
    refund_pending: { next: "refunded", effect: "none" },
    refund_succeeded: { next: "refunded", effect: "reverse_refund" },
    refund_completed: { next: "refunded", effect: "reverse_refund" },
    // The buyer never got the money back: the sale stands again (unless other refunds still total it).
    refund_failed: { next: "paid_unless_held", effect: "restore_refund" },
    inquiry_open: { next: "refunded", effect: "none" },
    inquiry_closed: { next: "refunded", effect: "none" },
    // Stripe withdraws nothing for a dispute of a fully refunded charge; if it did, access stays ended.
    funds_withdrawn: { next: "refunded", effect: "reverse_dispute" },
    funds_reinstated: { next: "refunded", effect: "restore_dispute" },
    dispute_lost: { next: "refunded", effect: "reverse_dispute" },
  },
  disputed: {
    refund_pending: { next: "disputed", effect: "none" },
    refund_succeeded: { next: "disputed", effect: "reverse_refund" },
    // Stripe refuses to refund a charge whose chargeback took its funds (charge_disputed); if one
    // came, the chargeback already took the sale back, so the refund books nothing until a win
    // gives the money back (then it is booked, and the purchase is refunded).
    refund_completed: { next: "disputed", effect: "reverse_refund" },
    refund_failed: { next: "disputed", effect: "restore_refund" },
    inquiry_open: { next: "disputed", effect: "none" },
    inquiry_closed: { next: "disputed", effect: "none" },
    funds_withdrawn: { next: "disputed", effect: "reverse_dispute" },
    funds_reinstated: { next: "paid_unless_held", effect: "restore_dispute" },
    dispute_lost: { next: "disputed", effect: "reverse_dispute" },
  },
};

/** Access follows the state: only a paid purchase opens its content. */
export const GRANTS_ACCESS: Record<PurchaseState, boolean> = { paid: true, refunded: false, disputed: false };

/** One keyed ledger effect of one Stripe object, with the amount it asks for. */
export type KeyedEffect = { effect: Exclude<Effect, "none">; key: string; cents: number; source: string };

const withdrew = (d: Stripe.Dispute) => (d.balance_transactions ?? []).some((t) => t.amount < 0);
const reinstated = (d: Stripe.Dispute) => (d.balance_transactions ?? []).some((t) => t.amount > 0);

/**
 * The facts Stripe states about one refund, oldest first. A refund that failed may have succeeded
 * before (Stripe does not say), so it states both, as a won dispute states its withdrawal too: its
 * reversal and its restore are written together and net to zero, and a stale read that still sees
 * it succeeded finds its reversal's key taken (a failed refund never stays booked).
 */
export function refundFacts(refund: Stripe.Refund, completesAmount: boolean): Fact[] {
  const succeeded: Fact = completesAmount ? "refund_completed" : "refund_succeeded";
  switch (refund.status) {
    case "succeeded":
      return [succeeded];
    case "failed":
    case "canceled":
      return [succeeded, "refund_failed"];
    default:
      return ["refund_pending"];
  }
}

/** The facts Stripe states about one dispute, from its status and its balance transactions. */
export function disputeFacts(dispute: Stripe.Dispute): Fact[] {
  if (dispute.status.startsWith("warning_")) return [dispute.status === "warning_closed" ? "inquiry_closed" : "inquiry_open"];
  const facts: Fact[] = [];
  if (withdrew(dispute)) facts.push("funds_withdrawn");
  if (reinstated(dispute)) facts.push("funds_reinstated");
  else if (dispute.status === "lost" && withdrew(dispute)) facts.push("dispute_lost");
  return facts;
}

/** Every keyed ledger effect the refunds and disputes of a charge call for (as the table says, from any state). */
export function effectsOf(amountCents: number, refunds: Stripe.Refund[], disputes: Stripe.Dispute[]): KeyedEffect[] {
  const out: KeyedEffect[] = [];
  const succeeded = refunds.filter((r) => r.status === "succeeded").reduce((a, r) => a + r.amount, 0);
  for (const r of refunds) {
    const completes = (r.status === "succeeded" ? succeeded : succeeded + r.amount) >= amountCents;
    for (const fact of refundFacts(r, completes)) {
      const { effect } = TRANSITIONS.paid[fact];
      if (effect === "reverse_refund") out.push({ effect, key: `refund:${r.id}`, cents: r.amount, source: r.id });
      if (effect === "restore_refund") out.push({ effect, key: `refund-failed:${r.id}`, cents: 0, source: r.id });
    }
  }
  for (const d of disputes) {
    for (const fact of disputeFacts(d)) {
      const { effect } = TRANSITIONS.paid[fact];
      if (effect === "reverse_dispute") out.push({ effect, key: `dispute:${d.id}`, cents: d.amount, source: d.id });
      if (effect === "restore_dispute") out.push({ effect, key: `dispute-won:${d.id}`, cents: 0, source: d.id });
    }
  }
  // One of each key (lost and withdrawn both ask for the same reversal).
  return out.filter((e, i) => out.findIndex((o) => o.key === e.key) === i);
}

/**
 * The state the ledger of a purchase shows, as SQL (the same rule as TRANSITIONS, read from the
 * booked rows so a stale read can never undo a newer one): refunded when refunds total the amount,
 * disputed while a dispute holds withdrawn funds, else paid. `?1` is the purchase id.
 */
export const STATE_FROM_LEDGER_SQL = `case
  when (select -coalesce(sum(amount_cents), 0) from ledger_entries where purchase_id = ?1 and kind = 'refund') >= purchases.amount_cents then 'refunded'
  when (select coalesce(sum(amount_cents), 0) from ledger_entries where purchase_id = ?1 and kind = 'dispute') < 0 then 'disputed'
  else 'paid' end`;
