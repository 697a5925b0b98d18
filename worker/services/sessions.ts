// Sessions in KV. The cookie holds a random token; KV is keyed by its SHA-256, so a leaked KV
// listing does not hand out live sessions.
import { newToken, sha256Hex } from "../lib/ids";

export const SESSION_COOKIE = "aw_session";
export const DEFAULT_SESSION_TTL_SECONDS = 60 * 60 * 24 * 30;

/** `firstSignIn`: this sign-in created the account (the dashboard says "Welcome", not "Welcome back"). */
type SessionRecord = { userId: string; createdAt: number; firstSignIn?: boolean };

const key = async (token: string) => `session:${await sha256Hex(token)}`;

export async function createSession(
  kv: KVNamespace,
  userId: string,
  ttlSeconds: number,
  opts: { firstSignIn?: boolean } = {},
): Promise<string> {
  const token = newToken();
  const record: SessionRecord = { userId, createdAt: Date.now(), ...(opts.firstSignIn ? { firstSignIn: true } : {}) };
  await kv.put(await key(token), JSON.stringify(record), { expirationTtl: ttlSeconds });
  return token;
}

export async function readSession(kv: KVNamespace, token: string | undefined): Promise<SessionRecord | null> {
  if (!token || token.length > 100) return null;
  return kv.get<SessionRecord>(await key(token), "json");
}

export async function deleteSession(kv: KVNamespace, token: string | undefined): Promise<void> {
  if (token && token.length <= 100) await kv.delete(await key(token));
}
