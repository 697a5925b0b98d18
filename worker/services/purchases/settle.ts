// Settlement: a refund or dispute event re-reads the charge's refunds and disputes from Stripe and
// writes their keyed ledger effects and the state the ledger then shows, in one D1 batch, for the
// purchase and its order bump. The transition table is ./states.ts. Behaviour:
// docs/refunds-and-disputes.md.
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { purchases } from "../../db/schema";
import { insertLedgerRow, restoreRows, reverseSale, stripeFeeRow } from "../ledger";
import { dispatch, outboxInsert } from "../mail/email-outbox";
import { refundRequestStatements } from "../refunds/refund-requests";
import { chargeReservations } from "../reservations";
import { settleProInvoiceCharge } from "../subscriptions";
import { deliverTaxReversals, reversalKey, reversalRequestStatement } from "../tax/reversals";
import { recordTaxTransactions, taxedOrder } from "../tax/transactions";
import { dispatchWebhooks } from "../webhooks/delivery";
import { idOf, PAID_LIKE, type PurchaseDeps, type PurchaseRow } from "./deps";
import { bumpsOf, feeOfCharge, syncWithStripe } from "./fulfil";
import { orderReceipt } from "./receipts";
import { refundJobs, settleWebhooks } from "./settle-notices";
import {
  attributeToOrder,
  effectsOf,
  type KeyedEffect,
  type PurchaseState,
  reinstated,
  STATE_FROM_LEDGER_SQL,
  withdrew,
} from "./states";

async function paidPurchaseForIntent(deps: PurchaseDeps, paymentIntentId: string | null): Promise<PurchaseRow | null> {
  if (!paymentIntentId) return null;
  const purchase = await deps.db.select().from(purchases).where(eq(purchases.paymentIntentId, paymentIntentId)).get();
  if (!purchase) return null;
  // A refund or dispute can arrive before payment_intent.succeeded: book the sale first (without
  // the access email: the purchase may be taken back), then settle it; settleCharge writes the
  // receipt if the purchase ends paid (a partial or pending refund, an inquiry, a won dispute).
  return syncWithStripe(deps, purchase, { notify: false });
}

/** Every refund of a charge, all pages (a charge carries at most its first 10). */
async function allRefunds(stripe: Stripe, chargeId: string): Promise<Stripe.Refund[]> {
  const out: Stripe.Refund[] = [];
  for await (const refund of stripe.refunds.list({ charge: chargeId, limit: 100 })) out.push(refund);
  return out;
}

async function allDisputes(stripe: Stripe, chargeId: string): Promise<Stripe.Dispute[]> {
  const out: Stripe.Dispute[] = [];
  for await (const dispute of stripe.disputes.list({ charge: chargeId, limit: 100 })) out.push(dispute);
  return out;
}

/** `tax`: the order was taxed; its PaymentIntent and the refunds Stripe says succeeded (for their tax transactions). */
type SettleOutcome =
  | { purchaseId: string; status: PurchaseState; tax?: { paymentIntentId: string; refundIds: string[] } }
  | { invoiceCharge: true }
  | null;

/** The statements that settle one purchase of the charge from its own shares of the refunds and disputes. */
async function settlePurchase(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  refunds: Stripe.Refund[],
  disputes: Stripe.Dispute[],
  now: number,
) {
  const effects = effectsOf(purchase.amountCents, refunds, disputes);
  const reversal = (e: KeyedEffect) =>
    reverseSale(deps.d1, purchase.id, e.key, e.effect === "reverse_refund" ? "refund" : "dispute", e.cents);
  const restoring = effects.filter((e) => e.effect === "restore_refund" || e.effect === "restore_dispute");
  const reversing = effects.filter((e) => e.effect === "reverse_refund" || e.effect === "reverse_dispute");
  const reversals = reversing.map(reversal);
  const restores = restoring.map((e) =>
    restoreRows(
      deps.d1,
      purchase.id,
      e.effect === "restore_refund" ? `refund:${e.source}` : `dispute:${e.source}`,
      e.key,
    ),
  );
  // Retried after the restores: only reversals whose own object was not given back (a failed
  // refund's or won dispute's reversal booked after its restore would stay booked).
  const retries = reversing.filter((e) => !restoring.some((r) => r.source === e.source)).map(reversal);
  // The buyer hears of each refund that succeeded and was booked here, once per refund (by its id),
  // whoever made it (the creator's sales table or Stripe's dashboard).
  const refundMails = purchase.buyerEmail ? await refundJobs(deps, purchase, purchase.buyerEmail, refunds) : [];
  const hooks = await settleWebhooks(deps, purchase, refunds, disputes, now);
  return {
    reservations: chargeReservations(deps.d1, purchase.id, refunds, disputes, now),
    // Reversals, then restores, then the reversals again: one the cap left short (the sale was
    // already taken back) gets its turn once a restore made room, whichever came first.
    ledger: [...reversals, ...restores, ...(restores.length ? retries : [])],
    state: deps.d1
      .prepare(
        `update purchases set status = ${STATE_FROM_LEDGER_SQL},
           revoked_at = case when (${STATE_FROM_LEDGER_SQL}) = 'paid' then null
             when (${STATE_FROM_LEDGER_SQL}) <> status then ?2 else coalesce(revoked_at, ?2) end
         where id = ?1 and status in ('paid', 'refunded', 'disputed') returning status`,
      )
      .bind(purchase.id, now),
    after: [
      ...hooks.statements,
      ...refundMails.map(({ job, refundId }) =>
        outboxInsert(deps.d1, job, now, {
          sql: "exists (select 1 from ledger_entries where idempotency_key = ?)",
          binds: [`refund:${refundId}:creator`],
        }),
      ),
    ],
    mailKeys: refundMails.map((m) => m.job.dedupeKey),
    hookKeys: hooks.keys,
  };
}

/**
 * Brings a purchase's refunds and disputes in line with what Stripe says about its charge now: every
 * refund and dispute is re-read (whatever event named one of them), their keyed ledger effects are
 * written and the state is computed from the ledger, in one D1 batch. Safe to call any number of
 * times, in any order. A charge that paid an order bump too settles both purchases, each with its
 * own share of each refund and dispute (./states.ts `attributeToOrder`). A charge that paid a
 * Pro invoice goes to ../subscriptions.ts instead.
 */
export async function settleCharge(deps: PurchaseDeps, chargeId: string): Promise<SettleOutcome> {
  const charge = await deps.stripe.charges.retrieve(chargeId, { expand: ["balance_transaction"] });
  const purchase = await paidPurchaseForIntent(deps, idOf(charge.payment_intent));
  const [refunds, disputes] = await Promise.all([
    allRefunds(deps.stripe, charge.id),
    allDisputes(deps.stripe, charge.id),
  ]);
  if (!purchase) {
    const settled = await settleProInvoiceCharge(deps, charge, refunds, disputes);
    return settled ? { invoiceCharge: true } : null;
  }
  if (!PAID_LIKE.includes(purchase.status)) return null;
  const bumps = (await bumpsOf(deps, purchase.id)).filter((b) => PAID_LIKE.includes(b.status));
  const order = [purchase, ...bumps];
  const shares = attributeToOrder(order, refunds, disputes);

  const now = Date.now();
  const parts = await Promise.all(
    order.map((p) => settlePurchase(deps, p, shares.get(p.id)!.refunds, shares.get(p.id)!.disputes, now)),
  );
  const receipt = await orderReceipt(deps, purchase, bumps.length > 0, now);
  // Stripe's word about each creator's refund request (forward only); reads nothing below.
  const requests = refundRequestStatements(deps.d1, refunds);
  const fee = feeOfCharge(charge);
  const ledger = [
    ...parts.flatMap((p) => p.ledger),
    ...(fee
      ? [insertLedgerRow(deps.d1, stripeFeeRow(purchase, "stripe_fee", fee.chargeId, fee.feeCents), PAID_LIKE)]
      : []),
    ...disputes.flatMap((d) =>
      (d.balance_transactions ?? [])
        .filter((t) => Number.isInteger(t.fee) && t.fee !== 0)
        .map((t) => insertLedgerRow(deps.d1, stripeFeeRow(purchase, "dispute_fee", t.id, t.fee), PAID_LIKE)),
    ),
  ];
  // A lost dispute's tax goes back to the buyer's tax authority only when we ask Stripe (it reverses
  // refunds itself): the request is written after the dispute's ledger rows, when they booked tax.
  const paymentIntentId = purchase.paymentIntentId;
  const taxed = paymentIntentId ? await taxedOrder(deps.d1, paymentIntentId) : null;
  const lost =
    taxed && paymentIntentId ? disputes.filter((d) => d.status === "lost" && withdrew(d) && !reinstated(d)) : [];
  const taxReversals = lost.map((d) =>
    reversalRequestStatement(deps.d1, { mainId: purchase.id, paymentIntentId: paymentIntentId! }, d.id, now),
  );
  const results = await deps.d1.batch<{ status: PurchaseState }>([
    ...requests,
    ...ledger,
    ...parts.map((p) => p.state),
    ...parts.flatMap((p) => p.reservations),
    ...parts.flatMap((p) => p.after),
    ...taxReversals,
    ...(receipt ? [receipt.statement] : []),
  ]);
  const mailKeys = parts.flatMap((p) => p.mailKeys);
  if (mailKeys.length) await dispatch(deps.d1, deps.emails, mailKeys, now);
  await dispatchWebhooks(
    deps.d1,
    deps.webhooks,
    purchase.creatorId,
    parts.flatMap((p) => p.hookKeys),
    now,
  );
  const receiptWritten = !!receipt && (results[results.length - 1].meta.changes ?? 0) > 0;
  if (receiptWritten) await dispatch(deps.d1, deps.emails, [receipt.job.dedupeKey], now);
  // The main purchase's state: the first of the state updates, after the requests and the ledger.
  const [status] = results[requests.length + ledger.length].results ?? [];
  // Sent at once; one Stripe refuses or cannot take now stays on its row for the sweep.
  if (lost.length)
    await deliverTaxReversals(
      deps,
      now,
      lost.map((d) => reversalKey(d.id)),
    );
  if (!status) return null;
  const tax =
    taxed && paymentIntentId
      ? { paymentIntentId, refundIds: refunds.filter((r) => r.status === "succeeded").map((r) => r.id) }
      : undefined;
  return { purchaseId: purchase.id, status: status.status, ...(tax ? { tax } : {}) };
}

/**
 * Any refund event, routed by its type: charge.refunded's object is the charge; refund.* and
 * charge.refund.updated's object is the refund. (Not by the id's prefix: a charge of a non-card
 * payment method is `py_…`.)
 */
export async function handleRefundEvent(deps: PurchaseDeps, event: { type: string; id: string }): Promise<void> {
  const chargeId =
    event.type === "charge.refunded" ? event.id : idOf((await deps.stripe.refunds.retrieve(event.id)).charge);
  if (!chargeId) return;
  const outcome = await settleCharge(deps, chargeId);
  // Stripe reverses a taxed payment's tax for each refund itself: its reversal is recorded once it
  // has committed (not yet throws, so Stripe delivers the event again).
  if (outcome && "tax" in outcome && outcome.tax)
    await recordTaxTransactions(deps, outcome.tax.paymentIntentId, [
      outcome.tax.paymentIntentId,
      ...outcome.tax.refundIds,
    ]);
}

/** Any charge.dispute.* event. */
export async function handleDisputeEvent(deps: PurchaseDeps, disputeId: string): Promise<void> {
  const dispute = await deps.stripe.disputes.retrieve(disputeId);
  const chargeId = idOf(dispute.charge);
  if (chargeId) await settleCharge(deps, chargeId);
}
