// Multipart uploads to R2, tracked in D1 so a browser can resume by sending only missing parts; part
// bodies stream from the request straight into R2. An upload's row is its state machine (TRANSITIONS
// below): every change is one conditional UPDATE from the state it expects, made before the R2 call it
// guards, so of complete and abort the first to claim wins and no object is left unaccounted for.
// Behaviour: docs/uploads.md ("Uploads").
import { and, asc, eq, lt } from "drizzle-orm";
import {
  MAX_OPEN_UPLOADS,
  MAX_STORED_BYTES,
  MAX_STORED_BYTES_PRO,
  STALE_UPLOAD_MS,
  UNPUBLISHED_UPLOAD_MS,
  UPLOAD_PART_SIZE,
} from "../../shared/uploads";
import type { UploadState } from "../../shared/uploads";
import type { Db } from "../db/client";
import { uploadParts, uploads } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { newId } from "../lib/ids";

type UploadRow = typeof uploads.$inferSelect;

const partCountFor = (size: number) => Math.max(1, Math.ceil(size / UPLOAD_PART_SIZE));

/** Every part but the last is UPLOAD_PART_SIZE; the last holds the rest. */
function expectedPartSize(upload: Pick<UploadRow, "sizeBytes" | "partSize" | "partCount">, partNumber: number): number {
  return partNumber < upload.partCount ? upload.partSize : upload.sizeBytes - upload.partSize * (upload.partCount - 1);
}

type UploadStatus = UploadRow["status"];

/** The upload state machine: the only moves any code makes (each one conditional UPDATE). */
const TRANSITIONS: Record<UploadStatus, readonly UploadStatus[]> = {
  uploading: ["completing", "aborted"],
  // Back to uploading when R2 refuses the completion for a reason the client can fix (a part again).
  completing: ["completed", "uploading", "aborted"],
  completed: ["removed"],
  aborted: [],
  removed: [],
};

/** Moves `id` from `from` to `to` if it is still in `from`; whether this call made the move. */
async function transition(
  db: Db,
  id: string,
  from: UploadStatus,
  to: UploadStatus,
  extra: Partial<UploadRow> = {},
): Promise<boolean> {
  if (!TRANSITIONS[from].includes(to)) throw new Error(`upload ${id}: no move from ${from} to ${to}`);
  const moved = await db
    .update(uploads)
    .set({ ...extra, status: to })
    .where(and(eq(uploads.id, id), eq(uploads.status, from)))
    .returning({ id: uploads.id });
  return moved.length > 0;
}

const GB = 1024 ** 3;
const OPEN = "status in ('uploading', 'completing')";
const STORED = "status in ('uploading', 'completing', 'completed')";

export async function createUpload(
  db: Db,
  d1: D1Database,
  bucket: R2Bucket,
  userId: string,
  input: { fileName: string; size: number; contentType: string },
) {
  const id = newId();
  const objectKey = `files/${userId}/${id}`;
  const contentType = input.contentType || "application/octet-stream";
  const plan = await d1.prepare("select plan from users where id = ?").bind(userId).first<{ plan: string }>();
  const maxBytes = plan?.plan === "pro" ? MAX_STORED_BYTES_PRO : MAX_STORED_BYTES;
  // The quotas are checked inside the INSERT, so concurrent creates cannot all pass one count.
  const inserted = await d1
    .prepare(
      `insert into uploads (id, user_id, object_key, file_name, content_type, size_bytes, part_size, part_count, status, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'uploading', ?9
       where (select count(*) from uploads where user_id = ?2 and ${OPEN}) < ?10
         and (select coalesce(sum(size_bytes), 0) from uploads where user_id = ?2 and ${STORED}) + ?6 <= ?11
       returning id`,
    )
    .bind(
      id,
      userId,
      objectKey,
      input.fileName,
      contentType,
      input.size,
      UPLOAD_PART_SIZE,
      partCountFor(input.size),
      Date.now(),
      MAX_OPEN_UPLOADS,
      maxBytes,
    )
    .all();
  if (!inserted.results.length) {
    const open = await d1
      .prepare(`select count(*) as n from uploads where user_id = ? and ${OPEN}`)
      .bind(userId)
      .first<{ n: number }>();
    if ((open?.n ?? 0) >= MAX_OPEN_UPLOADS) {
      throw new ApiError(
        409,
        `You have ${MAX_OPEN_UPLOADS} uploads in progress. Finish or cancel one before starting another.`,
      );
    }
    throw new ApiError(
      413,
      `This file would take you past your ${maxBytes / GB} GB of storage. Delete items you no longer sell${plan?.plan === "pro" ? "" : `, or upgrade to Pro for ${MAX_STORED_BYTES_PRO / GB} GB`}.`,
    );
  }
  let multipart: R2MultipartUpload;
  try {
    multipart = await bucket.createMultipartUpload(objectKey, { httpMetadata: { contentType } });
  } catch (err) {
    await transition(db, id, "uploading", "aborted");
    throw err;
  }
  await db.update(uploads).set({ r2UploadId: multipart.uploadId }).where(eq(uploads.id, id));
  return uploadState(db, userId, id);
}

/** The upload if `userId` owns it; another user's id is indistinguishable from a missing one. */
export async function ownUpload(db: Db, userId: string, id: string): Promise<UploadRow> {
  const row = await db
    .select()
    .from(uploads)
    .where(and(eq(uploads.id, id), eq(uploads.userId, userId)))
    .get();
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

const UPLOAD_NEVER_STARTED = "This upload did not start properly. Please start it again.";

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
    throw new ApiError(
      400,
      `Part ${partNumber} must be exactly ${expected} bytes (Content-Length was ${Number.isNaN(contentLength) ? "missing" : contentLength})`,
    );
  }
  if (!body) throw new ApiError(400, "Part body is missing");
  if (!row.r2UploadId) {
    // Created in D1 but R2's multipart upload id was never recorded (the start crashed between the
    // two): nothing can be added to it. Give the slot back and say to start again.
    await transition(db, id, "uploading", "aborted");
    throw new ApiError(409, UPLOAD_NEVER_STARTED);
  }
  const multipart = bucket.resumeMultipartUpload(row.objectKey, row.r2UploadId);
  // FixedLengthStream tells R2 the length up front and errors if the body is shorter or longer.
  const sized = body.pipeThrough(new FixedLengthStream(expected));
  let part: R2UploadedPart;
  try {
    part = await multipart.uploadPart(partNumber, sized);
  } catch (err) {
    // Completed or aborted while this part travelled: say so rather than fail.
    const now = await ownUpload(db, userId, id);
    if (now.status !== "uploading") throw new ApiError(409, `Upload is ${now.status}`);
    throw err;
  }
  await db
    .insert(uploadParts)
    .values({ uploadId: id, partNumber, etag: part.etag, sizeBytes: expected })
    .onConflictDoUpdate({
      target: [uploadParts.uploadId, uploadParts.partNumber],
      set: { etag: part.etag, sizeBytes: expected },
    });
  return { partNumber, size: expected };
}

export async function completeUpload(db: Db, bucket: R2Bucket, userId: string, id: string): Promise<UploadState> {
  const row = await ownUpload(db, userId, id);
  if (row.status === "completed") return uploadState(db, userId, id);
  // completed_at holds the claim's time while completing (the sweep settles claims that crashed).
  if (
    row.status !== "uploading" ||
    !(await transition(db, id, "uploading", "completing", { completedAt: new Date() }))
  ) {
    // Another call got there first: answer what it made of the upload.
    const now = await ownUpload(db, userId, id);
    if (now.status === "completed") return uploadState(db, userId, id);
    if (now.status === "completing") throw new ApiError(409, "Upload is being completed. Ask again in a moment.");
    throw new ApiError(409, `Upload is ${now.status}`);
  }
  // Claimed: no part can be added now (uploadPart refuses anything not uploading).
  const parts = await db
    .select()
    .from(uploadParts)
    .where(eq(uploadParts.uploadId, id))
    .orderBy(asc(uploadParts.partNumber));
  const missing: number[] = [];
  const have = new Set(parts.map((p) => p.partNumber));
  for (let n = 1; n <= row.partCount; n++) if (!have.has(n)) missing.push(n);
  if (missing.length) {
    await transition(db, id, "completing", "uploading", { completedAt: null });
    throw new ApiError(
      409,
      `Upload is missing ${missing.length} part(s): ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ", …" : ""}`,
    );
  }
  let object: R2Object;
  try {
    object = await bucket
      .resumeMultipartUpload(row.objectKey, row.r2UploadId!)
      .complete(parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag })));
  } catch (err) {
    // R2 refused (a part it no longer has, an upload it expired): the client may send parts again.
    console.warn("R2 refused to complete upload", id, err);
    await transition(db, id, "completing", "uploading", { completedAt: null });
    throw new ApiError(
      409,
      "The file could not be assembled from its parts. Send the missing parts again, or start the upload again.",
    );
  }
  if (object.size !== row.sizeBytes) {
    await bucket.delete(row.objectKey);
    await transition(db, id, "completing", "aborted");
    throw new ApiError(409, "The stored file does not have the declared size. Please upload it again.");
  }
  await transition(db, id, "completing", "completed", { completedAt: new Date() });
  return uploadState(db, userId, id);
}

/**
 * Aborts an upload still in progress: the row is claimed (uploading -> aborted) before R2 is told,
 * so an abort that loses to a completion changes nothing. Returns whether this call aborted it.
 */
export async function abortUpload(db: Db, bucket: R2Bucket, row: UploadRow): Promise<boolean> {
  if (!(await transition(db, row.id, "uploading", "aborted"))) return false;
  if (row.r2UploadId) {
    try {
      await bucket.resumeMultipartUpload(row.objectKey, row.r2UploadId).abort();
    } catch (err) {
      // Already gone on R2's side (aborted or expired): the row is closed either way.
      console.warn("abort of multipart upload failed", row.id, err);
    }
  }
  await db.delete(uploadParts).where(eq(uploadParts.uploadId, row.id));
  return true;
}

// A completion holds its claim for one R2 call; one still completing after this long crashed.
const COMPLETING_STUCK_MS = 60 * 60 * 1000;

/**
 * The daily sweep: aborts uploads left unfinished for longer than STALE_UPLOAD_MS, settles
 * completions that crashed, and removes finished uploads no item uses after UNPUBLISHED_UPLOAD_MS.
 */
export async function abortStaleUploads(db: Db, bucket: R2Bucket, now = Date.now()): Promise<number> {
  const stale = await db
    .select()
    .from(uploads)
    .where(and(eq(uploads.status, "uploading"), lt(uploads.createdAt, new Date(now - STALE_UPLOAD_MS))))
    .limit(500);
  let aborted = 0;
  for (const row of stale) if (await abortUpload(db, bucket, row)) aborted++;

  const stuck = await db
    .select()
    .from(uploads)
    .where(and(eq(uploads.status, "completing"), lt(uploads.completedAt, new Date(now - COMPLETING_STUCK_MS))))
    .limit(100);
  for (const row of stuck) {
    const object = await bucket.head(row.objectKey);
    if (object?.size === row.sizeBytes)
      await transition(db, row.id, "completing", "completed", { completedAt: new Date(now) });
    else if (await transition(db, row.id, "completing", "aborted")) {
      if (object) await bucket.delete(row.objectKey);
      if (row.r2UploadId)
        await bucket
          .resumeMultipartUpload(row.objectKey, row.r2UploadId)
          .abort()
          .catch(() => undefined);
    }
  }
  return aborted;
}

/** The daily sweep: finished uploads that no item (live or deleted) uses are removed after UNPUBLISHED_UPLOAD_MS. */
export async function removeUnpublishedUploads(d1: D1Database, bucket: R2Bucket, now = Date.now()): Promise<number> {
  // The claim and the check that no item uses the file are one statement.
  const { results } = await d1
    .prepare(
      `update uploads set status = 'removed'
       where id in (select u.id from uploads u where u.status = 'completed' and u.completed_at < ?
                    and not exists (select 1 from content c where c.file_key = u.object_key) limit 200)
         and status = 'completed'
       returning id, object_key`,
    )
    .bind(now - UNPUBLISHED_UPLOAD_MS)
    .all<{ id: string; object_key: string }>();
  if (!results.length) return 0;
  await bucket.delete(results.map((r) => r.object_key));
  await d1
    .prepare("delete from upload_parts where upload_id in (select value from json_each(?))")
    .bind(JSON.stringify(results.map((r) => r.id)))
    .run();
  return results.length;
}
