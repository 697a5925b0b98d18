// The month's reconciliation of our ledger's tax with Stripe's tax transactions, order by order, and
// the re-read that records from Stripe the transactions missing here. Behaviour: docs/tax.md ("The
// admin's tax report").
import { type SQL, sql } from "drizzle-orm";
import type Stripe from "stripe";
import {
  TAX_DIFFERENCES_SHOWN,
  type TaxDifference,
  type TaxReconciliation,
  type TaxRereadResult,
} from "../../../shared/admin-tax";
import { placeName } from "../../../shared/tax";
import type { Db } from "../../db/client";
import { isUnknownObject } from "../stripe";
import { type Month, monthRange } from "./report";

/** What the reconciliation asks Stripe (the real client in production; a test may pass its own). */
export type TaxStripe = {
  tax: {
    associations: Pick<Stripe["tax"]["associations"], "find">;
    transactions: Pick<Stripe["tax"]["transactions"], "retrieve" | "listLineItems">;
  };
};

/** Orders looked up at Stripe per call: each costs up to ~4 requests, well under a Worker's 50 subrequests. */
const REREAD_BATCH = 10;

/**
 * One row per order (its main purchase: an order bump's tax is its main purchase's order; an upsell
 * is an order of its own) that has tax in the ledger or a Stripe tax transaction recorded in the
 * month. Each order's figures are its whole history on both sides, so a sale booked on the 31st
 * whose transaction Stripe posted on the 1st is no difference.
 */
const orderFigures = (p: Month): SQL => {
  const [from, to] = monthRange(p);
  return sql`
    with scope as (
      select coalesce(p.bump_of, p.id) as order_id
      from ledger_entries l join purchases p on p.id = l.purchase_id
      where l.account = 'tax' and l.created_at >= ${from} and l.created_at < ${to}
      union
      select purchase_id from tax_transactions where created_at >= ${from} and created_at < ${to}
    ),
    -- A charge has one dispute at most; once lost, its settling batch wrote the order's reversal request.
    lost as (select distinct purchase_id as order_id from tax_reversal_requests where purchase_id in (select order_id from scope)),
    ours as (
      select coalesce(p.bump_of, p.id) as order_id,
             sum(case when l.kind = 'tax' then l.amount_cents else 0 end) as sale,
             sum(case when l.kind = 'refund' or (l.kind = 'dispute' and lost.order_id is not null) then l.amount_cents else 0 end) as rev,
             sum(case when l.kind = 'dispute' and lost.order_id is null then l.amount_cents else 0 end) as open_rev
      from ledger_entries l join purchases p on p.id = l.purchase_id
      left join lost on lost.order_id = coalesce(p.bump_of, p.id)
      where l.account = 'tax'
        and l.purchase_id in (select order_id from scope union select id from purchases where bump_of in (select order_id from scope))
      group by 1
    ),
    theirs as (
      select purchase_id as order_id,
             sum(case when type = 'transaction' then tax_cents else 0 end) as txn,
             sum(type = 'transaction') as txn_n,
             sum(case when type = 'reversal' then tax_cents else 0 end) as rev,
             sum(type = 'reversal') as rev_n
      from tax_transactions where purchase_id in (select order_id from scope) group by 1
    ),
    figures as (
      select s.order_id, o.payment_intent_id as pi, t.country, t.region,
             ours.order_id is not null as has_ours, coalesce(ours.sale, 0) as sale, coalesce(ours.rev, 0) as our_rev,
             coalesce(ours.open_rev, 0) as open_rev,
             coalesce(theirs.txn, 0) as txn, coalesce(theirs.txn_n, 0) as txn_n,
             coalesce(theirs.rev, 0) as their_rev, coalesce(theirs.rev_n, 0) as rev_n
      from scope s
      left join ours on ours.order_id = s.order_id
      left join theirs on theirs.order_id = s.order_id
      left join purchases o on o.id = s.order_id
      left join purchase_taxes t on t.purchase_id = s.order_id
    )`;
};

// A difference in the sale's transaction, in the reversals, and one Stripe's record of which may be
// missing here: no transaction, no reversal, or reversals that add up short of ours (one refund's
// reversal recorded, another's not).
const TXN_DIFFERS = sql.raw("((sale <> 0 or txn_n > 0) and sale <> txn)");
const REV_DIFFERS = sql.raw("(our_rev <> their_rev)");
const MISSING_AT_STRIPE = sql.raw("((sale <> 0 and txn_n = 0) or (our_rev <> 0 and rev_n = 0) or our_rev < their_rev)");

type FigureRow = {
  order_id: string;
  pi: string | null;
  country: string | null;
  region: string | null;
  has_ours: number;
  sale: number;
  our_rev: number;
  txn: number;
  txn_n: number;
  their_rev: number;
  rev_n: number;
};

function differencesOf(r: FigureRow): TaxDifference[] {
  const base = { orderId: r.order_id, paymentIntentId: r.pi, place: placeName(r.country, r.region) };
  const out: TaxDifference[] = [];
  const [sale, txn, txnN, ourRev, theirRev, revN] = [r.sale, r.txn, r.txn_n, r.our_rev, r.their_rev, r.rev_n].map(
    Number,
  );
  if ((sale !== 0 || txnN > 0) && sale !== txn)
    out.push({
      ...base,
      what: "transaction",
      kind: txnN === 0 ? "missing_at_stripe" : sale === 0 ? "missing_here" : "amounts_differ",
      oursCents: sale === 0 && !Number(r.has_ours) ? null : sale,
      stripeCents: txnN === 0 ? null : txn,
    });
  if (ourRev !== theirRev)
    out.push({
      ...base,
      what: "reversal",
      kind: revN === 0 ? "missing_at_stripe" : ourRev === 0 ? "missing_here" : "amounts_differ",
      oursCents: ourRev === 0 ? null : ourRev,
      stripeCents: revN === 0 ? null : theirRev,
    });
  return out;
}

/**
 * The month's differences, computed by D1 in one pass (a month of many sales returns only its
 * differences, at most TAX_DIFFERENCES_SHOWN orders of them, and counts).
 */
export async function reconcileTax(db: Db, p: Month): Promise<TaxReconciliation> {
  const figures = orderFigures(p);
  const [counts] = await db.all<{
    orders: number;
    differing: number;
    rereadable: number;
    open_orders: number;
    open_tax: number;
  }>(sql`
    ${figures}
    select count(*) as orders,
           coalesce(sum(${TXN_DIFFERS} or ${REV_DIFFERS}), 0) as differing,
           coalesce(sum(${MISSING_AT_STRIPE} and pi is not null), 0) as rereadable,
           coalesce(sum(open_rev <> 0), 0) as open_orders,
           -coalesce(sum(open_rev), 0) as open_tax
    from figures
  `);
  const listed = await db.all<FigureRow>(sql`
    ${figures}
    select * from figures where ${TXN_DIFFERS} or ${REV_DIFFERS}
    order by order_id limit ${TAX_DIFFERENCES_SHOWN}
  `);
  return {
    year: p.year,
    month: p.month,
    ordersChecked: Number(counts?.orders ?? 0),
    differences: listed.flatMap(differencesOf),
    truncated: Number(counts?.differing ?? 0) > listed.length,
    rereadable: Number(counts?.rereadable ?? 0),
    openDisputes: { orders: Number(counts?.open_orders ?? 0), taxCents: Number(counts?.open_tax ?? 0) },
  };
}

/**
 * A Stripe tax transaction's gross (tax included) and tax: the sums of its line items (negative on a
 * reversal). A tax-exclusive line's amount leaves its tax out, so it is added back there.
 */
async function lineItemSums(stripe: TaxStripe, id: string): Promise<{ amount: number; tax: number }> {
  let amount = 0;
  let tax = 0;
  let after: string | undefined;
  for (;;) {
    const page = await stripe.tax.transactions.listLineItems(id, { limit: 100, starting_after: after });
    for (const li of page.data) {
      amount += li.amount + (li.tax_behavior === "exclusive" ? li.amount_tax : 0);
      tax += li.amount_tax;
    }
    if (!page.has_more || !page.data.length) return { amount, tax };
    after = page.data[page.data.length - 1].id;
  }
}

/**
 * Looks up at Stripe the next REREAD_BATCH orders (after `after`, by id) whose transaction or
 * reversal is missing here, and records every committed tax transaction Stripe holds for them: those
 * its Tax Association lists (the payment's, and each refund's) and the reversals we asked for
 * (tax_reversal_requests). Each is inserted once (`on conflict do nothing` on Stripe's id and its
 * reference), so a repeat, or two admins at once, record nothing twice.
 */
export async function rereadMissing(
  deps: { db: Db; stripe: TaxStripe },
  p: Month,
  after = "",
): Promise<TaxRereadResult> {
  const { db, stripe } = deps;
  const figures = orderFigures(p);
  const todo = await db.all<{ order_id: string; pi: string }>(sql`
    ${figures}
    select order_id, pi from figures where ${MISSING_AT_STRIPE} and pi is not null and order_id > ${after}
    order by order_id limit ${REREAD_BATCH}
  `);
  const batch = todo;
  let recorded = 0;
  const notAtStripe: string[] = [];
  for (const order of batch) {
    const ids = new Set<string>();
    try {
      const association = await stripe.tax.associations.find({ payment_intent: order.pi });
      for (const a of association.tax_transaction_attempts ?? [])
        if (a.status === "committed" && a.committed?.transaction) ids.add(a.committed.transaction);
    } catch (err) {
      if (!isUnknownObject(err)) throw err;
    }
    const asked = await db.all<{ id: string }>(sql`
      select r.tax_transaction_id as id from tax_reversal_requests r
      where r.tax_transaction_id is not null
        and r.purchase_id in (select id from purchases where id = ${order.order_id} or bump_of = ${order.order_id})
    `);
    for (const r of asked) ids.add(r.id);
    if (!ids.size) notAtStripe.push(order.order_id);
    for (const id of ids) {
      const known = await db.all(sql`select 1 from tax_transactions where id = ${id}`);
      if (known.length) continue;
      const t = await stripe.tax.transactions.retrieve(id);
      const sums = await lineItemSums(stripe, id);
      const inserted = await db.all(sql`
        insert into tax_transactions (id, purchase_id, payment_intent_id, type, reference, amount_cents, tax_cents, created_at)
        values (${t.id}, ${order.order_id}, ${order.pi}, ${t.type}, ${t.reference}, ${sums.amount}, ${sums.tax}, ${(t.posted_at ?? t.created) * 1000})
        on conflict do nothing returning id
      `);
      recorded += inserted.length;
    }
  }
  const lastOrderId = batch.length ? batch[batch.length - 1].order_id : null;
  const [left] = await db.all<{ n: number }>(sql`
    ${figures}
    select count(*) as n from figures where ${MISSING_AT_STRIPE} and pi is not null and order_id > ${lastOrderId ?? after}
  `);
  return { checked: batch.length, recorded, notAtStripe, remaining: Number(left?.n ?? 0), lastOrderId };
}
