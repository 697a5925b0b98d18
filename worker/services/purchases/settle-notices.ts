// What a settled refund or dispute tells: the sale.refunded and sale.disputed webhooks and the buyer's
// refund email, each written only once its reversal is booked. Behaviour: docs/refunds-and-disputes.md.
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { content } from "../../db/schema";
import { creatorReplyTo } from "../refunds/reply-to";
import type { EmailJob } from "../mail/templates";
import { webhookStatements } from "../webhooks/delivery";
import type { PurchaseDeps, PurchaseRow } from "./deps";
import { saleWebhookData } from "./sale-notices";
import { stripeIdOf } from "./states";

/**
 * sale.refunded for each refund, sale.disputed for each chargeback, written only once this batch (or
 * an earlier one) booked its reversal (its `:creator` ledger row), once per refund or dispute id. A
 * refund that reversed nothing (the sale was already taken back) and an inquiry send none.
 */
export async function settleWebhooks(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  refunds: Stripe.Refund[],
  disputes: Stripe.Dispute[],
  now: number,
) {
  const reversing = [...refunds.filter((r) => r.status === "succeeded" || r.status === "pending"), ...disputes];
  if (!reversing.length) return { statements: [] as D1PreparedStatement[], keys: [] as string[] };
  const base = await saleWebhookData(deps, purchase, purchase.buyerEmail);
  const booked = (key: string) => ({
    sql: "exists (select 1 from ledger_entries where idempotency_key = ?)",
    binds: [`${key}:creator`],
  });
  const refundedCents = refunds
    .filter((r) => r.status === "succeeded" || r.status === "pending")
    .reduce((a, r) => a + r.amount, 0);
  const out: { statements: D1PreparedStatement[]; keys: string[] } = { statements: [], keys: [] };
  for (const r of refunds.filter((r) => r.status === "succeeded" || r.status === "pending")) {
    const data = {
      ...base,
      refundId: stripeIdOf(r.id),
      refundStatus: r.status,
      refundedCents: r.amount,
      totalRefundedCents: refundedCents,
      accessEnded: refundedCents >= purchase.amountCents,
    };
    out.statements.push(
      ...webhookStatements(
        deps.d1,
        purchase.creatorId,
        "sale.refunded",
        data,
        `refund:${r.id}`,
        now,
        booked(`refund:${r.id}`),
      ),
    );
    out.keys.push(`refund:${r.id}`);
  }
  for (const d of disputes) {
    const data = {
      ...base,
      disputeId: stripeIdOf(d.id),
      disputedCents: d.amount,
      reason: d.reason,
      disputeStatus: d.status,
    };
    out.statements.push(
      ...webhookStatements(
        deps.d1,
        purchase.creatorId,
        "sale.disputed",
        data,
        `dispute:${d.id}`,
        now,
        booked(`dispute:${d.id}`),
      ),
    );
    out.keys.push(`dispute:${d.id}`);
  }
  return out;
}

/** The buyer's email for each succeeded refund of the charge (written only once its reversal is booked). */
export async function refundJobs(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  email: string,
  refunds: Stripe.Refund[],
): Promise<{ job: EmailJob; refundId: string }[]> {
  const succeeded = refunds.filter((r) => r.status === "succeeded");
  if (!succeeded.length) return [];
  const item = await deps.db
    .select({ title: content.title })
    .from(content)
    .where(eq(content.id, purchase.contentId))
    .get();
  const totalCents = succeeded.reduce((a, r) => a + r.amount, 0);
  const replyTo = await creatorReplyTo(deps.db, purchase.creatorId);
  return succeeded.map((r) => ({
    refundId: r.id,
    job: {
      dedupeKey: `refund-issued:${r.id}`,
      to: email,
      template: "refund-issued" as const,
      data: {
        title: item?.title ?? "your purchase",
        amountCents: r.amount,
        orderId: purchase.id,
        accessEnded: totalCents >= purchase.amountCents,
        ...(replyTo ? { replyTo } : {}),
      },
    },
  }));
}
