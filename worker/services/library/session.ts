// The buyer's library session: its own cookie (aw_library) and its own KV records, keyed by the
// token's SHA-256 like creator sessions (../sessions.ts). It names an email only: no account, no
// creator power, and a creator session gives none of it. Behaviour: docs/library.md.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { cookieIsSecure, type AppEnv } from "../../middleware/context";
import { newToken, sha256Hex } from "../../lib/ids";

export const LIBRARY_COOKIE = "aw_library";
/** A library session lasts a week; signing in again is one emailed link. */
const LIBRARY_SESSION_TTL_SECONDS = 7 * 24 * 3600;

type LibrarySession = { email: string; createdAt: number };

const key = async (token: string) => `library:${await sha256Hex(token)}`;
const tokenOf = (c: Context<AppEnv>) => {
  const token = getCookie(c, LIBRARY_COOKIE);
  return token && /^[A-Za-z0-9_-]{20,100}$/.test(token) ? token : null;
};

/** The signed-in buyer's email, lower-cased, or null (no library cookie, or it has ended). */
export async function libraryEmailOf(c: Context<AppEnv>): Promise<string | null> {
  const token = tokenOf(c);
  if (!token) return null;
  const session = await c.env.SESSIONS.get<LibrarySession>(await key(token), "json");
  return session?.email ? session.email.toLowerCase() : null;
}

/** Signs this browser in to the library of `email` (a fresh token; any earlier one is ended). */
export async function startLibrarySession(c: Context<AppEnv>, email: string): Promise<void> {
  await endLibrarySession(c);
  const token = newToken();
  const record: LibrarySession = { email: email.toLowerCase(), createdAt: Date.now() };
  await c.env.SESSIONS.put(await key(token), JSON.stringify(record), { expirationTtl: LIBRARY_SESSION_TTL_SECONDS });
  setCookie(c, LIBRARY_COOKIE, token, {
    httpOnly: true,
    secure: cookieIsSecure(c.req.url),
    sameSite: "Lax",
    path: "/",
    maxAge: LIBRARY_SESSION_TTL_SECONDS,
  });
}

/** Signs out of the library: the KV record goes, and the cookie with it. */
export async function endLibrarySession(c: Context<AppEnv>): Promise<void> {
  const token = tokenOf(c);
  if (token) await c.env.SESSIONS.delete(await key(token));
  deleteCookie(c, LIBRARY_COOKIE, { path: "/", secure: cookieIsSecure(c.req.url) });
}
