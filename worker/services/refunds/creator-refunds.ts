// A creator refunds one of their sales, in full or in part, through Stripe: the request row (keyed by
// the dialog's key) and its reservation are written first, in one statement that holds the overdraft
// limit, then Stripe is asked under the row's id; the ledger, access and emails follow from Stripe's
// word through ../purchases/settle.ts like any refund. Each step is safe to repeat. Behaviour:
// docs/refunds-and-disputes.md ("A creator refunds a sale").
import { formatCentsPlain } from "../../../shared/money";
import { and, eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { CREATOR_REFUND_OVERDRAFT_CENTS, REFUND_REASONS, type RefundSaleInput } from "../../../shared/earnings";
import type { RefundRequestResult } from "../../../shared/earnings";
import { purchases, refundRequests } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { availableAfterSql, creatorShareSql, release, reserve, SALE_HOLD_MS } from "../balances";
import { idOf, type PurchaseDeps } from "../purchases/deps";
import { settleCharge } from "../purchases/settle";
import { refundRequestStatements } from "./refund-requests";
import { saleColumns, saleView } from "./sale-view";

type RequestRow = typeof refundRequests.$inferSelect;
type RefundStatus = RefundRequestResult["status"];

const REFUND_REFUSED = {
  notPaid: "This sale was never paid, so there is nothing to refund",
  notCard: "This sale has no payment at Stripe to refund",
  refunded: "This sale was already refunded in full",
  disputed:
    "This sale is disputed: the buyer's bank holds the money until the dispute is decided, so it cannot be refunded",
  tooMuch: (leftCents: number) => `You can refund at most ${formatCentsPlain(leftCents)} of this sale`,
  stripeDown: "Stripe could not be reached, so nothing was refunded. Please try again.",
  inFlight: "This refund is already being made: the sale shows it in a moment.",
  ended: "This refund was not made: close the dialog and start again",
  keyReused: (cents: number) =>
    `This request was for ${formatCentsPlain(cents)}: close the dialog and start again to refund another amount`,
  overdraft: (belowCents: number) =>
    `This refund would leave your balance ${formatCentsPlain(belowCents)} below zero, and your refunds may take it at most ${formatCentsPlain(CREATOR_REFUND_OVERDRAFT_CENTS)} below zero. Refund less, or wait until new sales cover it.`,
} as const;

/**
 * SQL for what a sale has given back or has on its way back (`x` is its id): its booked refunds, and
 * the requests whose reservation is still open (asked of Stripe, pending there, or succeeded but not
 * yet booked). Two refunds of one sale pressed at once can never take more than the sale.
 */
const REFUNDED_OR_ON_ITS_WAY = (x: string) => `(
  -coalesce((select sum(amount_cents) from ledger_entries where purchase_id = ${x} and kind = 'refund'), 0)
  + coalesce((select sum(q.amount_cents) from refund_requests q where q.purchase_id = ${x}
      and exists (select 1 from ledger_entries where idempotency_key = 'reserve:refund-request:' || q.id)
      and not exists (select 1 from ledger_entries where idempotency_key = 'release:refund-request:' || q.id)), 0))`;

/** The creator's share of `amountCents` of the sale, what the sale has left, and how far below zero available would be after it. */
async function roomFor(deps: Pick<PurchaseDeps, "d1">, purchaseId: string, amountCents: number, now: number) {
  const r = await deps.d1
    .prepare(
      `select p.share, p.amount_cents - ${REFUNDED_OR_ON_ITS_WAY("p.id")} as left_cents, ${availableAfterSql("p.creator_id", "?3", "p.id", "p.share")} as after
       from (select p.*, ${creatorShareSql("p", "?2")} as share from purchases p where p.id = ?1) p`,
    )
    .bind(purchaseId, amountCents, now - SALE_HOLD_MS)
    .first<{ share: number; left_cents: number; after: number }>();
  return { leftCents: Number(r?.left_cents ?? 0), belowCents: Math.max(0, -Number(r?.after ?? 0)) };
}

/** Stripe made no Refund for the request (it refused, or never heard of it): the row says why and its reservation is voided, in one batch. */
async function refuseRequest(
  deps: Pick<PurchaseDeps, "d1">,
  requestId: string,
  why: string,
  now = Date.now(),
): Promise<void> {
  await deps.d1.batch([
    deps.d1
      .prepare("update refund_requests set status = 'refused', error = ?2 where id = ?1 and status = 'requested'")
      .bind(requestId, why.slice(0, 500)),
    release(
      deps.d1,
      "select 'refund-request:' || id as ref from refund_requests where id = ?3 and status = 'refused'",
      [requestId],
      "voided",
      now,
    ),
  ]);
}

/** The Refund Stripe already made for this request, if any (its metadata names the request). */
async function madeFor(
  deps: Pick<PurchaseDeps, "stripe">,
  paymentIntentId: string,
  req: RequestRow,
): Promise<Stripe.Refund | undefined> {
  if (req.stripeRefundId) {
    return deps.stripe.refunds.retrieve(req.stripeRefundId).catch(() => {
      throw new ApiError(502, REFUND_REFUSED.stripeDown);
    });
  }
  try {
    for await (const r of deps.stripe.refunds.list({ payment_intent: paymentIntentId, limit: 100 })) {
      if (r.metadata?.refundRequestId === req.id) return r;
    }
  } catch {
    throw new ApiError(502, REFUND_REFUSED.stripeDown);
  }
  return undefined;
}

async function saleOf(deps: Pick<PurchaseDeps, "db">, creatorId: string, purchaseId: string) {
  return deps.db
    .select()
    .from(purchases)
    .where(and(eq(purchases.id, purchaseId), eq(purchases.creatorId, creatorId)))
    .get();
}

function stripeReason(reason: string): { reason?: (typeof REFUND_REASONS)[number]; note: string | null } {
  return (REFUND_REASONS as readonly string[]).includes(reason)
    ? { reason: reason as (typeof REFUND_REASONS)[number], note: null }
    : { note: reason };
}

/** Why Stripe refused a refund, in the creator's terms; null when it is not a refusal (Stripe down). */
function refusal(err: unknown): string | null {
  const e = err as { type?: string; code?: string; message?: string; statusCode?: number };
  if (e?.type !== "StripeInvalidRequestError") return null;
  if (e.code === "charge_already_refunded") return REFUND_REFUSED.refunded;
  if (e.code === "charge_disputed") return REFUND_REFUSED.disputed;
  return e.message ?? "Stripe refused this refund";
}

export async function requestRefund(
  deps: PurchaseDeps,
  creatorId: string,
  purchaseId: string,
  input: RefundSaleInput,
): Promise<RefundRequestResult> {
  const purchase = await saleOf(deps, creatorId, purchaseId);
  if (!purchase) throw notFound("Sale Not Found");
  if (!["paid", "refunded", "disputed"].includes(purchase.status)) throw new ApiError(400, REFUND_REFUSED.notPaid);
  if (purchase.status === "refunded") throw new ApiError(400, REFUND_REFUSED.refunded);
  if (purchase.status === "disputed") throw new ApiError(409, REFUND_REFUSED.disputed);
  // An order bump's sale was paid by its main purchase's PaymentIntent: its refund is a part of that charge.
  const paymentIntentId =
    purchase.paymentIntentId ??
    (purchase.bumpOf ? (await saleOf(deps, creatorId, purchase.bumpOf))?.paymentIntentId : null);
  if (!paymentIntentId) throw new ApiError(400, REFUND_REFUSED.notCard);

  // A press repeated with the dialog's key is the same request, whatever happened since.
  let row: RequestRow | undefined = input.requestKey
    ? await deps.db
        .select()
        .from(refundRequests)
        .where(
          and(eq(refundRequests.purchaseId, purchase.id), eq(refundRequests.requestKey, `key:${input.requestKey}`)),
        )
        .get()
    : undefined;

  // The same key is the same request: another amount is another request.
  if (row && input.amountCents !== undefined && input.amountCents !== row.amountCents)
    throw new ApiError(409, REFUND_REFUSED.keyReused(row.amountCents));

  let chargeId: string | null = null;
  // True when this call wrote the request: no Refund can have been made for it yet.
  let fresh = false;
  if (!row) {
    const intent = await deps.stripe.paymentIntents.retrieve(paymentIntentId).catch(() => {
      throw new ApiError(502, REFUND_REFUSED.stripeDown);
    });
    chargeId = idOf(intent.latest_charge);
    if (!chargeId) throw new ApiError(400, REFUND_REFUSED.notPaid);
    const charge = await deps.stripe.charges.retrieve(chargeId).catch(() => {
      throw new ApiError(502, REFUND_REFUSED.stripeDown);
    });
    // Any method Stripe can refund (card, Link, a wallet's card) is refunded here; Stripe refuses what it cannot.
    // Not `charge.disputed`: Stripe sets it for an inquiry too (refundable) and keeps it after a won
    // dispute. A chargeback is the sale's 'disputed' state above, and Stripe refuses it (charge_disputed).
    // What is left of the charge, and of this sale: one charge may pay a sale and its order bump,
    // and a refund of one never takes the other's part.
    const own = await deps.db
      .select({ refunded: saleColumns.refundedCents, pending: saleColumns.pendingCents })
      .from(purchases)
      .where(eq(purchases.id, purchase.id))
      .get();
    const leftCents = Math.min(
      charge.amount_captured - charge.amount_refunded,
      purchase.amountCents - Number(own?.refunded ?? 0) - Number(own?.pending ?? 0),
    );
    if (leftCents <= 0) throw new ApiError(400, REFUND_REFUSED.refunded);
    const amountCents = input.amountCents ?? leftCents;
    if (amountCents > leftCents) throw new ApiError(400, REFUND_REFUSED.tooMuch(leftCents));
    const now = Date.now();
    const room = await roomFor(deps, purchase.id, amountCents, now);
    if (amountCents > room.leftCents)
      throw new ApiError(400, room.leftCents > 0 ? REFUND_REFUSED.tooMuch(room.leftCents) : REFUND_REFUSED.inFlight);
    if (room.belowCents > CREATOR_REFUND_OVERDRAFT_CENTS)
      throw new ApiError(409, REFUND_REFUSED.overdraft(room.belowCents));

    // Without the dialog's key: the same press sees the same amount left (and the same number of
    // requests that came to nothing, so a retry after a failed refund is a new request).
    const failed = await deps.db
      .select({ n: sql<number>`count(*)` })
      .from(refundRequests)
      .where(
        and(
          eq(refundRequests.purchaseId, purchase.id),
          sql`${refundRequests.status} in ('failed', 'canceled', 'refused')`,
        ),
      )
      .get();
    const requestKey = input.requestKey
      ? `key:${input.requestKey}`
      : `left:${leftCents}:${amountCents}:${failed?.n ?? 0}`;
    const { reason, note } = stripeReason(input.reason);
    // The money kernel first: the creator's share is reserved only if, with every reservation and
    // payout counted, available stays within the overdraft limit and the sale still has the amount
    // left, in the same statement; the request is written only with its reservation. Of two
    // requests at once (or a request and a withdrawal), the second sees the first.
    const id = newId();
    await deps.d1.batch([
      reserve(
        deps.d1,
        { ref: `refund-request:${id}`, purchaseId: purchase.id, cents: amountCents, now },
        {
          sql: `not exists (select 1 from refund_requests where purchase_id = p.id and request_key = ?5)
            and ${availableAfterSql("p.creator_id", "?6", "p.id", "p.share")} >= -?7
            and ?3 <= p.amount_cents - ${REFUNDED_OR_ON_ITS_WAY("p.id")}`,
          binds: [requestKey, now - SALE_HOLD_MS, CREATOR_REFUND_OVERDRAFT_CENTS],
        },
      ),
      deps.d1
        .prepare(
          `insert into refund_requests (id, purchase_id, creator_id, request_key, amount_cents, reason, note, created_at)
           select ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 where exists (select 1 from ledger_entries where idempotency_key = 'reserve:refund-request:' || ?1)
           on conflict do nothing`,
        )
        .bind(id, purchase.id, creatorId, requestKey, amountCents, reason ?? "other", note, now),
    ]);
    row = await deps.db
      .select()
      .from(refundRequests)
      .where(and(eq(refundRequests.purchaseId, purchase.id), eq(refundRequests.requestKey, requestKey)))
      .get();
    fresh = row?.id === id;
    if (!row) {
      // Nothing written and nothing there: a request or a withdrawal made meanwhile took the room.
      const after = await roomFor(deps, purchase.id, amountCents, Date.now());
      if (amountCents > after.leftCents) throw new ApiError(409, REFUND_REFUSED.inFlight);
      throw new ApiError(409, REFUND_REFUSED.overdraft(Math.max(after.belowCents, CREATOR_REFUND_OVERDRAFT_CENTS + 1)));
    }
  }

  const req = row;
  let refund: Stripe.Refund | undefined;
  if (!fresh) refund = await madeFor(deps, paymentIntentId, req);
  // A request that ended without a Refund gave its reservation back: asking again needs a new one.
  if (!refund && !fresh && req.status !== "requested") throw new ApiError(409, REFUND_REFUSED.ended);
  if (!refund) {
    try {
      refund = await deps.stripe.refunds.create(
        {
          payment_intent: paymentIntentId,
          amount: req.amountCents,
          ...(req.reason !== "other" ? { reason: req.reason } : {}),
          metadata: {
            refundRequestId: req.id,
            purchaseId: purchase.id,
            ...(req.note ? { note: req.note.slice(0, 500) } : {}),
          },
        },
        { idempotencyKey: `creator-refund:${req.id}` },
      );
    } catch (err) {
      // The same press is still at Stripe (two at once, same key): that one makes the refund.
      if ((err as { code?: string }).code === "idempotency_key_in_use")
        throw new ApiError(409, REFUND_REFUSED.inFlight);
      const refused = refusal(err);
      if (!refused) throw new ApiError(502, REFUND_REFUSED.stripeDown);
      // Stripe keeps nothing under the key for a refused request: the row says so, and a repeat asks again.
      await refuseRequest(deps, req.id, refused);
      throw new ApiError((err as { code?: string }).code === "charge_disputed" ? 409 : 400, refused);
    }
  }

  // Stripe's answer, then the charge settled from Stripe's word like any refund event (the webhook
  // that follows does the same again, and adds nothing).
  await deps.d1.batch(refundRequestStatements(deps.d1, [refund]) as [D1PreparedStatement]);
  const charge = idOf(refund.charge) ?? chargeId;
  // The Refund exists now: a failure to settle here is no failure of the request (its webhook
  // settles the charge the same way), so the creator is told what Stripe said, never a 5xx.
  if (charge)
    await settleCharge(deps, charge).catch((err) =>
      console.error(
        JSON.stringify({ msg: "creator refund: settle deferred to the webhook", refund: refund.id, err: String(err) }),
      ),
    );

  const after = (await deps.db.select().from(refundRequests).where(eq(refundRequests.id, req.id)).get()) ?? req;
  const sale = await saleView(deps, creatorId, purchase.id);
  if (!sale) throw notFound("Sale Not Found");
  return {
    id: after.id,
    amount: after.amountCents / 100,
    status: (after.status === "refused" ? "failed" : after.status) as RefundStatus,
    sale,
  };
}

/** A request Stripe has not answered for this long is looked up at Stripe by the sweep. */
const UNANSWERED_REQUEST_MS = 10 * 60 * 1000;

/**
 * The sweep's part (every few minutes): a request still 'requested' after UNANSWERED_REQUEST_MS (a
 * crash, or Stripe unreachable, between writing it and hearing Stripe) is settled from Stripe's
 * word: the Refund made for it (found by its metadata) is recorded and its charge settled, which
 * posts or voids the reservation; no Refund at all voids it, so the money is available again.
 */
export async function sweepUnansweredRefundRequests(
  deps: PurchaseDeps,
  now = Date.now(),
): Promise<{ settled: number; voided: number }> {
  const stale = await deps.d1
    .prepare(
      `select r.id, coalesce(p.payment_intent_id, m.payment_intent_id) as pi from refund_requests r
       join purchases p on p.id = r.purchase_id left join purchases m on m.id = p.bump_of
       where r.status = 'requested' and r.created_at < ?1 order by r.created_at limit 50`,
    )
    .bind(now - UNANSWERED_REQUEST_MS)
    .all<{ id: string; pi: string | null }>();
  let settled = 0;
  let voided = 0;
  for (const s of stale.results) {
    const req = await deps.db.select().from(refundRequests).where(eq(refundRequests.id, s.id)).get();
    if (!req) continue;
    const refund = s.pi ? await madeFor(deps, s.pi, req) : undefined;
    if (refund) {
      await deps.d1.batch(refundRequestStatements(deps.d1, [refund]) as [D1PreparedStatement]);
      const charge = idOf(refund.charge);
      if (charge) await settleCharge(deps, charge);
      settled++;
    } else {
      await refuseRequest(deps, req.id, "Stripe never made this refund", now);
      voided++;
    }
  }
  return { settled, voided };
}
