// The request context every route shares (AppEnv: the D1 client and who is calling), the guards
// requireUser and requireAdmin, and the app's URL and cookie settings. See docs/security.md.
import { createMiddleware } from "hono/factory";
import type { ApiKeyScope } from "../../shared/developer";
import type { Db } from "../db/client";
import { getCurrentUser } from "../services/users";
import type { Bindings } from "../lib/env";
import { forbidden, unauthorized } from "../lib/errors";
import type { AuthenticatedKey } from "../services/api-keys";

/**
 * Who is calling: a browser with a session cookie (and when that session signed in), or an API key
 * with its scopes (worker/middleware/api-key-auth.ts); null when signed out.
 */
export type Caller =
  | { kind: "session"; signedInAt: number }
  | { kind: "key"; keyId: string; scopes: readonly ApiKeyScope[] }
  | null;

export type AppEnv = {
  Bindings: Bindings;
  Variables: { db: Db; userId: string | null; caller: Caller; apiKey?: AuthenticatedKey };
};

/** 401 unless a session is present; handlers after it may read `c.var.userId` as a string. */
export const requireUser = createMiddleware<{ Bindings: Bindings; Variables: { db: Db; userId: string } }>(
  async (c, next) => {
    if (!c.var.userId) throw unauthorized();
    await next();
  },
);

/** 401 when signed out, 403 unless the user's email is ADMIN_EMAIL. */
export const requireAdmin = createMiddleware<{ Bindings: Bindings; Variables: { db: Db; userId: string } }>(
  async (c, next) => {
    if (!c.var.userId) throw unauthorized();
    const user = await getCurrentUser(c.var.db, c.var.userId, c.env.ADMIN_EMAIL);
    if (!user?.isAdmin) throw forbidden();
    await next();
  },
);

/** The site's public origin, from configuration: never from the Host header, which a caller controls. */
export const appUrl = (env: Bindings) => env.APP_URL;

/** Secure cookies everywhere but plain-http localhost, where browsers would drop them. */
export function cookieIsSecure(requestUrl: string): boolean {
  const url = new URL(requestUrl);
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1" || url.hostname === "[::1]";
  return !(url.protocol === "http:" && local);
}
