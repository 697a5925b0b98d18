// Serving a purchased file from R2: Range (206/416), conditional requests (304), and headers that
// keep user files from ever running as a page or script in the app's origin.
import { parseRange } from "../lib/range";

// Types a browser may show inline (viewer, player). Everything else is a download.
const INLINE_SAFE = /^(image\/(png|jpeg|gif|webp|avif)|video\/[\w.+-]+|audio\/[\w.+-]+|application\/pdf|text\/plain)$/;

const contentDisposition = (kind: "inline" | "attachment", fileName: string) => {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
};

export async function serveFile(
  bucket: R2Bucket,
  key: string,
  file: { name: string; type: string | null },
  request: Request,
  disposition: "inline" | "attachment",
): Promise<Response> {
  const head = await bucket.head(key);
  if (!head)
    return new Response(JSON.stringify({ message: "File not found" }), {
      status: 404,
      headers: { "content-type": "application/json" },
    });
  const declared = (file.type || head.httpMetadata?.contentType || "application/octet-stream").toLowerCase();
  const inline = disposition === "inline" && INLINE_SAFE.test(declared);
  const headers = new Headers({
    // Anything not shown inline is opaque bytes: a download is never a script or page of this origin.
    "content-type": inline ? declared : "application/octet-stream",
    "content-disposition": contentDisposition(inline ? "inline" : "attachment", file.name),
    "accept-ranges": "bytes",
    "cache-control": "private, max-age=0, must-revalidate",
    etag: head.httpEtag,
    "last-modified": head.uploaded.toUTCString(),
    "x-content-type-options": "nosniff",
    "cross-origin-resource-policy": "same-origin",
    // PDF viewers do not work in a sandbox; every other type is sandboxed with no script.
    "content-security-policy":
      declared === "application/pdf"
        ? "default-src 'none'; object-src 'self'; plugin-types application/pdf"
        : "sandbox; default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'",
  });

  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch?.split(",").some((t) => t.trim() === head.httpEtag || t.trim() === "*")) {
    return new Response(null, { status: 304, headers });
  }
  // A Range with If-Range naming another version gets the whole (new) file.
  const ifRange = request.headers.get("if-range");
  const rangeHeader = ifRange && ifRange !== head.httpEtag ? undefined : (request.headers.get("range") ?? undefined);
  const range = parseRange(rangeHeader, head.size);
  if (range === "unsatisfiable") {
    headers.set("content-range", `bytes */${head.size}`);
    return new Response(null, { status: 416, headers });
  }
  if (range) headers.set("content-range", `bytes ${range.offset}-${range.offset + range.length - 1}/${head.size}`);
  if (request.method === "HEAD") {
    headers.set("content-length", String(range ? range.length : head.size));
    return new Response(null, { status: range ? 206 : 200, headers });
  }
  const object = await bucket.get(key, range ? { range } : undefined);
  if (!object) return new Response(null, { status: 404 });
  if (range) {
    headers.set("content-length", String(range.length));
    return new Response(object.body, { status: 206, headers });
  }
  headers.set("content-length", String(head.size));
  return new Response(object.body, { status: 200, headers });
}
