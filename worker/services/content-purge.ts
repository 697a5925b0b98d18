// Deleted items' bytes: the daily cron removes an item's file and preview image from R2 once no
// buyer holds the item and no checkout of it may still pay. See docs/uploads.md.
import { and, eq, isNotNull, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { content, uploads } from "../db/schema";

const CHECKOUT_MAY_STILL_PAY_MS = 14 * 24 * 3600 * 1000;

/** Removes the bytes of items deleted over a day ago that no buyer holds and no checkout may still pay for. */
export async function purgeDeletedContentBytes(db: Db, bucket: R2Bucket, now = Date.now()): Promise<number> {
  const day = 24 * 3600 * 1000;
  const candidates = await db
    .select({ id: content.id, fileKey: content.fileKey, previewKey: content.previewImageKey })
    .from(content)
    .where(
      and(
        lt(content.deletedAt, new Date(now - day)),
        sql`(${content.fileKey} is not null or ${content.previewImageKey} is not null)`,
        sql`not exists (select 1 from purchases p where p.content_id = "content"."id"
          and (p.status in ('paid', 'disputed') or (p.status = 'pending' and p.created_at > ${now - CHECKOUT_MAY_STILL_PAY_MS})))`,
      ),
    )
    .limit(200);
  for (const c of candidates) {
    const keys = [c.fileKey, c.previewKey].filter((k): k is string => !!k);
    if (keys.length) await bucket.delete(keys);
    await db.update(content).set({ fileKey: null, previewImageKey: null }).where(eq(content.id, c.id));
    if (c.fileKey)
      await db.delete(uploads).where(and(eq(uploads.objectKey, c.fileKey), isNotNull(uploads.completedAt)));
  }
  return candidates.length;
}
