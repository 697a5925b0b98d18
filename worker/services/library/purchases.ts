// What the library reads for a signed-in buyer: every purchase paid with their address (newest
// first), and one of them by id, only ever where its email is the session's (case-insensitive, in
// the query itself). It reads what the access link reads, through the same code: no more power.
// Behaviour: docs/library.md.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import {
  type LibraryAccess,
  type LibraryList,
  type LibraryPurchase,
  type LibraryReceipt,
  LIBRARY_PAGE_SIZE,
  LIBRARY_STATES,
} from "../../../shared/library";
import { invoiceNumber } from "../../../shared/invoices";
import { content, creatorProfiles, purchases, users } from "../../db/schema";
import { accessTokenFor, accessUrlFor } from "../purchases/access-tokens";
import { assertPaid, verification } from "../purchases/buyer-access";
import type { PurchaseDeps, PurchaseRow } from "../purchases/deps";
import { receiptData } from "../purchases/receipts";
import { creatorColumns, toPublicCreator } from "../profile";

/** `lower(buyer_email) = email`: the expression the index purchases_buyer_email_lower serves. */
const emailIs = (email: string) => sql`lower(${purchases.buyerEmail}) = ${email.toLowerCase()}`;
/** Paid, or paid and since refunded or disputed: a pending or failed checkout is no purchase. */
const listed = inArray(purchases.status, [...LIBRARY_STATES]);

/** Whether `email` has anything in its library (the link goes only to such an address). */
export async function hasLibrary(db: PurchaseDeps["db"], email: string): Promise<boolean> {
  const row = await db
    .select({ id: purchases.id })
    .from(purchases)
    .where(and(emailIs(email), listed))
    .limit(1)
    .get();
  return !!row;
}

/** When a purchase counts as bought (the list's order): paid, or created for one never stamped paid. */
const boughtAt = sql`coalesce(${purchases.paidAt}, ${purchases.createdAt})`;

/** Rows after the cursor `${boughtAtMs}.${id}` (the previous page's last row), newest first. */
function afterCursor(cursor: string | undefined) {
  if (!cursor) return undefined;
  const dot = cursor.indexOf(".");
  const at = Number(cursor.slice(0, dot));
  const id = cursor.slice(dot + 1);
  return sql`(${boughtAt} < ${at} or (${boughtAt} = ${at} and ${purchases.id} < ${id}))`;
}

/** One page of `email`'s purchases after `cursor`, newest first, and one more row (is there a next page?). */
export function libraryPageQuery(db: PurchaseDeps["db"], email: string, cursor?: string) {
  return db
    .select({
      id: purchases.id,
      contentId: purchases.contentId,
      title: content.title,
      accessType: content.accessType,
      amountCents: purchases.amountCents,
      status: purchases.status,
      paidAt: purchases.paidAt,
      createdAt: purchases.createdAt,
      revokedAt: purchases.revokedAt,
      // The page's receipts (worker/pages/library.tsx): the access link's parts and the license key.
      paymentIntentId: purchases.paymentIntentId,
      buyerEmail: purchases.buyerEmail,
      licenseKey: sql<string | null>`(select key from license_keys where purchase_id = ${purchases.id})`,
      invoice: sql<
        number | null
      >`(select number from tax_invoices where purchase_id = coalesce(${purchases.bumpOf}, ${purchases.id}))`,
      creator: creatorColumns,
    })
    .from(purchases)
    .innerJoin(content, eq(content.id, purchases.contentId))
    .innerJoin(users, eq(users.id, content.userId))
    .leftJoin(creatorProfiles, eq(creatorProfiles.userId, content.userId))
    .where(and(emailIs(email), listed, afterCursor(cursor)))
    .orderBy(desc(boughtAt), desc(purchases.id))
    .limit(LIBRARY_PAGE_SIZE + 1);
}

type PageRow = Awaited<ReturnType<typeof libraryPageQuery>>[number];

/** One page of rows and where the next starts (null on the last page). */
async function libraryPage(db: PurchaseDeps["db"], email: string, cursor?: string) {
  const found = await libraryPageQuery(db, email, cursor);
  const rows = found.slice(0, LIBRARY_PAGE_SIZE);
  const last = rows[rows.length - 1];
  const nextCursor =
    found.length > LIBRARY_PAGE_SIZE && last ? `${(last.paidAt ?? last.createdAt).getTime()}.${last.id}` : null;
  return { rows, nextCursor };
}

const toListed = (r: PageRow): LibraryPurchase => ({
  id: r.id,
  contentId: r.contentId,
  title: r.title,
  accessType: r.accessType,
  creator: toPublicCreator(r.creator),
  purchasedAt: (r.paidAt ?? r.createdAt).toISOString(),
  amount: r.amountCents / 100,
  state: r.status as LibraryPurchase["state"],
  revokedAt: r.revokedAt?.toISOString() ?? null,
  invoice: r.invoice ? invoiceNumber(r.invoice) : null,
});

export async function libraryPurchases(db: PurchaseDeps["db"], email: string, cursor?: string): Promise<LibraryList> {
  const { rows, nextCursor } = await libraryPage(db, email, cursor);
  return { email: email.toLowerCase(), nextCursor, purchases: rows.map(toListed) };
}

/** A card of the /library page: the listed purchase and its receipt (the access link, key: while it opens). */
export type LibraryCard = LibraryPurchase & {
  cursor: string;
  emailedTo: string;
  accessUrl: string | null;
  licenseKey: string | null;
};

/** One page of the /library page's cards, newest first, from the same query as the list. */
export async function libraryCards(
  deps: Pick<PurchaseDeps, "db" | "appUrl" | "accessSecret">,
  email: string,
  cursor?: string,
): Promise<{ cards: LibraryCard[]; nextCursor: string | null }> {
  const { rows, nextCursor } = await libraryPage(deps.db, email, cursor);
  const cards = await Promise.all(
    rows.map(async (r) => {
      const opens = r.status === "paid";
      return {
        ...toListed(r),
        cursor: `${(r.paidAt ?? r.createdAt).getTime()}.${r.id}`,
        emailedTo: r.buyerEmail ?? email,
        accessUrl: opens ? await accessUrlFor(deps, r) : null,
        licenseKey: opens ? r.licenseKey : null,
      };
    }),
  );
  return { cards, nextCursor };
}

/** The purchase `id` if it was paid with `email`; null for anyone else's (the caller answers 404). */
export async function ownedPurchase(db: PurchaseDeps["db"], email: string, id: string): Promise<PurchaseRow | null> {
  const row = await db
    .select()
    .from(purchases)
    .where(and(eq(purchases.id, id), emailIs(email), listed))
    .get();
  return row ?? null;
}

/**
 * What the access link opens, as /api/purchase/verify gives it: 403 once refunded or disputed. (A
 * listed purchase is never pending, so there is nothing to bring up to date with Stripe first.)
 */
export async function libraryAccess(deps: PurchaseDeps, purchase: PurchaseRow): Promise<LibraryAccess> {
  assertPaid(purchase);
  return {
    verification: await verification(deps, purchase),
    access: await accessTokenFor(deps.accessSecret, purchase.id),
  };
}

/** The receipt, as its email says it; its access link and license key only while it opens. */
export async function libraryReceipt(deps: PurchaseDeps, owned: PurchaseRow): Promise<LibraryReceipt> {
  const r = await receiptData(deps, owned);
  const opens = owned.status === "paid";
  return {
    orderId: r.orderId,
    title: r.title,
    amount: r.amountCents / 100,
    purchasedAt: (owned.paidAt ?? owned.createdAt).toISOString(),
    state: owned.status as LibraryReceipt["state"],
    creator: { name: r.creator?.name ?? null, supportEmail: r.creator?.supportEmail ?? null },
    emailedTo: owned.buyerEmail ?? "",
    licenseKey: opens ? (r.licenseKey ?? null) : null,
    accessUrl: opens ? r.accessUrl : null,
  };
}
