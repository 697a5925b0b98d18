// Creators' content: publishing (with its file and preview image in R2), the creator's list, the
// public detail a buyer sees before paying, and soft deletion. Views are counted in ./content-views.ts;
// deleted items' bytes are purged by ./content-purge.ts. See docs/uploads.md.
import { dollarsField } from "../../shared/money";
import { and, desc, eq, inArray, isNull, sum } from "drizzle-orm";
import {
  contentFormSchema,
  type Availability,
  type ContentFormValues,
  type CreatorContent,
  type PublicContent,
  type PublicContentFields,
  type UpdateContentInput,
} from "../../shared/content";
import type { Db } from "../db/client";
import { content, creatorProfiles, ledgerDaily, salesDaily, uploads, users } from "../db/schema";
import { ApiError, describeZodError, notFound } from "../lib/errors";
import { imageDimensions } from "../lib/images";
import { newId } from "../lib/ids";
import { creatorBump, publicBump } from "./funnels/bumps";
import { ownUpload } from "./uploads";
import { creatorColumns, toPublicCreator } from "./profile";

type ContentRow = typeof content.$inferSelect;

export type FileSource = { kind: "inline"; file: File } | { kind: "upload"; uploadId: string } | { kind: "none" };
export type PreviewImage = { bytes: Uint8Array; type: string } | null;

// A replaced image gets a new key, and its address carries the key's tail: the image is cached for a
// day by address, so the new one must have a new address.
const previewUrl = (row: Pick<ContentRow, "id" | "previewImageKey">) => {
  if (!row.previewImageKey) return null;
  const version = row.previewImageKey.startsWith(`previews/${row.id}-`)
    ? `?v=${row.previewImageKey.slice(`previews/${row.id}-`.length)}`
    : "";
  return `/api/content/${row.id}/preview-image${version}`;
};

const availability = (row: Pick<ContentRow, "isUpsell" | "unpublishedAt">): Availability =>
  row.unpublishedAt ? "unpublished" : row.isUpsell ? "upsell_only" : "on_sale";

/** The fields of an item anyone may see; cents become dollars. */
function publicFields(row: ContentRow): PublicContentFields {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    price: row.priceCents / 100,
    pricingModel: row.pricingModel,
    minimumPrice: row.minimumPriceCents === null ? null : row.minimumPriceCents / 100,
    category: row.category,
    accessType: row.accessType,
    fileName: row.fileName,
    fileSize: row.fileSize,
    previewImage: previewUrl(row),
    createdAt: row.createdAt.toISOString(),
  };
}

const UPLOAD_REMOVED =
  "This upload was removed because it was not published within 7 days. Please upload the file again.";

export async function createContent(
  db: Db,
  bucket: R2Bucket,
  userId: string,
  values: ContentFormValues,
  source: FileSource,
  preview: PreviewImage,
  { upsellOnly = false }: { upsellOnly?: boolean } = {},
): Promise<CreatorContent> {
  const id = newId(12);
  let file: { key: string; name: string; size: number; type: string } | null = null;

  if (source.kind === "upload") {
    const upload = await ownUpload(db, userId, source.uploadId);
    if (upload.status === "removed") throw new ApiError(410, UPLOAD_REMOVED);
    if (upload.status !== "completed") throw new ApiError(409, "The file upload has not finished yet");
    const taken = await db.select({ id: content.id }).from(content).where(eq(content.fileKey, upload.objectKey)).get();
    if (taken) throw new ApiError(409, "This upload is already published");
    file = { key: upload.objectKey, name: upload.fileName, size: upload.sizeBytes, type: upload.contentType };
  } else if (source.kind === "inline") {
    const key = `files/${userId}/${id}`;
    const type = source.file.type || "application/octet-stream";
    await bucket.put(key, source.file, { httpMetadata: { contentType: type } });
    file = { key, name: source.file.name || "file", size: source.file.size, type };
  }

  let previewKey: string | null = null;
  const previewSize = preview ? imageDimensions(preview.bytes) : null;
  if (preview) {
    previewKey = `previews/${id}`;
    await bucket.put(previewKey, preview.bytes, { httpMetadata: { contentType: preview.type } });
  }

  const row: typeof content.$inferInsert = {
    id,
    userId,
    title: values.title,
    description: values.description,
    priceCents: values.priceCents,
    pricingModel: values.pricingModel,
    minimumPriceCents: values.minimumPriceCents,
    category: values.category,
    accessType: values.accessType,
    fileKey: file?.key ?? null,
    fileName: file?.name ?? null,
    fileSize: file?.size ?? null,
    fileContentType: file?.type ?? null,
    previewImageKey: previewKey,
    previewImageType: preview?.type ?? null,
    previewImageWidth: previewSize?.width ?? null,
    previewImageHeight: previewSize?.height ?? null,
    linkUrl: values.linkUrl ?? null,
    textContent: values.textContent ?? null,
    isUpsell: upsellOnly,
    issueLicenseKeys: values.issueLicenseKeys,
    licenseActivationLimit: values.licenseActivationLimit,
  };
  try {
    await db.insert(content).values(row);
  } catch (err) {
    // Two publishes of one finished upload raced: the unique file key lets only one through.
    if (
      source.kind === "upload" &&
      /UNIQUE constraint failed: content\.file_key/.test(String((err as { cause?: unknown }).cause ?? err))
    ) {
      throw new ApiError(409, "This upload is already published");
    }
    throw err;
  }
  if (source.kind === "upload") {
    // The daily sweep removes a finished upload that no item uses, in one statement that checks for
    // the item. If it ran between our check above and this insert, the upload is gone now: take the
    // item back rather than publish a file that no longer exists. (After the insert the sweep leaves it.)
    const still = await db
      .select({ status: uploads.status })
      .from(uploads)
      .where(eq(uploads.objectKey, row.fileKey!))
      .get();
    if (still?.status !== "completed") {
      await db.delete(content).where(and(eq(content.id, id), eq(content.userId, userId)));
      if (previewKey) await bucket.delete(previewKey);
      throw new ApiError(410, UPLOAD_REMOVED);
    }
  }
  const created = (await listCreatorContent(db, userId, id))[0];
  if (!created) throw new Error("content vanished after insert");
  return created;
}

/**
 * The creator's own items (or one of them), newest first, with unlocks and earnings. The figures are
 * two grouped reads of the creator's rollups (sales_daily's unlocks; ledger_daily's earning kinds),
 * a row per day and item, so their cost does not grow with sales (docs/money.md "Rollups").
 */
export async function listCreatorContent(db: Db, userId: string, onlyId?: string): Promise<CreatorContent[]> {
  const [rows, unlocked, earned] = await db.batch(creatorContentQueries(db, userId, onlyId));
  const unlocks = new Map(unlocked.map((u) => [u.contentId, Number(u.n ?? 0)]));
  const earnings = new Map(earned.map((e) => [e.contentId, Number(e.cents ?? 0)]));
  return rows.map((row) => ({
    ...publicFields(row),
    upsellOnly: row.isUpsell,
    published: !row.unpublishedAt,
    linkUrl: row.linkUrl,
    textContent: row.textContent,
    unlockCount: unlocks.get(row.id) ?? 0,
    totalEarnings: (earnings.get(row.id) ?? 0) / 100,
    issueLicenseKeys: row.issueLicenseKeys,
    activationLimit: row.licenseActivationLimit,
    checkoutReminders: row.checkoutReminders,
    bump: creatorBump(row),
  }));
}

/** The statements behind `listCreatorContent`: the items, their unlocks, their earnings (GET /dev/explain prints their plans). */
export function creatorContentQueries(db: Db, userId: string, onlyId?: string) {
  return [
    db
      .select()
      .from(content)
      .where(and(eq(content.userId, userId), isNull(content.deletedAt), onlyId ? eq(content.id, onlyId) : undefined))
      .orderBy(desc(content.createdAt)),
    db
      .select({ contentId: salesDaily.contentId, n: sum(salesDaily.unlocks) })
      .from(salesDaily)
      .where(and(eq(salesDaily.creatorId, userId), onlyId ? eq(salesDaily.contentId, onlyId) : undefined))
      .groupBy(salesDaily.contentId),
    db
      .select({ contentId: ledgerDaily.contentId, cents: sum(ledgerDaily.cents) })
      .from(ledgerDaily)
      .where(
        and(
          eq(ledgerDaily.userId, userId),
          inArray(ledgerDaily.kind, ["sale", "refund", "dispute", "fee_adjustment"]),
          onlyId ? eq(ledgerDaily.contentId, onlyId) : undefined,
        ),
      )
      .groupBy(ledgerDaily.contentId),
  ] as const;
}

/** What anyone may see before paying. Deleted items are gone from here. */
export async function publicContent(
  db: Db,
  id: string,
): Promise<(PublicContent & { creatorId: string; previewImageSize: { width: number; height: number } | null }) | null> {
  if (!/^[A-Za-z0-9]{1,32}$/.test(id)) return null;
  const found = await db
    .select({ row: content, firstName: users.firstName, creator: creatorColumns })
    .from(content)
    .innerJoin(users, eq(users.id, content.userId))
    .leftJoin(creatorProfiles, eq(creatorProfiles.userId, content.userId))
    .where(and(eq(content.id, id), isNull(content.deletedAt)))
    .get();
  if (!found) return null;
  const { previewImageWidth: width, previewImageHeight: height } = found.row;
  return {
    ...publicFields(found.row),
    user: { firstName: found.firstName },
    creator: toPublicCreator(found.creator),
    availability: availability(found.row),
    bump: await publicBump(db, found.row),
    creatorId: found.row.userId,
    previewImageSize: width && height && found.row.previewImageKey ? { width, height } : null,
  };
}

/**
 * Edits a live item in place: same id, same /p/{id}. The whole form is checked by the publish rules,
 * with the item's current file standing for the file unless a finished upload replaces it. The row
 * changes in one conditional update (the owner's, not deleted); only after it names the new file and
 * image are the old objects removed, so the item is never without its file and a buyer's next
 * download is the new one (downloads read the row's file key each time). Purchases keep their own
 * amount, so a price change applies to checkouts started after it.
 */
export async function updateContent(
  db: Db,
  bucket: R2Bucket,
  userId: string,
  id: string,
  input: UpdateContentInput,
  preview: PreviewImage | undefined,
): Promise<CreatorContent> {
  const row = await db
    .select()
    .from(content)
    .where(and(eq(content.id, id), eq(content.userId, userId), isNull(content.deletedAt)))
    .get();
  if (!row) throw notFound("Content not found");
  const parsed = contentFormSchema.safeParse({
    title: input.title ?? row.title,
    description: input.description ?? row.description,
    price: input.price ?? (row.pricingModel === "fixed" ? dollarsField(row.priceCents / 100) : undefined),
    pricingModel: input.pricingModel ?? row.pricingModel,
    minimumPrice:
      input.minimumPrice ?? (row.minimumPriceCents === null ? undefined : dollarsField(row.minimumPriceCents / 100)),
    category: input.category ?? row.category,
    accessType: input.accessType ?? row.accessType,
    linkUrl: input.linkUrl ?? row.linkUrl ?? undefined,
    textContent: input.textContent ?? row.textContent ?? undefined,
    hasFile: !!input.uploadId || !!row.fileKey,
    issueLicenseKeys: input.issueLicenseKeys === undefined ? row.issueLicenseKeys : input.issueLicenseKeys,
    activationLimit:
      input.activationLimit === undefined
        ? (row.licenseActivationLimit ?? undefined)
        : (input.activationLimit ?? undefined),
  });
  if (!parsed.success) throw new ApiError(400, describeZodError(parsed.error).replace(/^\w+: /, ""));
  const values = parsed.data;

  let file: { key: string; name: string; size: number; type: string } | null = null;
  if (input.uploadId) {
    const upload = await ownUpload(db, userId, input.uploadId);
    if (upload.status === "removed") throw new ApiError(410, UPLOAD_REMOVED);
    if (upload.status !== "completed") throw new ApiError(409, "The file upload has not finished yet");
    if (upload.objectKey !== row.fileKey) {
      const taken = await db
        .select({ id: content.id })
        .from(content)
        .where(eq(content.fileKey, upload.objectKey))
        .get();
      if (taken) throw new ApiError(409, "This upload is already published");
      file = { key: upload.objectKey, name: upload.fileName, size: upload.sizeBytes, type: upload.contentType };
    }
  }

  let previewKey = row.previewImageKey;
  let previewSize =
    row.previewImageWidth && row.previewImageHeight
      ? { width: row.previewImageWidth, height: row.previewImageHeight }
      : null;
  if (preview !== undefined) {
    previewKey = preview ? `previews/${id}-${newId(8)}` : null;
    previewSize = preview ? imageDimensions(preview.bytes) : null;
    if (preview && previewKey)
      await bucket.put(previewKey, preview.bytes, { httpMetadata: { contentType: preview.type } });
  }

  let updated: { id: string }[];
  try {
    updated = await db
      .update(content)
      .set({
        title: values.title,
        description: values.description,
        priceCents: values.priceCents,
        pricingModel: values.pricingModel,
        minimumPriceCents: values.minimumPriceCents,
        category: values.category,
        accessType: values.accessType,
        linkUrl: values.linkUrl ?? null,
        textContent: values.textContent ?? null,
        issueLicenseKeys: values.issueLicenseKeys,
        licenseActivationLimit: values.licenseActivationLimit,
        ...(file ? { fileKey: file.key, fileName: file.name, fileSize: file.size, fileContentType: file.type } : {}),
        ...(preview !== undefined
          ? {
              previewImageKey: previewKey,
              previewImageType: preview?.type ?? null,
              previewImageWidth: previewSize?.width ?? null,
              previewImageHeight: previewSize?.height ?? null,
            }
          : {}),
      })
      // The file key read above: an edit racing another replacement fails rather than orphan a file.
      .where(
        and(
          eq(content.id, id),
          eq(content.userId, userId),
          isNull(content.deletedAt),
          row.fileKey ? eq(content.fileKey, row.fileKey) : isNull(content.fileKey),
        ),
      )
      .returning({ id: content.id });
  } catch (err) {
    if (previewKey && previewKey !== row.previewImageKey) await bucket.delete(previewKey);
    if (file && /UNIQUE constraint failed: content\.file_key/.test(String((err as { cause?: unknown }).cause ?? err))) {
      throw new ApiError(409, "This upload is already published");
    }
    throw err;
  }
  if (updated.length === 0) {
    if (previewKey && previewKey !== row.previewImageKey) await bucket.delete(previewKey);
    throw new ApiError(409, "The item changed meanwhile. Please reload and try again.");
  }
  if (file) {
    // As at publish: the daily sweep may have removed the upload between the check above and the
    // update (it removes only uploads no item uses, in one statement). Then the item takes its old
    // file back, whose object is still there: it is never left without a file.
    const still = await db
      .select({ status: uploads.status })
      .from(uploads)
      .where(eq(uploads.objectKey, file.key))
      .get();
    if (still?.status !== "completed") {
      await db
        .update(content)
        .set({
          fileKey: row.fileKey,
          fileName: row.fileName,
          fileSize: row.fileSize,
          fileContentType: row.fileContentType,
        })
        .where(and(eq(content.id, id), eq(content.fileKey, file.key)));
      throw new ApiError(410, UPLOAD_REMOVED);
    }
  }
  // The new file and image are attached: the old ones are nobody's now.
  const stale = [file && row.fileKey, preview !== undefined && row.previewImageKey].filter((k): k is string => !!k);
  if (stale.length) await bucket.delete(stale);
  const edited = (await listCreatorContent(db, userId, id))[0];
  if (!edited) throw new Error("content vanished after update");
  return edited;
}

/** Takes the owner's item off sale, or puts it back. Buyers keep access either way. */
export async function setPublished(db: Db, userId: string, id: string, published: boolean): Promise<CreatorContent> {
  const changed = await db
    .update(content)
    .set({ unpublishedAt: published ? null : new Date() })
    .where(and(eq(content.id, id), eq(content.userId, userId), isNull(content.deletedAt)))
    .returning({ id: content.id });
  if (changed.length === 0) throw notFound("Content not found");
  return (await listCreatorContent(db, userId, id))[0]!;
}

/** Soft delete by the owner. Bytes stay for buyers; the daily sweep removes them once nobody needs them. */
export async function deleteContent(db: Db, userId: string, id: string): Promise<void> {
  const deleted = await db
    .update(content)
    .set({ deletedAt: new Date() })
    .where(and(eq(content.id, id), eq(content.userId, userId), isNull(content.deletedAt)))
    .returning({ id: content.id });
  if (deleted.length === 0) throw notFound("Content not found");
}

export async function previewImage(db: Db, bucket: R2Bucket, id: string): Promise<R2ObjectBody | null> {
  // A deleted item's image goes with it (404), like its page and detail.
  const row = await db
    .select({ key: content.previewImageKey })
    .from(content)
    .where(and(eq(content.id, id), isNull(content.deletedAt)))
    .get();
  if (!row?.key) return null;
  return bucket.get(row.key);
}
