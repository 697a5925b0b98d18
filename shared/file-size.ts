// The largest upload and how a file's size is shown (spec §5), without zod: the landing's island
// (web/site/landing.ts) uses them too (docs/uploads.md, docs/pages.md).
export const MAX_UPLOAD_BYTES = 5 * 1024 ** 3;

/** Size as spec §5 shows it: Bytes/KB/MB/GB with two decimals. */
export function formatFileSize(bytes: number): string {
  if (bytes === 0) return "0 Bytes";
  const units = ["Bytes", "KB", "MB", "GB"];
  const i = Math.min(units.length - 1, Math.floor(Math.log(bytes) / Math.log(1024)));
  return `${parseFloat((bytes / 1024 ** i).toFixed(2))} ${units[i]}`;
}
