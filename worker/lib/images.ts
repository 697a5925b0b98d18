// Images: preview images and avatars are checked by their bytes, not their name (only raster formats
// browsers render as images: no SVG, which can carry script), measured for the paywall's card tags,
// and served from R2 by imageAnswer. See docs/uploads.md.
import type { Context } from "hono";

const SIGNATURES: { type: string; test: (b: Uint8Array) => boolean }[] = [
  {
    type: "image/png",
    test: (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47 && b[4] === 0x0d && b[5] === 0x0a,
  },
  { type: "image/jpeg", test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: "image/gif", test: (b) => b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38 },
  {
    type: "image/webp",
    test: (b) =>
      b[0] === 0x52 &&
      b[1] === 0x49 &&
      b[2] === 0x46 &&
      b[3] === 0x46 &&
      b[8] === 0x57 &&
      b[9] === 0x45 &&
      b[10] === 0x42 &&
      b[11] === 0x50,
  },
];

export function sniffImageType(bytes: Uint8Array): string | null {
  if (bytes.length < 12) return null;
  return SIGNATURES.find((s) => s.test(bytes))?.type ?? null;
}

/** Decodes `data:image/...;base64,...` (the funnel forms send previews this way). */
export function decodeDataUrl(value: string): Uint8Array | null {
  const match = /^data:image\/[\w.+-]+;base64,([A-Za-z0-9+/=\s]+)$/.exec(value);
  if (!match) return null;
  try {
    const bin = atob(match[1].replace(/\s/g, ""));
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/**
 * Width and height read from the image's header (PNG IHDR, GIF screen descriptor, WebP VP8/VP8L/VP8X,
 * JPEG SOFn marker), so the paywall can give og:image:width/height; null when the header is not read.
 */
export function imageDimensions(b: Uint8Array): { width: number; height: number } | null {
  const type = sniffImageType(b);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const ok = (d: { width: number; height: number }) => (d.width > 0 && d.height > 0 ? d : null);
  try {
    if (type === "image/png") return ok({ width: view.getUint32(16), height: view.getUint32(20) });
    if (type === "image/gif") return ok({ width: view.getUint16(6, true), height: view.getUint16(8, true) });
    if (type === "image/webp") {
      const chunk = String.fromCharCode(b[12], b[13], b[14], b[15]);
      if (chunk === "VP8 ")
        return ok({ width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff });
      if (chunk === "VP8L") {
        const bits = view.getUint32(21, true);
        return ok({ width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 });
      }
      if (chunk === "VP8X") {
        const w = b[24] | (b[25] << 8) | (b[26] << 16);
        const h = b[27] | (b[28] << 8) | (b[29] << 16);
        return ok({ width: w + 1, height: h + 1 });
      }
      return null;
    }
    if (type === "image/jpeg") {
      let at = 2;
      while (at + 9 < b.length) {
        if (b[at] !== 0xff) return null;
        const marker = b[at + 1];
        // SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
          return ok({ width: view.getUint16(at + 7), height: view.getUint16(at + 5) });
        }
        at += 2 + view.getUint16(at + 2);
      }
    }
  } catch {
    return null;
  }
  return null;
}

/**
 * The answer for an image kept in R2: its stored type, its ETag (a matching If-None-Match gets 304),
 * nothing in it may run (sandbox, nosniff), and other sites and mail clients may embed it.
 */
export function imageAnswer(c: Context, object: R2ObjectBody, cacheControl: string): Response {
  const etag = object.httpEtag;
  const headers = {
    "content-type": object.httpMetadata?.contentType ?? "application/octet-stream",
    "cache-control": cacheControl,
    etag,
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "cross-origin-resource-policy": "cross-origin",
  };
  if (c.req.header("if-none-match") === etag) {
    object.body.cancel();
    return c.body(null, 304, headers);
  }
  return c.body(object.body, 200, { ...headers, "content-length": String(object.size) });
}
