// A sale as the creator's sales table shows it: its refunds so far (booked, pending at Stripe, the
// latest request's status), what is left to refund, and the discount code it used.
// Behaviour: docs/refunds-and-disputes.md ("A creator refunds a sale").
import { and, desc, eq, sql } from "drizzle-orm";
import type { Sale } from "../../../shared/earnings";
import { content, purchases } from "../../db/schema";
import type { PurchaseDeps } from "../purchases/deps";
import { saleTax, taxDetailsColumn } from "../tax/sale-tax-view";

/** A sale's columns beyond the purchase's own: its refunds so far, and the discount code it used. */
export const saleColumns = {
  taxCents: purchases.taxCents,
  taxDetails: taxDetailsColumn,
  orderBump: sql<number>`${purchases.bumpOf} is not null`,
  discountCode: sql<string | null>`(select code from discount_codes where id = ${purchases.discountCodeId})`,
  refundedCents: sql<number>`(select -coalesce(sum(amount_cents), 0) from ledger_entries where purchase_id = ${purchases.id} and kind = 'refund')`,
  // Pending by Stripe's word only: a request Stripe never answered ('requested') is no refund, and a
  // press again replays it under the same key (or the webhook of a Refund made meanwhile names it).
  pendingCents: sql<number>`(select coalesce(sum(amount_cents), 0) from refund_requests where purchase_id = ${purchases.id} and status in ('pending', 'requires_action'))`,
  latestRequestStatus: sql<
    string | null
  >`(select status from refund_requests where purchase_id = ${purchases.id} and status <> 'refused' order by created_at desc, id desc limit 1)`,
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
  taxCents: number | null;
  taxDetails: string | null;
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
    tax: saleTax(r.amountCents, r.taxCents, r.taxDetails),
    refundable: r.status === "paid" ? Math.max(0, r.amountCents - refunded - pending) / 100 : 0,
  };
}

export async function saleView(
  deps: Pick<PurchaseDeps, "db">,
  creatorId: string,
  purchaseId: string,
): Promise<Sale | null> {
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
