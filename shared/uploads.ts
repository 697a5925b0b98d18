// Uploads (docs/uploads.md): the size limits both sides enforce, how a size is shown, the request
// that starts a multipart upload and what the Worker says about one, so a browser can resume it.
import { z } from "zod";
import { publicId } from "./answers";
import { MAX_UPLOAD_BYTES } from "./file-size";

// The size limit and how a size is shown live in a module without zod (the landing's island uses them).
export { formatFileSize, MAX_UPLOAD_BYTES } from "./file-size";

/** Multipart uploads: every part but the last is exactly this size (R2 needs equal parts ≥ 5 MiB). */
export const UPLOAD_PART_SIZE = 10 * 1024 * 1024;
/** Files up to this size may travel inline in the POST /api/content form instead of a multipart upload. */
export const MAX_INLINE_FILE_BYTES = 8 * 1024 * 1024;
export const MAX_PREVIEW_IMAGE_BYTES = 5 * 1024 * 1024;
/** Unfinished uploads older than this are aborted by the daily sweep. */
export const STALE_UPLOAD_MS = 24 * 60 * 60 * 1000;
/** Finished uploads that no item uses are removed (file and record) this long after they finished. */
export const UNPUBLISHED_UPLOAD_MS = 7 * 24 * 60 * 60 * 1000;
/** Uploads one creator may have in progress at once (a page uploads one file at a time; this leaves room for tabs). */
export const MAX_OPEN_UPLOADS = 5;
/** Bytes of uploaded files one creator may keep (in progress, finished or published): 50 GB, Pro 250 GB. */
export const MAX_STORED_BYTES = 50 * 1024 ** 3;
export const MAX_STORED_BYTES_PRO = 250 * 1024 ** 3;

export const createUploadSchema = z.object({
  fileName: z.string().trim().min(1, "fileName is required").max(255, "fileName must be at most 255 characters"),
  size: z
    .number({ error: "size must be a number of bytes" })
    .int("size must be a whole number of bytes")
    .positive("size must be more than 0 bytes")
    .max(MAX_UPLOAD_BYTES, "File is larger than the 5 GB limit"),
  contentType: z
    .string()
    .max(255)
    .regex(/^[\w.+-]+\/[\w.+-]+$|^$/, "contentType must be a MIME type")
    .default(""),
});
export type CreateUploadInput = z.input<typeof createUploadSchema>;

/** What the Worker says about an upload, so a browser can resume it. */
export const uploadStateSchema = z.object({
  id: publicId,
  fileName: z.string(),
  size: z.number().int(),
  partSize: z.number().int(),
  partCount: z.number().int(),
  status: z.enum(["uploading", "completing", "completed", "aborted", "removed"]),
  uploadedParts: z.array(z.number().int()),
});
export type UploadState = z.infer<typeof uploadStateSchema>;
export const uploadedPartSchema = z.object({ partNumber: z.number().int(), size: z.number().int() });
