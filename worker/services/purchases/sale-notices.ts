// What a fulfilled sale tells: the buyer's receipt or order email, the creator's "You made a sale",
// and the sale.completed (and upsell.accepted) webhooks, each written only if the fulfilment's batch
// marked the purchase paid. Behaviour: docs/payments.md ("Receipts and emails"), docs/api-and-webhooks.md.
import { eq } from "drizzle-orm";
import { content, users } from "../../db/schema";
import { liveFunnelFor } from "../funnels/funnels";
import type { LedgerRow } from "../ledger";
import { outboxInsert, type OutboxGuard } from "../mail/email-outbox";
import { orderEmailJob, orderEmailPending } from "../mail/order-email";
import type { EmailJob } from "../mail/templates";
import { saleTaxCents, TAX_DETAILS_JSON } from "../tax/sale-tax-view";
import { webhookStatements } from "../webhooks/delivery";
import type { PurchaseDeps, PurchaseRow } from "./deps";
import { cheapReceiptCap } from "./receipt-cap";
import { receiptData, receiptJob } from "./receipts";

/**
 * What a sale's webhook says (docs/api-and-webhooks.md): the order, the item, the money in cents (the
 * amount tax included, and its tax apart: null for a sale without tax), the buyer.
 */
export async function saleWebhookData(deps: PurchaseDeps, purchase: PurchaseRow, buyerEmail: string | null) {
  const [item, taxRow] = await Promise.all([
    deps.db.select({ title: content.title }).from(content).where(eq(content.id, purchase.contentId)).get(),
    deps.d1
      .prepare(`select ${TAX_DETAILS_JSON} as details from purchase_taxes where purchase_id = ?`)
      .bind(purchase.id)
      .first<{ details: string }>(),
  ]);
  return {
    purchaseId: purchase.id,
    orderId: purchase.parentPurchaseId ?? purchase.bumpOf ?? purchase.id,
    itemId: purchase.contentId,
    itemTitle: item?.title ?? null,
    amountCents: purchase.amountCents,
    currency: purchase.currency,
    taxCents: purchase.taxCents,
    tax: saleTaxCents(purchase.amountCents, purchase.taxCents, taxRow?.details ?? null),
    buyerEmail,
  };
}

/**
 * sale.completed for every sale fulfilled, and upsell.accepted too for an upsell's purchase (with its
 * funnel and step), written only if this batch marked the purchase paid; keyed by the purchase.
 */
export async function saleWebhooks(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  ledger: LedgerRow[],
  email: string | null,
  now: number,
) {
  const paidHere = {
    sql: "exists (select 1 from purchases where id = ? and status = 'paid' and paid_at = ?)",
    binds: [purchase.id, now],
  };
  const netCents = ledger.filter((r) => r.account === "creator").reduce((a, r) => a + r.amountCents, 0);
  const data = {
    ...(await saleWebhookData(deps, purchase, email)),
    netCents,
    // The fee is on the price without tax; the tax is neither the creator's nor ApeWall's.
    feeCents: purchase.amountCents - purchase.taxCents - netCents,
  };
  const statements = webhookStatements(
    deps.d1,
    purchase.creatorId,
    "sale.completed",
    data,
    `sale:${purchase.id}`,
    now,
    paidHere,
  );
  const keys = [`sale:${purchase.id}`];
  if (purchase.parentPurchaseId) {
    const offer = await deps.d1
      .prepare("select funnel_id, step_id from funnel_offers where purchase_id = ?")
      .bind(purchase.id)
      .first<{ funnel_id: string; step_id: string }>();
    const upsell = {
      ...data,
      parentPurchaseId: purchase.parentPurchaseId,
      funnelId: offer?.funnel_id ?? null,
      stepId: offer?.step_id ?? null,
    };
    statements.push(
      ...webhookStatements(
        deps.d1,
        purchase.creatorId,
        "upsell.accepted",
        upsell,
        `upsell:${purchase.id}`,
        now,
        paidHere,
      ),
    );
    keys.push(`upsell:${purchase.id}`);
  }
  return { statements, keys };
}

/**
 * The emails a sale's fulfilment writes, as outbox inserts for its own D1 batch, each only if that
 * batch marked the purchase paid (its paid_at is ours): they exist exactly when the sale committed,
 * once per purchase (their dedupe keys).
 * - The buyer: an item in a live funnel starts the order email (../mail/order-email.ts), which waits
 *   for the funnel; an upsell's purchase is in that email while it waits, else gets its own "Added to
 *   your order"; a purchase with an order bump gets the order email at once (listing both; the
 *   bump's own purchase writes none); any other purchase gets its receipt at once.
 * - The creator: "You made a sale", with their net as this batch's ledger rows book it, unless they
 *   turned it off (creator_profiles.email_on_sale, read inside the batch).
 * Not called for a fulfilment that a refund or dispute forced (notify: false): that sale may be taken
 * back, and settleCharge writes the buyer's receipt if it ends paid.
 */
export async function fulfilmentEmails(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  ledger: LedgerRow[],
  email: string | null,
  now: number,
  licenseKey: string,
  bumps: { purchase: PurchaseRow; ledger: LedgerRow[] }[],
): Promise<{ statements: D1PreparedStatement[]; keys: string[] }> {
  const paidHere = {
    sql: "exists (select 1 from purchases where id = ? and status = 'paid' and paid_at = ?)",
    binds: [purchase.id, now],
  };
  const both = (a: OutboxGuard, b: OutboxGuard): OutboxGuard => ({
    sql: `(${a.sql}) and (${b.sql})`,
    binds: [...a.binds, ...b.binds],
  });
  const out: { job: EmailJob; guard: OutboxGuard }[] = [];
  // A cheap order's receipt is capped (./receipt-cap.ts): it is booked first, and written only if booked.
  const total = purchase.amountCents + bumps.reduce((a, b) => a + b.purchase.amountCents, 0);
  const cap =
    email && !purchase.parentPurchaseId ? cheapReceiptCap(deps.d1, purchase, total, email, now, paidHere) : null;
  const receiptGuard = cap ? both(paidHere, cap.guard) : paidHere;
  if (email) {
    if (purchase.parentPurchaseId) {
      const pending = orderEmailPending(purchase.parentPurchaseId);
      const data = await receiptData(deps, purchase, licenseKey);
      out.push({
        job: {
          dedupeKey: `order-added:${purchase.id}`,
          to: email,
          template: "order-added",
          data: { ...data, rootOrderId: purchase.parentPurchaseId },
        },
        guard: both(paidHere, { sql: `not (${pending.sql})`, binds: pending.binds }),
      });
    } else if (await liveFunnelFor(deps.db, purchase.contentId)) {
      out.push({ job: orderEmailJob(purchase.id, email, now), guard: receiptGuard });
    } else if (bumps.length) {
      // One receipt listing the item and its add-on, each with its own access link: the order email, sent now.
      out.push({ job: orderEmailJob(purchase.id, email, now, { waitForFunnel: false }), guard: receiptGuard });
    } else {
      out.push({ job: await receiptJob(deps, purchase, email, licenseKey), guard: receiptGuard });
    }
  }
  const sale = await saleEmailJob(deps, purchase, ledger, email, bumps);
  if (sale) {
    out.push({
      job: sale,
      guard: both(paidHere, {
        sql: "not exists (select 1 from creator_profiles where user_id = ? and email_on_sale = 0)",
        binds: [purchase.creatorId],
      }),
    });
  }
  return {
    statements: [...(cap ? [cap.statement] : []), ...out.map((m) => outboxInsert(deps.d1, m.job, now, m.guard))],
    keys: out.map((m) => m.job.dedupeKey),
  };
}

/**
 * "You made a sale" to the creator's account address; the net is the creator's rows of `ledger`. An
 * order bump bought with it is in the same email ("Guide + Workbook (order bump)"), with both amounts.
 */
async function saleEmailJob(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  ledger: LedgerRow[],
  buyerEmail: string | null,
  bumps: { purchase: PurchaseRow; ledger: LedgerRow[] }[] = [],
): Promise<EmailJob | null> {
  const titleOf = async (p: PurchaseRow) =>
    (await deps.db.select({ title: content.title }).from(content).where(eq(content.id, p.contentId)).get())?.title;
  const [creator, title, bumpTitles] = await Promise.all([
    deps.db.select({ email: users.email }).from(users).where(eq(users.id, purchase.creatorId)).get(),
    titleOf(purchase),
    Promise.all(bumps.map((b) => titleOf(b.purchase))),
  ]);
  if (!creator?.email) return null;
  const creatorCents = (rows: LedgerRow[]) =>
    rows.filter((r) => r.account === "creator").reduce((a, r) => a + r.amountCents, 0);
  const netCents = creatorCents(ledger) + bumps.reduce((a, b) => a + creatorCents(b.ledger), 0);
  const amountCents = purchase.amountCents + bumps.reduce((a, b) => a + b.purchase.amountCents, 0);
  const titles = [title ?? "your item", ...bumpTitles.map((t) => `${t ?? "an item"} (order bump)`)].join(" + ");
  return {
    dedupeKey: `sale:${purchase.id}`,
    to: creator.email,
    template: "sale-made",
    data: {
      title: titles,
      amountCents,
      netCents,
      buyerEmail,
      orderId: purchase.id,
      salesUrl: new URL("/dashboard", deps.appUrl).href,
    },
  };
}
