// Who is calling /api: an API key (`Authorization: Bearer aw_…`) or the session cookie, never both.
// A request that carries a Bearer token is judged by the key alone: the cookie is not read, so a
// wrong or revoked key is a 401 even in a signed-in browser, and such a request cannot be a cookie-
// borne cross-site forgery (a page on another site cannot add an Authorization header without a
// CORS preflight, which this API never grants). That is why the CSRF guard in app.ts lets Bearer
// requests through (`hasBearer`), while every cookie request keeps the guard.
import type { Context } from "hono";
import { API_KEY_MESSAGES } from "../../shared/developer";
import { scopeForRoute } from "./api-key-scopes";
import { findActiveKey, recordDenied, recordUsed, touchKey } from "../services/api-keys";
import type { AppEnv } from "./context";
import { ApiError } from "../lib/errors";
import { sha256Hex } from "../lib/ids";
import { clientKey, limitOrThrow } from "../lib/rate-limit";

const INVALID_API_KEY = "Invalid or revoked API key";

/** The token of an `Authorization: Bearer …` header (maybe empty), or null when there is none. */
export function bearerToken(authorization: string | undefined): string | null {
  const m = /^\s*bearer(?:\s+(.*))?$/i.exec(authorization ?? "");
  return m ? (m[1] ?? "").trim() : null;
}

export const hasBearer = (c: Context) => bearerToken(c.req.header("authorization")) !== null;

/**
 * Authenticates `token` as an API key for this request: 401 unless it is an active key, 429 past
 * the key's rate limit, 403 (and a `used_denied` audit row) when the route is not open to keys or
 * needs a scope the key lacks. Sets `userId` and `caller` for the routes.
 */
export async function authenticateApiKey(c: Context<AppEnv>, token: string, apiPath: string): Promise<void> {
  if (token.length > 200) throw new ApiError(401, INVALID_API_KEY);
  const ip = c.req.header("cf-connecting-ip") ?? null;
  // Before any lookup: an address gets 600 Bearer calls a minute whatever keys it sends (made-up keys
  // are each a new bucket of the per-key limit), and one key (or one guessed value) 60 a minute
  // whether it exists or not.
  const client = clientKey(c);
  if (client) await limitOrThrow(c as never, "API_KEY_IP_LIMITER", `bearer:${client}`);
  await limitOrThrow(c as never, "API_KEY_LIMITER", `key:${await sha256Hex(token)}`);
  const key = await findActiveKey(c.env.DB, token);
  if (!key) throw new ApiError(401, INVALID_API_KEY);
  const method = c.req.method;
  const needed = scopeForRoute(method, apiPath);
  if (!needed || !key.scopes.includes(needed)) {
    // A scoped route first: /developer/webhooks/* is open to keys holding webhooks:write.
    const message = needed
      ? API_KEY_MESSAGES.missingScope(needed)
      : apiPath.startsWith("/developer/") || apiPath === "/developer"
        ? API_KEY_MESSAGES.keysCannotManageKeys
        : API_KEY_MESSAGES.notForKeys;
    await recordDenied(c.env.DB, key, `${method} /api${apiPath}: ${message}`, ip);
    throw new ApiError(403, message);
  }
  await touchKey(c.env.DB, key);
  c.set("userId", key.userId);
  c.set("caller", { kind: "key", keyId: key.id, scopes: key.scopes });
  c.set("apiKey", key);
}

/**
 * After a key's call: each change it made (any method but GET and HEAD that answered 2xx) is written
 * to the key's audit log, e.g. `POST /api/content → 201`. Reads are not (they move `last_used_at`).
 */
export async function auditKeyCall(c: Context<AppEnv>): Promise<void> {
  const key = c.var.apiKey;
  if (!key || c.req.method === "GET" || c.req.method === "HEAD" || c.res.status >= 300) return;
  await recordUsed(
    c.env.DB,
    key,
    `${c.req.method} ${c.req.path} → ${c.res.status}`,
    c.req.header("cf-connecting-ip") ?? null,
  );
}
