// Stripe's word about each creator refund request, recorded forward only. Written in the settle
// batch (../purchases/settle.ts settleCharge) and by the request itself (./creator-refunds.ts).
import type Stripe from "stripe";

/**
 * Statuses only move forward (a stale read cannot undo a newer one): requested → pending /
 * requires_action → succeeded → failed / canceled. As SQL over `?` = the new status.
 */
const RANK = (col: string) =>
  `(case ${col} when 'requested' then 0 when 'refused' then 0 when 'pending' then 1 when 'requires_action' then 1 when 'succeeded' then 2 else 3 end)`;

/**
 * D1 statements that record Stripe's word about each Refund made from a request (its metadata
 * names the request): its id and status, forward only. Added to settleCharge's batch.
 */
export function refundRequestStatements(d1: D1Database, refunds: Stripe.Refund[]): D1PreparedStatement[] {
  return refunds
    .filter((r) => r.metadata?.refundRequestId)
    .map((r) =>
      d1
        .prepare(
          `update refund_requests set stripe_refund_id = ?2, status = ?3, error = null
           where id = ?1 and (stripe_refund_id is null or stripe_refund_id = ?2) and ${RANK("?3")} > ${RANK("status")}`,
        )
        .bind(r.metadata!.refundRequestId, r.id, r.status ?? "pending"),
    );
}
