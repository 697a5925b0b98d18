// zod validation for every input, answering 400 with a message that names what is wrong, and the
// guard in front of every body the API reads: a size limit, UTF-8, and JSON that is an object.
import type { Context, ValidationTargets } from "hono";
import { createMiddleware } from "hono/factory";
import { validator } from "hono-openapi";
import type { ZodType, z } from "zod";
import { ApiError, describeIssues, describeZodError } from "./errors";

/**
 * Validates one part of the request with a shared zod schema. hono-openapi's validator is Hono's
 * own validator that also records the schema on the route, so the same schema the route checks is
 * the one the OpenAPI document shows (worker/openapi/document.ts): they cannot drift apart.
 */
export const validate = <T extends ZodType, Target extends keyof ValidationTargets>(target: Target, schema: T) =>
  validator(target, schema, (result) => {
    if (!result.success) throw new ApiError(400, describeIssues(result.error));
  });

/**
 * A JSON body that may be left out (a bare POST): no body is `{}`; a body is checked like
 * `validate("json", …)`. The guard below has already refused bodies that are not JSON objects.
 */
export async function optionalJson<T extends ZodType>(c: Context, schema: T): Promise<z.output<T>> {
  const text = await c.req.text();
  const type = c.req.header("content-type") ?? "";
  if (text.trim() !== "" && !JSON_TYPE.test(type)) throw new ApiError(415, "Send the body as application/json");
  const parsed = schema.safeParse(text.trim() === "" ? {} : JSON.parse(text));
  if (!parsed.success) throw new ApiError(400, describeZodError(parsed.error));
  return parsed.data;
}

/** The largest JSON body any API call takes (the longest text field, feedback's, is 5,000 characters). */
const MAX_JSON_BYTES = 64 * 1024;
/** Stripe's events are a few KB; a subscription or invoice with many lines stays well under this. */
const MAX_WEBHOOK_BYTES = 512 * 1024;
/** 'Process All Payouts' names the manual payouts of the admin's list: up to 10,000 ids of at most 64 characters. */
const MAX_MARK_PAID_BYTES = 768 * 1024;
/**
 * Editing an item (PATCH /api/content/{id}) carries its preview image as a data URL (5 MB is about
 * 6.7 MB of base64) and its text (100,000 characters, up to 4 bytes each).
 */
const MAX_CONTENT_EDIT_BYTES = 7 * 1024 * 1024 + 400 * 1024 + 64 * 1024;
/** No request body the API takes nests deeper than a few levels. */
const MAX_DEPTH = 16;

const JSON_TYPE = /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i;

const BODY_TOO_LARGE = (limit: number) => `The request body is too large (at most ${Math.round(limit / 1024)} KB)`;
const NOT_AN_OBJECT = "The request body must be a JSON object";
const UNPAIRED_SURROGATE = "Text must be valid Unicode (it contains an unpaired UTF-16 surrogate)";

/** Paths whose bodies are streamed or limited by their own route: file parts, the publish form and the avatar. */
const ownLimit = (method: string, path: string) =>
  (method === "PUT" && /^\/api\/uploads\/[^/]+\/parts\/[^/]+$/.test(path)) ||
  (method === "POST" && path === "/api/content") ||
  (method === "PUT" && path === "/api/profile/avatar");

/**
 * How much of a body refused for its size is still read (and dropped) before the 413 goes out:
 * Cloudflare's largest request body on the Free and Pro plans.
 */
const DRAIN_MAX_BYTES = 100 * 1024 * 1024;

/**
 * Reads the rest of a refused body and drops it, up to DRAIN_MAX_BYTES (then cancels it). Under
 * `wrangler dev` an answer sent while the client is still uploading is lost: workerd's link from
 * the dev entry to the app reports "Network connection lost", and the client gets a 500 or a reset
 * instead of the 413. Cloudflare's edge delivers the 413 either way; reading costs wall time, next
 * to no CPU. A client that goes away meanwhile ends it.
 */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, seen: number): Promise<void> {
  try {
    for (let size = seen; size <= DRAIN_MAX_BYTES; ) {
      const { done, value } = await reader.read();
      if (done) return;
      size += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client stopped sending: nothing more to read.
  }
}

/**
 * The 413 of a route with its own limit (Hono's bodyLimit `onError`), sent after draining the body
 * as bodyGuard does. A body bodyLimit already began reading (no Content-Length) is locked to it and
 * is not drained: browsers declare the length of forms and files.
 */
export async function refuseTooLarge(req: Request, message: string): Promise<never> {
  if (req.body && !req.body.locked) await drain(req.body.getReader(), 0);
  throw new ApiError(413, message);
}

/** Reads at most `limit` bytes of the body: a bigger one is refused as soon as it is known to be (drained first). */
async function readCapped(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await drain(reader, size);
      throw new ApiError(413, BODY_TOO_LARGE(limit));
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (text: string) => !LONE_SURROGATE.test(text);

/**
 * Walks a parsed JSON value without recursion: too deep, or a string with a lone surrogate, is
 * refused, naming the field (`returnTo: Text must be…`) as the schemas' own messages do.
 */
function checkJsonValue(value: unknown): void {
  const stack: [unknown, number, string][] = [[value, 0, ""]];
  const named = (path: string, message: string) => (path ? `${path}: ${message}` : message);
  while (stack.length > 0) {
    const [v, depth, path] = stack.pop()!;
    if (typeof v === "string") {
      if (!wellFormed(v)) throw new ApiError(400, named(path, UNPAIRED_SURROGATE));
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth >= MAX_DEPTH) throw new ApiError(400, "The request body is nested too deeply");
    for (const [key, child] of Object.entries(v)) {
      if (!wellFormed(key)) throw new ApiError(400, named(path, UNPAIRED_SURROGATE));
      stack.push([child, depth + 1, Array.isArray(v) ? `${path}[${key}]` : path ? `${path}.${key}` : key]);
    }
  }
}

/**
 * Every body sent to /api and /dev (but file parts and the publish form, which have their own
 * limits): at most MAX_JSON_BYTES (the webhook MAX_WEBHOOK_BYTES), else 413 (the rest drained, not parsed). A JSON
 * body must be UTF-8 (415 for another charset), parse (400), be an object (400 for null, arrays and
 * scalars) and hold only well-formed text (400). The bytes are kept for the route to read again.
 */
export const bodyGuard = createMiddleware(async (c, next) => {
  const method = c.req.method;
  if (method === "GET" || method === "HEAD" || method === "OPTIONS" || ownLimit(method, c.req.path)) return next();
  const limit =
    c.req.path === "/api/stripe/webhook"
      ? MAX_WEBHOOK_BYTES
      : c.req.path === "/api/admin/process-payouts"
        ? MAX_MARK_PAID_BYTES
        : method === "PATCH" && /^\/api\/content\/[^/]+$/.test(c.req.path)
          ? MAX_CONTENT_EDIT_BYTES
          : MAX_JSON_BYTES;
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    if (c.req.raw.body) await drain(c.req.raw.body.getReader(), 0);
    throw new ApiError(413, BODY_TOO_LARGE(limit));
  }
  const bytes = c.req.raw.body ? await readCapped(c.req.raw.body, limit) : new Uint8Array(0);
  // Hono keeps each body read as a promise (its type says otherwise); routes read these bytes again.
  const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
  const type = c.req.header("content-type") ?? "";
  if (JSON_TYPE.test(type) && bytes.byteLength > 0) {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1]?.toLowerCase();
    if (charset && charset !== "utf-8" && charset !== "utf8") throw new ApiError(415, "Send JSON as UTF-8");
    let text: string;
    try {
      // A byte order mark is kept, so JSON.parse refuses it with the other malformed bodies.
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new ApiError(400, "The request body is not valid UTF-8");
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError(400, "Malformed JSON in request body");
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new ApiError(400, NOT_AN_OBJECT);
    checkJsonValue(value);
    cache.text = Promise.resolve(text);
  }
  cache.arrayBuffer = Promise.resolve(bytes.buffer as ArrayBuffer);
  await next();
});
