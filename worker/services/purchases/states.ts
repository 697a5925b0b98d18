// The money states of a paid purchase, and the one table of what each fact Stripe states about its
// refunds and disputes does to it: the next state and the ledger effect. ./settle.ts applies it:
// every refund and dispute of the charge is re-read, each effect is keyed by its Stripe object and
// written once, and the state is computed from the ledger, so any order of events ends the same.
// Rules and known limits: docs/refunds-and-disputes.md.
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

type Effect =
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

/** Stripe withdrew the dispute's funds (a chargeback), or reinstated them (won). */
export const withdrew = (d: Stripe.Dispute) => (d.balance_transactions ?? []).some((t) => t.amount < 0);
export const reinstated = (d: Stripe.Dispute) => (d.balance_transactions ?? []).some((t) => t.amount > 0);

/**
 * The facts Stripe states about one refund, oldest first. A refund that failed may have succeeded
 * before (Stripe does not say), so it states both, as a won dispute states its withdrawal too: its
 * reversal and its restore are written together and net to zero, and a stale read that still sees
 * it succeeded finds its reversal's key taken (a failed refund never stays booked).
 */
function refundFacts(refund: Stripe.Refund, completesAmount: boolean): Fact[] {
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
function disputeFacts(dispute: Stripe.Dispute): Fact[] {
  if (dispute.status.startsWith("warning_"))
    return [dispute.status === "warning_closed" ? "inquiry_closed" : "inquiry_open"];
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

/** One purchase paid by a charge: the main purchase (the PaymentIntent's) first, then its order bump. */
type OrderPart = { id: string; amountCents: number };

/** The Stripe object an attributed share was cut from: an add-on's share is `${id}~${purchaseId}`. */
export const stripeIdOf = (shareId: string) => shareId.split("~")[0];

/**
 * Which part of each refund and each dispute of an order's charge is whose, when one charge paid a
 * purchase and its order bump. The table above then applies to each purchase with its
 * own shares, as if each had been charged alone.
 * - A refund whose metadata names one of the order's purchases (a creator's refund of that sale,
 *   worker/services/refunds/creator-refunds.ts) is that purchase's, up to what is left of it.
 * - Any other amount (a refund made in Stripe's dashboard, a dispute, which is of what the charge
 *   still holds) fills the purchases in order, the main one first, each up to what is left of it;
 *   for a dispute, "left" is also less the refunds made before it.
 * - "Left" is the purchase's amount less every earlier refund's (dispute's) share, whatever its
 *   status, oldest first (`objects` come in Stripe's list order, newest first): a share never changes once its object exists, since
 *   its ledger keys were booked by it. So a refund that failed still holds its place (a known limit:
 *   a dashboard refund after it may go to the add-on). An amount beyond the order stays with the
 *   main purchase, whose ledger cap books nothing more.
 * The main purchase's shares keep their object's id (its keys are as without a bump); an add-on's
 * share is named `${id}~${purchaseId}`, which keys its ledger rows, its email and its webhook.
 * A charge of one purchase is returned as it is.
 */
export function attributeToOrder(
  parts: OrderPart[],
  refunds: Stripe.Refund[],
  disputes: Stripe.Dispute[],
): Map<string, { refunds: Stripe.Refund[]; disputes: Stripe.Dispute[] }> {
  const out = new Map(parts.map((p) => [p.id, { refunds: [] as Stripe.Refund[], disputes: [] as Stripe.Dispute[] }]));
  if (parts.length === 1) {
    out.set(parts[0].id, { refunds, disputes });
    return out;
  }
  const main = parts[0];
  const split = <T extends { id: string; amount: number; created: number }>(
    objects: T[],
    named: (o: T) => string | undefined,
    put: (purchaseId: string, share: T) => void,
    before: (o: T, purchaseId: string) => number,
  ) => {
    // Oldest first: Stripe lists newest first, and its order (not the id) breaks a tie in `created`.
    const sorted = [...objects].reverse().sort((a, b) => a.created - b.created);
    const left = new Map(parts.map((p) => [p.id, p.amountCents]));
    for (const o of sorted) {
      for (const p of parts) left.set(p.id, left.get(p.id)! - before(o, p.id));
      const first = parts.find((p) => p.id === named(o));
      const order = first ? [first, ...parts.filter((p) => p !== first)] : parts;
      let rest = o.amount;
      const shares = new Map<string, number>();
      for (const p of order) {
        const take = Math.min(rest, left.get(p.id)!);
        if (take <= 0) continue;
        shares.set(p.id, take);
        left.set(p.id, left.get(p.id)! - take);
        rest -= take;
      }
      if (rest > 0 || shares.size === 0) shares.set(main.id, (shares.get(main.id) ?? 0) + rest);
      for (const [purchaseId, amount] of shares)
        put(purchaseId, { ...o, id: purchaseId === main.id ? o.id : `${o.id}~${purchaseId}`, amount });
      for (const p of parts) left.set(p.id, left.get(p.id)! + before(o, p.id));
    }
  };
  split(
    refunds,
    (r) => r.metadata?.purchaseId,
    (id, share) => out.get(id)!.refunds.push(share),
    () => 0,
  );
  // A dispute is of what the refunds made before it left of the charge: each purchase's part of it
  // is what those refunds left of that purchase.
  const refundedBefore = (d: Stripe.Dispute, purchaseId: string) =>
    out
      .get(purchaseId)!
      .refunds.filter((r) => r.created <= d.created)
      .reduce((a, r) => a + r.amount, 0);
  split(
    disputes,
    () => undefined,
    (id, share) => out.get(id)!.disputes.push(share),
    refundedBefore,
  );
  return out;
}
