// Stripe's tax transactions for our payments: the tax invoice number written with a taxed order's
// sale rows, and the transactions Stripe commits itself (the payment's, each refund's reversal),
// read from its Tax Association and recorded once each. Behaviour: docs/tax.md ("Ledger and reversals").
import type Stripe from "stripe";
import { isUnknownObject } from "../stripe";

type Deps = { d1: D1Database; stripe: Stripe };

/**
 * A D1 statement that numbers the tax invoice of the order whose main purchase is `mainId` (an
 * upsell is its own order), once, and only while the purchase is paid (or was) and some purchase of
 * the order was charged with a tax calculation (has a `purchase_taxes` row). Numbers come from the
 * table's own sequence, so they follow one another without gaps.
 */
export function taxInvoiceStatement(d1: D1Database, mainId: string, now: number): D1PreparedStatement {
  return d1
    .prepare(
      `insert into tax_invoices (purchase_id, issued_at)
       select ?1, ?2 where exists (select 1 from purchases where id = ?1 and status in ('paid', 'refunded', 'disputed'))
         and exists (select 1 from purchase_taxes where purchase_id in (select id from purchases where id = ?1 or bump_of = ?1))
         and not exists (select 1 from tax_invoices where purchase_id = ?1)
       on conflict do nothing`,
    )
    .bind(mainId, now);
}

/** The order paid by `paymentIntentId` (its main purchase) when some purchase of it was taxed. */
export async function taxedOrder(d1: D1Database, paymentIntentId: string): Promise<{ purchaseId: string } | null> {
  const r = await d1
    .prepare(
      `select p.id from purchases p where p.payment_intent_id = ?1 and exists (
         select 1 from purchase_taxes t where t.purchase_id in (select id from purchases where id = p.id or bump_of = p.id))`,
    )
    .bind(paymentIntentId)
    .first<{ id: string }>();
  return r ? { purchaseId: r.id } : null;
}

/**
 * A tax transaction's signed gross (tax included) and tax, summed over its line items: Stripe's line
 * amount excludes the tax when the line was tax-exclusive, so the tax is added back there.
 */
export async function transactionTotals(
  stripe: Stripe,
  id: string,
): Promise<{ amountCents: number; taxCents: number }> {
  let amountCents = 0;
  let taxCents = 0;
  for await (const line of stripe.tax.transactions.listLineItems(id, { limit: 100 })) {
    amountCents += line.amount + (line.tax_behavior === "exclusive" ? line.amount_tax : 0);
    taxCents += line.amount_tax;
  }
  return { amountCents, taxCents };
}

/** A D1 statement that records one Stripe tax transaction once (by its id and its reference). */
export function recordStatement(
  d1: D1Database,
  t: Pick<Stripe.Tax.Transaction, "id" | "reference" | "type">,
  order: { purchaseId: string; paymentIntentId: string },
  totals: { amountCents: number; taxCents: number },
): D1PreparedStatement {
  return d1
    .prepare(
      `insert into tax_transactions (id, purchase_id, payment_intent_id, type, reference, amount_cents, tax_cents)
       values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    )
    .bind(t.id, order.purchaseId, order.paymentIntentId, t.type, t.reference, totals.amountCents, totals.taxCents);
}

/**
 * Records the tax transactions Stripe committed for a taxed order's PaymentIntent: the payment's and
 * each refund's reversal, from its Tax Association. `expected` names the sources that must have
 * committed by now (the PaymentIntent once it succeeded, each refund once it succeeded, unless the
 * payment's own attempt errored: Stripe then reverses nothing for its refunds): one Stripe has not
 * committed yet throws, so the webhook that called is answered 500 and delivered again.
 * An attempt Stripe says errored is logged and left (it will never commit). An untaxed order, or a
 * PaymentIntent Stripe keeps no association for, records nothing.
 */
export async function recordTaxTransactions(
  deps: Deps,
  paymentIntentId: string,
  expected: string[] = [paymentIntentId],
): Promise<number> {
  const order = await taxedOrder(deps.d1, paymentIntentId);
  if (!order) return 0;
  let association: Stripe.Tax.Association;
  try {
    association = await deps.stripe.tax.associations.find({ payment_intent: paymentIntentId });
  } catch (err) {
    if (isUnknownObject(err)) return 0;
    throw err;
  }
  const attempts = association.tax_transaction_attempts ?? [];
  const known = new Set(
    (
      await deps.d1
        .prepare("select id from tax_transactions where payment_intent_id = ?")
        .bind(paymentIntentId)
        .all<{ id: string }>()
    ).results.map((r) => r.id),
  );
  const statements: D1PreparedStatement[] = [];
  for (const attempt of attempts) {
    if (attempt.status === "errored") {
      console.error(
        "Stripe could not commit a tax transaction",
        paymentIntentId,
        attempt.source,
        attempt.errored?.reason,
      );
      continue;
    }
    const id = attempt.committed?.transaction;
    if (!id || known.has(id)) continue;
    const transaction = await deps.stripe.tax.transactions.retrieve(id);
    const totals = await transactionTotals(deps.stripe, id);
    statements.push(recordStatement(deps.d1, transaction, { ...order, paymentIntentId }, totals));
  }
  if (statements.length) await deps.d1.batch(statements);
  // A payment whose own attempt errored has no transaction: Stripe reverses nothing for its refunds.
  const paymentErrored = attempts.some((a) => a.source === paymentIntentId && a.status === "errored");
  const missing = expected.filter(
    (source) => !attempts.some((a) => a.source === source) && !(paymentErrored && source !== paymentIntentId),
  );
  if (missing.length) throw new Error(`Stripe has not committed the tax transaction of ${missing.join(", ")} yet`);
  return statements.length;
}
