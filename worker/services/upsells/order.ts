// An order after its first purchase: what was added (the order bump's add-on and each paid offer)
// and what it charged, read from the server's records, never from prices shown in the browser.
// Behaviour: docs/funnels.md (Funnels and upsells).
import { and, asc, eq, inArray } from "drizzle-orm";
import type { OrderSummary } from "../../../shared/funnels";
import type { PurchaseVerification } from "../../../shared/payments";
import { content, purchases } from "../../db/schema";
import { accessUrlFor } from "../purchases/access-tokens";
import { verification } from "../purchases/buyer-access";
import type { PurchaseDeps } from "../purchases/deps";
import { type PurchaseRow, transition } from "./offer-state";

/** Everything bought in this order after the first item: the accepted upsells, each with its own access. */
export async function orderExtras(deps: PurchaseDeps, root: PurchaseRow): Promise<PurchaseVerification[]> {
  const children = await deps.db
    .select()
    .from(purchases)
    .where(and(eq(purchases.parentPurchaseId, root.id), eq(purchases.status, "paid")))
    .orderBy(asc(purchases.createdAt));
  return Promise.all(children.map((p) => verification(deps, p)));
}

/**
 * What the order has charged, from the server's records: the first purchase's amount, the order
 * bump's add-on charged with it (a purchase of its own, bump_of the first), and each offer that is paid (an offer still 'accepting' whose purchase Stripe's webhook already fulfilled
 * is moved to paid first, as funnelState does), at the amount its purchase was charged.
 */
export async function orderSummary(deps: PurchaseDeps, root: PurchaseRow): Promise<OrderSummary> {
  const settle = await deps.d1
    .prepare(
      `select o.parent_purchase_id as parentPurchaseId, o.step_id as stepId from funnel_offers o join purchases p on p.id = o.purchase_id
       where o.parent_purchase_id = ? and o.status = 'accepting' and p.status in ('paid', 'refunded', 'disputed')`,
    )
    .bind(root.id)
    .all<{ parentPurchaseId: string; stepId: string }>();
  if (settle.results.length) await deps.d1.batch(settle.results.map((o) => transition(deps, o, "accepting", "paid")));
  const { results: added } = await deps.d1
    .prepare(
      `select p.id as purchaseId, c.title as title, p.amount_cents as amountCents
       from funnel_offers o join purchases p on p.id = o.purchase_id join content c on c.id = p.content_id
       where o.parent_purchase_id = ? and o.status = 'paid' order by p.paid_at, p.created_at`,
    )
    .bind(root.id)
    .all<{ purchaseId: string; title: string; amountCents: number }>();
  const item = await deps.db.select({ title: content.title }).from(content).where(eq(content.id, root.contentId)).get();
  // Paid-like as the first purchase is: a refund later does not change what this payment charged.
  const bumps = await deps.db
    .select({ purchase: purchases, title: content.title })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .where(and(eq(purchases.bumpOf, root.id), inArray(purchases.status, ["paid", "refunded", "disputed"])))
    .orderBy(asc(purchases.id));
  const paidCents = root.amountCents + bumps.reduce((t, b) => t + b.purchase.amountCents, 0);
  const totalCents = paidCents + added.reduce((t, a) => t + a.amountCents, 0);
  return {
    first: { title: item?.title ?? "", amount: root.amountCents / 100, accessUrl: await accessUrlFor(deps, root) },
    bumps: await Promise.all(
      bumps.map(async (b) => ({
        purchaseId: b.purchase.id,
        title: b.title,
        amount: b.purchase.amountCents / 100,
        accessUrl: await accessUrlFor(deps, b.purchase),
      })),
    ),
    paid: paidCents / 100,
    added: added.map((a) => ({ purchaseId: a.purchaseId, title: a.title, amount: a.amountCents / 100 })),
    total: totalCents / 100,
  };
}
