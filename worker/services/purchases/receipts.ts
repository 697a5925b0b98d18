// The buyer's receipt and order email: what they say (read when they are sent) and, for an order
// settled before its fulfilment wrote one, the receipt written then. Behaviour: docs/payments.md
// ("Receipts and emails").
import { and, eq, or, sql } from "drizzle-orm";
import { content, licenseKeys, purchases } from "../../db/schema";
import { outboxInsert } from "../mail/email-outbox";
import { orderEmailJob, orderEmailKey } from "../mail/order-email";
import type { EmailJob, OrderMailData, PurchaseAccessMailData } from "../mail/templates";
import { mailCreator, publicCreator } from "../profile";
import { accessUrlFor } from "./access-tokens";
import type { PurchaseDeps, PurchaseRow } from "./deps";

export async function receiptJob(
  deps: PurchaseDeps,
  purchase: PurchaseRow,
  email: string,
  licenseKey?: string,
): Promise<EmailJob> {
  return {
    dedupeKey: `purchase-access:${purchase.id}`,
    to: email,
    template: "purchase-access",
    data: await receiptData(deps, purchase, licenseKey),
  };
}

/**
 * What the receipt (and its reminder) says: the item, the order, the access link, who the buyer paid
 * and its license key. `pendingKey`: the key fulfil's batch is about to write with this email (the
 * receipt exists only if that batch commits, so the key it names is the one written).
 */
export async function receiptData(
  deps: Pick<PurchaseDeps, "db" | "appUrl" | "accessSecret">,
  purchase: PurchaseRow,
  pendingKey?: string,
): Promise<PurchaseAccessMailData> {
  const [item, creator, license] = await Promise.all([
    deps.db
      .select({ title: content.title, issueLicenseKeys: content.issueLicenseKeys })
      .from(content)
      .where(eq(content.id, purchase.contentId))
      .get(),
    publicCreator(deps.db, purchase.creatorId),
    deps.db.select({ key: licenseKeys.key }).from(licenseKeys).where(eq(licenseKeys.purchaseId, purchase.id)).get(),
  ]);
  const licenseKey = license?.key ?? (item?.issueLicenseKeys ? pendingKey : undefined);
  return {
    title: item?.title ?? "your purchase",
    amountCents: purchase.amountCents,
    orderId: purchase.id,
    accessUrl: await accessUrlFor(deps, purchase),
    creator: mailCreator(deps.appUrl, creator),
    ...(licenseKey ? { licenseKey } : {}),
  };
}

/** What an order email lists, read when it is sent: the root and its upsells that are paid now. */
export async function orderMailData(
  deps: Pick<PurchaseDeps, "db" | "appUrl" | "accessSecret">,
  rootPurchaseId: string,
): Promise<OrderMailData | null> {
  const rows = await deps.db
    .select({
      id: purchases.id,
      paymentIntentId: purchases.paymentIntentId,
      contentId: purchases.contentId,
      creatorId: purchases.creatorId,
      amountCents: purchases.amountCents,
      title: content.title,
      licenseKey: licenseKeys.key,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .leftJoin(licenseKeys, eq(licenseKeys.purchaseId, purchases.id))
    .where(
      and(
        or(
          eq(purchases.id, rootPurchaseId),
          eq(purchases.parentPurchaseId, rootPurchaseId),
          eq(purchases.bumpOf, rootPurchaseId),
        ),
        eq(purchases.status, "paid"),
      ),
    )
    .orderBy(sql`${purchases.id} <> ${rootPurchaseId}`, purchases.paidAt);
  if (!rows.length) return null;
  const items = await Promise.all(
    rows.map(async (r) => ({
      title: r.title,
      amountCents: r.amountCents,
      orderId: r.id,
      accessUrl: await accessUrlFor(deps, r),
      ...(r.licenseKey ? { licenseKey: r.licenseKey } : {}),
    })),
  );
  return {
    rootPurchaseId,
    items,
    totalCents: items.reduce((a, i) => a + i.amountCents, 0),
    creator: mailCreator(deps.appUrl, await publicCreator(deps.db, rows[0].creatorId)),
  };
}

/**
 * The buyer's receipt (the access links) of an order settled before its fulfilment wrote one: a
 * refund or dispute handled before payment_intent.succeeded books the sale without it (see ./settle.ts
 * paidPurchaseForIntent), and a buyer who keeps access must still get the link, whatever the order
 * of events. Written only if a purchase of the order ends paid and no receipt or order email was
 * ever written or sent for it; an order with a bump gets the order email (listing what is paid).
 */
export async function orderReceipt(
  deps: PurchaseDeps,
  main: PurchaseRow,
  withBump: boolean,
  now: number,
): Promise<{ job: EmailJob; statement: D1PreparedStatement } | null> {
  if (!main.buyerEmail) return null;
  const job = withBump
    ? orderEmailJob(main.id, main.buyerEmail, now, { waitForFunnel: false })
    : await receiptJob(deps, main, main.buyerEmail);
  const keys = [`purchase-access:${main.id}`, orderEmailKey(main.id)];
  const statement = outboxInsert(deps.d1, job, now, {
    sql: `exists (select 1 from purchases where (id = ? or bump_of = ?) and status = 'paid')
      and not exists (select 1 from outbox_emails where id in (?, ?)) and not exists (select 1 from emails_sent where dedupe_key in (?, ?))`,
    binds: [main.id, main.id, ...keys, ...keys],
  });
  return { job, statement };
}
