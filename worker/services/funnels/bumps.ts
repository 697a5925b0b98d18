// The order bump: an item's one add-on (another of the same creator's items at a bump price), set
// by the creator and offered at checkout. Paying, refunding and disputing it live with purchases.
// Behaviour: docs/funnels.md (Order bump).
import { and, eq, isNull } from "drizzle-orm";
import { BUMP_MESSAGES, type CreatorBump, type PublicBump } from "../../../shared/bumps";
import type { Db } from "../../db/client";
import { content } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";

type ContentRow = typeof content.$inferSelect;

export const creatorBump = (row: Pick<ContentRow, "bumpContentId" | "bumpPriceCents">): CreatorBump =>
  row.bumpContentId && row.bumpPriceCents !== null
    ? { contentId: row.bumpContentId, price: row.bumpPriceCents / 100 }
    : null;

/** The item an add-on sells, if it can still be sold: the same creator's, not deleted, not unpublished, same currency. */
async function sellableBump(db: Db, item: Pick<ContentRow, "id" | "userId" | "currency" | "bumpContentId">) {
  if (!item.bumpContentId || item.bumpContentId === item.id) return null;
  const bump = await db
    .select()
    .from(content)
    .where(
      and(
        eq(content.id, item.bumpContentId),
        eq(content.userId, item.userId),
        isNull(content.deletedAt),
        isNull(content.unpublishedAt),
      ),
    )
    .get();
  return bump && bump.currency === item.currency ? bump : null;
}

/** What the paywall and checkout offer (null when the item has no add-on, or it is off sale). */
export async function publicBump(
  db: Db,
  item: Pick<ContentRow, "id" | "userId" | "currency" | "bumpContentId" | "bumpPriceCents">,
): Promise<PublicBump> {
  if (item.bumpPriceCents === null) return null;
  const bump = await sellableBump(db, item);
  return bump ? { id: bump.id, title: bump.title, price: item.bumpPriceCents / 100 } : null;
}

/**
 * The creator's items that offer `id` as their add-on: their public answer and paywall show its title
 * and whether it still sells, so a change to it is a change to them.
 */
export async function itemsOffering(db: Db, userId: string, id: string): Promise<string[]> {
  const rows = await db
    .select({ id: content.id })
    .from(content)
    .where(and(eq(content.userId, userId), eq(content.bumpContentId, id), isNull(content.deletedAt)));
  return rows.map((r) => r.id);
}

/** The add-on a checkout that ticked it charges for: its item and price, or 409 when it can no longer be sold. */
export async function bumpForCheckout(db: Db, item: ContentRow): Promise<{ item: ContentRow; priceCents: number }> {
  const bump = item.bumpPriceCents === null ? null : await sellableBump(db, item);
  if (!bump) throw new ApiError(409, BUMP_MESSAGES.unavailable);
  return { item: bump, priceCents: item.bumpPriceCents! };
}

/** Sets an item's add-on (the creator's own item, another one, same currency), or removes it (null). */
export async function setBump(
  db: Db,
  userId: string,
  itemId: string,
  input: { contentId: string; priceCents: number } | null,
): Promise<CreatorBump> {
  const own = (id: string) =>
    db
      .select()
      .from(content)
      .where(and(eq(content.id, id), eq(content.userId, userId), isNull(content.deletedAt)))
      .get();
  const item = await own(itemId);
  if (!item) throw notFound("Content Not Found");
  if (input) {
    if (input.contentId === itemId) throw new ApiError(400, `contentId: ${BUMP_MESSAGES.sameItem}`);
    const bump = await own(input.contentId);
    if (!bump) throw new ApiError(400, `contentId: ${BUMP_MESSAGES.notYours}`);
    if (bump.currency !== item.currency) throw new ApiError(400, `contentId: ${BUMP_MESSAGES.currency}`);
  }
  const [row] = await db
    .update(content)
    .set({ bumpContentId: input?.contentId ?? null, bumpPriceCents: input?.priceCents ?? null })
    .where(and(eq(content.id, itemId), eq(content.userId, userId), isNull(content.deletedAt)))
    .returning({ bumpContentId: content.bumpContentId, bumpPriceCents: content.bumpPriceCents });
  if (!row) throw notFound("Content Not Found");
  return creatorBump(row);
}
