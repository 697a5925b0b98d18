// Multipart uploads to R2, tracked in D1 so a browser can resume by sending only missing parts.
// Part bodies stream straight from the request into R2: the Worker never holds a part in memory.
import { and, asc, eq, lt } from "drizzle-orm";
import { STALE_UPLOAD_MS, UPLOAD_PART_SIZE } from "../../shared/constants";
import type { UploadState } from "../../shared/content";
import type { Db } from "../db/client";
import { uploadParts, uploads } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { newId } from "../lib/ids";

type UploadRow = typeof uploads.$inferSelect;

export const partCountFor = (size: number) => Math.max(1, Math.ceil(size / UPLOAD_PART_SIZE));

/** Every part but the last is UPLOAD_PART_SIZE; the last holds the rest. */
export function expectedPartSize(upload: Pick<UploadRow, "sizeBytes" | "partSize" | "partCount">, partNumber: number): number {
  return partNumber < upload.partCount ? upload.partSize : upload.sizeBytes - upload.partSize * (upload.partCount - 1);
}

export async function createUpload(db: Db, bucket: R2Bucket, userId: string, input: { fileName: string; size: number; contentType: string }) {
  const id = newId();
  const objectKey = `files/${userId}/${id}`;
  const contentType = input.contentType || "application/octet-stream";
  const multipart = await bucket.createMultipartUpload(objectKey, { httpMetadata: { contentType } });
  await db.insert(uploads).values({
    id,
    userId,
    objectKey,
    r2UploadId: multipart.uploadId,
    fileName: input.fileName,
    contentType,
    sizeBytes: input.size,
    partSize: UPLOAD_PART_SIZE,
    partCount: partCountFor(input.size),
  });
  return uploadState(db, userId, id);
}

/** The upload if `userId` owns it; another user's id is indistinguishable from a missing one. */
export async function ownUpload(db: Db, userId: string, id: string): Promise<UploadRow> {
  const row = await db.select().from(uploads).where(and(eq(uploads.id, id), eq(uploads.userId, userId))).get();
  if (!row) throw notFound("Upload not found");
  return row;
}

export async function uploadState(db: Db, userId: string, id: string): Promise<UploadState> {
  const row = await ownUpload(db, userId, id);
  const parts = await db
    .select({ partNumber: uploadParts.partNumber })
    .from(uploadParts)
    .where(eq(uploadParts.uploadId, id))
    .orderBy(asc(uploadParts.partNumber));
  return {
    id: row.id,
    fileName: row.fileName,
    size: row.sizeBytes,
    partSize: row.partSize,
    partCount: row.partCount,
    status: row.status,
    uploadedParts: parts.map((p) => p.partNumber),
  };
}

export async function uploadPart(
  db: Db,
  bucket: R2Bucket,
  userId: string,
  id: string,
  partNumber: number,
  contentLength: number,
  body: ReadableStream<Uint8Array> | null,
): Promise<{ partNumber: number; size: number }> {
  const row = await ownUpload(db, userId, id);
  if (row.status !== "uploading") throw new ApiError(409, `Upload is ${row.status}`);
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > row.partCount) {
    throw new ApiError(400, `partNumber must be between 1 and ${row.partCount}`);
  }
  const expected = expectedPartSize(row, partNumber);
  // An exact length per part means no part can carry the file past its declared size.
  if (contentLength !== expected) {
    throw new ApiError(400, `Part ${partNumber} must be exactly ${expected} bytes (Content-Length was ${Number.isNaN(contentLength) ? "missing" : contentLength})`);
  }
  if (!body) throw new ApiError(400, "Part body is missing");
  const multipart = bucket.resumeMultipartUpload(row.objectKey, row.r2UploadId!);
  // FixedLengthStream tells R2 the length up front and errors if the body is shorter or longer.
  const sized = body.pipeThrough(new FixedLengthStream(expected));
  const part = await multipart.uploadPart(partNumber, sized);
  await db
    .insert(uploadParts)
    .values({ uploadId: id, partNumber, etag: part.etag, sizeBytes: expected })
    .onConflictDoUpdate({ target: [uploadParts.uploadId, uploadParts.partNumber], set: { etag: part.etag, sizeBytes: expected } });
  return { partNumber, size: expected };
}

export async function completeUpload(db: Db, bucket: R2Bucket, userId: string, id: string): Promise<UploadState> {
  const row = await ownUpload(db, userId, id);
  if (row.status === "completed") return uploadState(db, userId, id);
  if (row.status !== "uploading") throw new ApiError(409, `Upload is ${row.status}`);
  const parts = await db.select().from(uploadParts).where(eq(uploadParts.uploadId, id)).orderBy(asc(uploadParts.partNumber));
  const missing: number[] = [];
  const have = new Set(parts.map((p) => p.partNumber));
  for (let n = 1; n <= row.partCount; n++) if (!have.has(n)) missing.push(n);
  if (missing.length) {
    throw new ApiError(409, `Upload is missing ${missing.length} part(s): ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ", …" : ""}`);
  }
  const multipart = bucket.resumeMultipartUpload(row.objectKey, row.r2UploadId!);
  const object = await multipart.complete(parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag })));
  if (object.size !== row.sizeBytes) throw new ApiError(500, "Stored file size does not match the declared size");
  await db
    .update(uploads)
    .set({ status: "completed", completedAt: new Date() })
    .where(and(eq(uploads.id, id), eq(uploads.status, "uploading")));
  return uploadState(db, userId, id);
}

export async function abortUpload(db: Db, bucket: R2Bucket, row: UploadRow): Promise<void> {
  if (row.status === "uploading" && row.r2UploadId) {
    try {
      await bucket.resumeMultipartUpload(row.objectKey, row.r2UploadId).abort();
    } catch (err) {
      // Already gone on R2's side (aborted or expired): the row still has to be closed.
      console.warn("abort of multipart upload failed", row.id, err);
    }
  }
  await db.batch([
    db.update(uploads).set({ status: "aborted" }).where(and(eq(uploads.id, row.id), eq(uploads.status, "uploading"))),
    db.delete(uploadParts).where(eq(uploadParts.uploadId, row.id)),
  ]);
}

/** The daily sweep: aborts uploads left unfinished for longer than STALE_UPLOAD_MS. */
export async function abortStaleUploads(db: Db, bucket: R2Bucket, now = Date.now()): Promise<number> {
  const stale = await db
    .select()
    .from(uploads)
    .where(and(eq(uploads.status, "uploading"), lt(uploads.createdAt, new Date(now - STALE_UPLOAD_MS))))
    .limit(500);
  for (const row of stale) await abortUpload(db, bucket, row);
  return stale.length;
}
