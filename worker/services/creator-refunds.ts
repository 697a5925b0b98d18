// A creator refunds one of their sales, in full or in part, through Stripe. The steps, each safe to
// repeat:
//   1. the sale is read with its owner in the query (someone else's sale is a 404 and Stripe is
//      never asked), and what is left refundable is read from Stripe's charge (amount captured
//      minus amount refunded, pending refunds included), never from the browser;
//   2. a refund_requests row is written first, keyed per purchase by the dialog's requestKey (or,
//      without one, by the refundable amount seen and the failed requests before it): a double
//      press, or two presses at once, find the same row;
//   3. Stripe is asked for a Refund with that row's id as its Idempotency-Key and the row's own
//      amount, so any repeat replays the same Refund;
//   2b. a new request must be covered: the creator's share of it (the sale's creator rows, pro rata)
//      may take their ledger balance, less the refunds on their way (pending at Stripe, not yet
//      answered, succeeded but not yet booked), at most CREATOR_REFUND_OVERDRAFT_CENTS below zero
//      (else 409 and Stripe is never asked). The row of step 2 is written only if this holds, in
//      the same statement, so two requests at once cannot both pass;
//   3a. a request pressed again (same key) reads the Refund Stripe already made for it (found by its
//      metadata among the payment's refunds) instead of asking again: Stripe forgets an
//      Idempotency-Key after 24 hours, and a crash may have come between Stripe's answer and ours;
//   4. nothing here writes the ledger or changes access: the charge is settled from Stripe's word
//      by the same path as every refund event (purchases.ts settleCharge), which also keeps each
//      request's status (refundRequestStatements) and writes the buyer's email. A Refund that
//      Stripe fails later (refund.updated) shows as failed and the money stays as it was.
import { and, desc, eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { CREATOR_REFUND_OVERDRAFT_CENTS } from "../../shared/constants";
import { REFUND_REASONS, type RefundSaleInput } from "../../shared/schemas";
import type { RefundRequestResult, Sale } from "../../shared/types";
import { content, purchases, refundRequests } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { newId } from "../lib/ids";
import { settleCharge, type PurchaseDeps } from "./purchases";

type RequestRow = typeof refundRequests.$inferSelect;
type RefundStatus = RefundRequestResult["status"];

export const REFUND_REFUSED = {
  notPaid: "This sale was never paid, so there is nothing to refund",
  notCard: "Only card payments can be refunded here",
  refunded: "This sale was already refunded in full",
  disputed: "This sale is disputed: the buyer's bank holds the money until the dispute is decided, so it cannot be refunded",
  tooMuch: (leftCents: number) => `You can refund at most $${(leftCents / 100).toFixed(2)} of this sale`,
  stripeDown: "Stripe could not be reached, so nothing was refunded. Please try again.",
  inFlight: "This refund is already being made: the sale shows it in a moment.",
  keyReused: (cents: number) => `This request was for $${(cents / 100).toFixed(2)}: close the dialog and start again to refund another amount`,
  overdraft: (belowCents: number) =>
    `This refund would leave your balance $${(belowCents / 100).toFixed(2)} below zero, and your refunds may take it at most $${(CREATOR_REFUND_OVERDRAFT_CENTS / 100).toFixed(2)} below zero. Refund less, or wait until new sales cover it.`,
} as const;

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));

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

/** A request Stripe has not answered yet holds its amount against the overdraft limit this long. */
export const UNANSWERED_REQUEST_HOLD_MS = 10 * 60 * 1000;

/**
 * SQL for the creator's balance less the refunds on their way (`?1` creator, `?2` now): the ledger
 * balance, less the creator's share (as reverseSale will book it) of refund requests Stripe says are pending, less requests Stripe has not answered yet
 * (for UNANSWERED_REQUEST_HOLD_MS: a crash may leave one), less refunds Stripe says succeeded whose
 * reversal is not booked yet. Read inside the statement that writes a request, so two requests at
 * once cannot both see the room only one of them fits in.
 */
const BALANCE_AFTER_OPEN_REFUNDS = `(
  coalesce((select sum(amount_cents) from ledger_entries where user_id = ?1 and account = 'creator'), 0)
  - coalesce((select sum(cast(round(r.amount_cents * 1.0
        * coalesce((select sum(l.amount_cents) from ledger_entries l where l.purchase_id = r.purchase_id and l.account = 'creator' and l.kind in ('sale', 'fee_adjustment')), 0)
        / (select p.amount_cents from purchases p where p.id = r.purchase_id)) as integer))
      from refund_requests r where r.creator_id = ?1 and (
      r.status in ('pending', 'requires_action')
      or (r.status = 'requested' and r.created_at > ?2 - ${UNANSWERED_REQUEST_HOLD_MS})
      or (r.status = 'succeeded' and not exists (select 1 from ledger_entries l
            where l.idempotency_key in ('refund:' || r.stripe_refund_id || ':creator', 'refund:' || r.stripe_refund_id || '~' || r.purchase_id || ':creator'))))), 0))`;

/**
 * The creator's share of refunding `amountCents` of this sale: its creator rows (sale, re-booked
 * fee) pro rata, as reverseSale books it.
 */
async function creatorShare(deps: Pick<PurchaseDeps, "db">, purchase: typeof purchases.$inferSelect, amountCents: number): Promise<number> {
  const [r] = await deps.db.all<{ share: number | null }>(
    sql`select sum(amount_cents) as share from ledger_entries where purchase_id = ${purchase.id} and account = 'creator' and kind in ('sale', 'fee_adjustment')`,
  );
  return purchase.amountCents > 0 ? Math.round((Number(r?.share ?? 0) * amountCents) / purchase.amountCents) : 0;
}

/** How far below zero the creator's balance would be after this refund and those on their way (0 when it stays above). */
async function overdraftAfter(deps: Pick<PurchaseDeps, "d1">, creatorId: string, shareCents: number, now: number): Promise<number> {
  const r = await deps.d1.prepare(`select ${BALANCE_AFTER_OPEN_REFUNDS} as balance`).bind(creatorId, now).first<{ balance: number }>();
  return Math.max(0, -(Number(r?.balance ?? 0) - shareCents));
}

/** The Refund Stripe already made for this request, if any (its metadata names the request). */
async function madeFor(deps: Pick<PurchaseDeps, "stripe">, paymentIntentId: string, req: RequestRow): Promise<Stripe.Refund | undefined> {
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
  return (REFUND_REASONS as readonly string[]).includes(reason) ? { reason: reason as (typeof REFUND_REASONS)[number], note: null } : { note: reason };
}

/** Why Stripe refused a refund, in the creator's terms; null when it is not a refusal (Stripe down). */
function refusal(err: unknown): string | null {
  const e = err as { type?: string; code?: string; message?: string; statusCode?: number };
  if (e?.type !== "StripeInvalidRequestError") return null;
  if (e.code === "charge_already_refunded") return REFUND_REFUSED.refunded;
  if (e.code === "charge_disputed") return REFUND_REFUSED.disputed;
  return e.message ?? "Stripe refused this refund";
}

export async function requestRefund(deps: PurchaseDeps, creatorId: string, purchaseId: string, input: RefundSaleInput): Promise<RefundRequestResult> {
  const purchase = await saleOf(deps, creatorId, purchaseId);
  if (!purchase) throw notFound("Sale Not Found");
  if (!["paid", "refunded", "disputed"].includes(purchase.status)) throw new ApiError(400, REFUND_REFUSED.notPaid);
  if (purchase.status === "refunded") throw new ApiError(400, REFUND_REFUSED.refunded);
  if (purchase.status === "disputed") throw new ApiError(409, REFUND_REFUSED.disputed);
  // An order bump's sale was paid by its main purchase's PaymentIntent: its refund is a part of that charge.
  const paymentIntentId = purchase.paymentIntentId ?? (purchase.bumpOf ? (await saleOf(deps, creatorId, purchase.bumpOf))?.paymentIntentId : null);
  if (!paymentIntentId) throw new ApiError(400, REFUND_REFUSED.notCard);

  // A press repeated with the dialog's key is the same request, whatever happened since.
  let row: RequestRow | undefined = input.requestKey
    ? await deps.db
        .select()
        .from(refundRequests)
        .where(and(eq(refundRequests.purchaseId, purchase.id), eq(refundRequests.requestKey, `key:${input.requestKey}`)))
        .get()
    : undefined;

  // The same key is the same request: another amount is another request.
  if (row && input.amountCents !== undefined && input.amountCents !== row.amountCents) throw new ApiError(409, REFUND_REFUSED.keyReused(row.amountCents));

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
    if (charge.payment_method_details?.type !== "card") throw new ApiError(400, REFUND_REFUSED.notCard);
    // Not `charge.disputed`: Stripe sets it for an inquiry too (refundable) and keeps it after a won
    // dispute. A chargeback is the sale's 'disputed' state above, and Stripe refuses it (charge_disputed).
    // What is left of the charge, and of this sale: one charge may pay a sale and its order bump,
    // and a refund of one never takes the other's part.
    const own = await deps.db.select({ refunded: saleColumns.refundedCents, pending: saleColumns.pendingCents }).from(purchases).where(eq(purchases.id, purchase.id)).get();
    const leftCents = Math.min(charge.amount_captured - charge.amount_refunded, purchase.amountCents - Number(own?.refunded ?? 0) - Number(own?.pending ?? 0));
    if (leftCents <= 0) throw new ApiError(400, REFUND_REFUSED.refunded);
    const amountCents = input.amountCents ?? leftCents;
    if (amountCents > leftCents) throw new ApiError(400, REFUND_REFUSED.tooMuch(leftCents));
    const shareCents = await creatorShare(deps, purchase, amountCents);
    const now = Date.now();
    const below = await overdraftAfter(deps, creatorId, shareCents, now);
    if (below > CREATOR_REFUND_OVERDRAFT_CENTS) throw new ApiError(409, REFUND_REFUSED.overdraft(below));

    // Without the dialog's key: the same press sees the same amount left (and the same number of
    // requests that came to nothing, so a retry after a failed refund is a new request).
    const failed = await deps.db
      .select({ n: sql<number>`count(*)` })
      .from(refundRequests)
      .where(and(eq(refundRequests.purchaseId, purchase.id), sql`${refundRequests.status} in ('failed', 'canceled', 'refused')`))
      .get();
    const requestKey = input.requestKey ? `key:${input.requestKey}` : `left:${leftCents}:${amountCents}:${failed?.n ?? 0}`;
    const { reason, note } = stripeReason(input.reason);
    // Written only if the limit still holds with every refund on its way counted, in the same
    // statement: of two requests at once, the second sees the first.
    const inserted = await deps.d1
      .prepare(
        `insert into refund_requests (id, purchase_id, creator_id, request_key, amount_cents, reason, note, created_at)
         select ?3, ?4, ?1, ?5, ?6, ?7, ?8, ?2 where ${BALANCE_AFTER_OPEN_REFUNDS} - ?9 >= -?10
         on conflict do nothing returning id`,
      )
      .bind(creatorId, now, newId(), purchase.id, requestKey, amountCents, reason ?? "other", note, shareCents, CREATOR_REFUND_OVERDRAFT_CENTS)
      .all();
    fresh = inserted.results.length === 1;
    row = await deps.db
      .select()
      .from(refundRequests)
      .where(and(eq(refundRequests.purchaseId, purchase.id), eq(refundRequests.requestKey, requestKey)))
      .get();
    // Nothing written and nothing there: a request made meanwhile took the room.
    if (!row) throw new ApiError(409, REFUND_REFUSED.overdraft(Math.max(below, await overdraftAfter(deps, creatorId, shareCents, Date.now()))));
  }

  const req = row;
  let refund: Stripe.Refund | undefined;
  if (!fresh && req.status !== "refused") refund = await madeFor(deps, paymentIntentId, req);
  if (!refund) {
    try {
      refund = await deps.stripe.refunds.create(
        {
          payment_intent: paymentIntentId,
          amount: req.amountCents,
          ...(req.reason !== "other" ? { reason: req.reason } : {}),
          metadata: { refundRequestId: req.id, purchaseId: purchase.id, ...(req.note ? { note: req.note.slice(0, 500) } : {}) },
        },
        { idempotencyKey: `creator-refund:${req.id}` },
      );
    } catch (err) {
      // The same press is still at Stripe (two at once, same key): that one makes the refund.
      if ((err as { code?: string }).code === "idempotency_key_in_use") throw new ApiError(409, REFUND_REFUSED.inFlight);
      const refused = refusal(err);
      if (!refused) throw new ApiError(502, REFUND_REFUSED.stripeDown);
      // Stripe keeps nothing under the key for a refused request: the row says so, and a repeat asks again.
      await deps.db
        .update(refundRequests)
        .set({ status: "refused", error: refused.slice(0, 500) })
        .where(and(eq(refundRequests.id, req.id), eq(refundRequests.status, "requested")));
      throw new ApiError((err as { code?: string }).code === "charge_disputed" ? 409 : 400, refused);
    }
  }

  // Stripe's answer, then the charge settled from Stripe's word like any refund event (the webhook
  // that follows does the same again, and adds nothing).
  await deps.d1.batch(refundRequestStatements(deps.d1, [refund]) as [D1PreparedStatement]);
  const charge = idOf(refund.charge) ?? chargeId;
  // The Refund exists now: a failure to settle here is no failure of the request (its webhook
  // settles the charge the same way), so the creator is told what Stripe said, never a 5xx.
  if (charge) await settleCharge(deps, charge).catch((err) => console.error(JSON.stringify({ msg: "creator refund: settle deferred to the webhook", refund: refund.id, err: String(err) })));

  const after = (await deps.db.select().from(refundRequests).where(eq(refundRequests.id, req.id)).get()) ?? req;
  const sale = await saleView(deps, creatorId, purchase.id);
  if (!sale) throw notFound("Sale Not Found");
  return { id: after.id, amount: after.amountCents / 100, status: (after.status === "refused" ? "failed" : after.status) as RefundStatus, sale };
}

// ---- what the sales table shows about refunds ----

/** SQL columns (over `purchases`) that the sales table shows about a sale's refunds. */
/** A sale's columns beyond the purchase's own: its refunds so far, and the discount code it used. */
export const saleColumns = {
  orderBump: sql<number>`${purchases.bumpOf} is not null`,
  discountCode: sql<string | null>`(select code from discount_codes where id = ${purchases.discountCodeId})`,
  refundedCents: sql<number>`(select -coalesce(sum(amount_cents), 0) from ledger_entries where purchase_id = ${purchases.id} and kind = 'refund')`,
  // Pending by Stripe's word only: a request Stripe never answered ('requested') is no refund, and a
  // press again replays it under the same key (or the webhook of a Refund made meanwhile names it).
  pendingCents: sql<number>`(select coalesce(sum(amount_cents), 0) from refund_requests where purchase_id = ${purchases.id} and status in ('pending', 'requires_action'))`,
  latestRequestStatus: sql<string | null>`(select status from refund_requests where purchase_id = ${purchases.id} and status <> 'refused' order by created_at desc, id desc limit 1)`,
};

const STATUS_LABEL = { paid: "completed", refunded: "refunded", disputed: "disputed" } as const;

export function saleFromRow(r: {
  id: string;
  buyerEmail: string | null;
  productName: string;
  amountCents: number;
  createdAt: Date | null;
  status: string;
  refundedCents: number | null;
  pendingCents: number | null;
  latestRequestStatus: string | null;
  discountCode: string | null;
  orderBump: number | boolean;
}): Sale {
  const refunded = Number(r.refundedCents ?? 0);
  const pending = Number(r.pendingCents ?? 0);
  return {
    id: r.id,
    buyerEmail: r.buyerEmail,
    productName: r.productName,
    amount: r.amountCents / 100,
    createdAt: r.createdAt?.toISOString() ?? null,
    status: STATUS_LABEL[r.status as keyof typeof STATUS_LABEL] ?? r.status,
    refundedAmount: refunded / 100,
    refundPending: pending > 0,
    refundFailed: r.latestRequestStatus === "failed" || r.latestRequestStatus === "canceled",
    discountCode: r.discountCode,
    orderBump: !!r.orderBump,
    refundable: r.status === "paid" ? Math.max(0, r.amountCents - refunded - pending) / 100 : 0,
  };
}

async function saleView(deps: Pick<PurchaseDeps, "db">, creatorId: string, purchaseId: string): Promise<Sale | null> {
  const r = await deps.db
    .select({
      id: purchases.id,
      buyerEmail: purchases.buyerEmail,
      productName: content.title,
      amountCents: purchases.amountCents,
      createdAt: purchases.paidAt,
      status: purchases.status,
      ...saleColumns,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .where(and(eq(purchases.id, purchaseId), eq(purchases.creatorId, creatorId)))
    .orderBy(desc(purchases.paidAt))
    .get();
  return r ? saleFromRow(r) : null;
}
