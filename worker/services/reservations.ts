// Which of a charge's refunds and disputes hold money back from the creator, as Stripe has them now
// (worker/services/balances.ts keeps the rule; this file names what is on its way). Written in the
// settle batch after the ledger rows that move money, so a reservation closes with the move it
// waited for, never before:
// - a creator's refund request reserved its share when it was written (refunds/creator-refunds.ts); it is
//   posted once Stripe says succeeded (its refund row booked in this batch), voided once Stripe says
//   failed or canceled, or refused it;
// - a refund made in Stripe's dashboard reserves while Stripe says pending (or requires_action);
// - an inquiry (warning_*) reserves the disputed amount until it closes (voided) or becomes a
//   chargeback, whose funds Stripe withdraws at once: the dispute row is then booked (posted).
import type Stripe from "stripe";
import { release, reserve } from "./balances";
import { withdrew } from "./purchases/states";

const PENDING_REFUND = new Set(["pending", "requires_action"]);
const OPEN_INQUIRY = new Set(["warning_needs_response", "warning_under_review"]);

/** The reservation statements for one purchase's own shares of its charge's refunds and disputes. */
export function chargeReservations(
  d1: D1Database,
  purchaseId: string,
  refunds: Stripe.Refund[],
  disputes: Stripe.Dispute[],
  now: number,
): D1PreparedStatement[] {
  const out: D1PreparedStatement[] = [];
  const one = (ref: string): [string, unknown[]] => ["select ?3 as ref", [ref]];
  for (const r of refunds) {
    if (r.metadata?.refundRequestId) continue;
    const ref = `refund:${r.id}`;
    if (PENDING_REFUND.has(r.status ?? "")) out.push(reserve(d1, { ref, purchaseId, cents: r.amount, now }));
    else out.push(release(d1, ...one(ref), r.status === "succeeded" ? "posted" : "voided", now));
  }
  for (const d of disputes) {
    const ref = `inquiry:${d.id}`;
    if (OPEN_INQUIRY.has(d.status)) out.push(reserve(d1, { ref, purchaseId, cents: d.amount, now }));
    else out.push(release(d1, ...one(ref), withdrew(d) ? "posted" : "voided", now));
  }
  const requests = (statuses: string) =>
    `select 'refund-request:' || id as ref from refund_requests where purchase_id = ?3 and status in (${statuses})`;
  out.push(release(d1, requests("'succeeded'"), [purchaseId], "posted", now));
  out.push(release(d1, requests("'failed', 'canceled', 'refused'"), [purchaseId], "voided", now));
  return out;
}
