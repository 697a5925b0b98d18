// A public page's form posted without JavaScript (docs/pages.md, "Forms without JavaScript"): only
// from this site (the API's cross-site rule), a small body, and the same per-address limit and bot
// check as the API route it stands beside. With no script there is no Turnstile token, so the check
// holds the post to the strict UNVERIFIED_LIMITER, exactly as it holds an API call without a token.
import type { Context } from "hono";
import { csrf } from "hono/csrf";
import { createDb } from "../db/client";
import type { AppEnv } from "../middleware/context";
import { ApiError } from "./errors";
import { humanCheck } from "./human-check";
import { rateLimit } from "./rate-limit";

type Ctx = Context<AppEnv>;

/** A form of a few fields: anything longer is not one of ours. */
const MAX_FORM_BYTES = 16 * 1024;
const sameSiteOnly = csrf();
const TOO_LARGE: FormRefusal = { status: 413, message: "This form is too large." };

/** Why a form post was turned away: the status and the sentence the page shows. */
export type FormRefusal = { status: 403 | 413 | 429 | 503; message: string };

/**
 * The posted fields as strings (a file or a repeat is dropped), or a refusal: a cross-site post
 * (403) or a body over MAX_FORM_BYTES (413).
 */
export async function readForm(c: Ctx): Promise<{ fields: Record<string, string> } | { refused: FormRefusal }> {
  try {
    await sameSiteOnly(c, async () => {});
  } catch {
    return { refused: { status: 403, message: "This form was not sent from this site." } };
  }
  const declared = Number(c.req.header("content-length") ?? 0);
  if (declared > MAX_FORM_BYTES) {
    await c.req.raw.body?.cancel();
    return { refused: TOO_LARGE };
  }
  // Read up to the cap whatever the length said (a body sent in chunks declares none).
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = c.req.raw.body?.getReader();
  for (;;) {
    const next = await reader?.read();
    if (!next || next.done) break;
    size += next.value.byteLength;
    if (size > MAX_FORM_BYTES) {
      await reader?.cancel();
      return { refused: TOO_LARGE };
    }
    chunks.push(next.value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  const text = new TextDecoder().decode(bytes);
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return { fields: {} };
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) if (!(name in fields)) fields[name] = value;
  return { fields };
}

/** The API's limit for `scope` and its bot check, as a refusal to show instead of a JSON error. */
export async function guardForm(c: Ctx, limitScope: string, checkScope: string): Promise<FormRefusal | null> {
  c.set("db", createDb(c.env.DB));
  try {
    await rateLimit("FORMS_LIMITER", limitScope)(c as never, async () => {});
    await humanCheck(checkScope)(c as never, async () => {});
    return null;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 429 || err.status === 503))
      return { status: err.status, message: err.message };
    throw err;
  }
}

/** `page` with the cookies this request set on the context (a page response is built apart from it). */
export function withCookies(c: Ctx, page: Response): Response {
  for (const cookie of c.newResponse(null).headers.getSetCookie()) page.headers.append("set-cookie", cookie);
  return page;
}
