// Creators' API keys: `aw_{live|test}_` + 32 random bytes, shown once; the database keeps only the
// SHA-256. Create and revoke are each one D1 batch with their api_key_events row; the active-key limit
// is counted inside the INSERT; use moves `last_used_at` at most once a minute and logs refused calls.
// Behaviour (and why SHA-256, not a slow hash): docs/api-and-webhooks.md ("API keys").
import {
  API_KEY_MESSAGES,
  MAX_ACTIVE_API_KEYS,
  type ApiKeyEvent,
  type ApiKeyScope,
  type ApiKeySummary,
  type CreatedApiKey,
  type DeveloperOverview,
} from "../../shared/developer";
import { ApiError } from "../lib/errors";
import { newId, newToken, sha256Hex } from "../lib/ids";

const API_KEY_PREFIX_CHARS = 12;
const LAST_USED_GRANULARITY_MS = 60_000;
const EVENTS_SHOWN = 20;

/** `live` only where APP_ENV is production, so a key says at a glance which deployment it opens. */
export const keyEnvTag = (appEnv: string | undefined) => (appEnv === "production" ? "live" : "test");

const looksLikeApiKey = (token: string) => /^aw_(live|test)_[A-Za-z0-9_-]{43}$/.test(token);

type KeyRow = {
  id: string;
  name: string;
  prefix: string;
  scopes: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
};

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function summary(r: KeyRow): ApiKeySummary {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    scopes: JSON.parse(r.scopes) as ApiKeyScope[],
    createdAt: iso(r.created_at)!,
    lastUsedAt: iso(r.last_used_at),
    revokedAt: iso(r.revoked_at),
  };
}

export async function createApiKey(
  d1: D1Database,
  input: {
    userId: string;
    name: string;
    scopes: ApiKeyScope[];
    envTag: "live" | "test";
    ip: string | null;
    now?: number;
  },
): Promise<CreatedApiKey> {
  const now = input.now ?? Date.now();
  const id = newId();
  const secret = `aw_${input.envTag}_${newToken()}`;
  const prefix = secret.slice(0, API_KEY_PREFIX_CHARS);
  const scopes = JSON.stringify(input.scopes);
  const [inserted] = await d1.batch([
    d1
      .prepare(
        `insert into api_keys (id, user_id, name, scopes, prefix, hash, created_at)
         select ?1, ?2, ?3, ?4, ?5, ?6, ?7
         where (select count(*) from api_keys where user_id = ?2 and revoked_at is null) < ?8`,
      )
      .bind(id, input.userId, input.name, scopes, prefix, await sha256Hex(secret), now, MAX_ACTIVE_API_KEYS),
    d1
      .prepare(
        `insert into api_key_events (id, key_id, user_id, action, ip, at)
         select 'created:' || ?1, ?1, ?2, 'created', ?3, ?4 where exists (select 1 from api_keys where id = ?1)
         on conflict do nothing`,
      )
      .bind(id, input.userId, input.ip, now),
  ]);
  if (!inserted.meta.changes) throw new ApiError(409, API_KEY_MESSAGES.tooMany);
  return {
    ...summary({ id, name: input.name, prefix, scopes, created_at: now, last_used_at: null, revoked_at: null }),
    key: secret,
  };
}

/** Keys (active first, newest first; never a secret) and the latest audit events, of one creator. */
export async function developerOverview(d1: D1Database, userId: string): Promise<DeveloperOverview> {
  const [keys, events] = await d1.batch<Record<string, unknown>>([
    d1
      .prepare(
        `select id, name, prefix, scopes, created_at, last_used_at, revoked_at from api_keys
         where user_id = ? order by revoked_at is not null, created_at desc, id`,
      )
      .bind(userId),
    d1
      .prepare(
        `select e.id, e.key_id, k.name as key_name, e.action, e.detail, e.ip, e.at from api_key_events e
         join api_keys k on k.id = e.key_id and k.user_id = e.user_id
         where e.user_id = ? order by e.at desc, e.id limit ?`,
      )
      .bind(userId, EVENTS_SHOWN),
  ]);
  return {
    keys: (keys.results as KeyRow[]).map(summary),
    events: (
      events.results as {
        id: string;
        key_id: string;
        key_name: string;
        action: ApiKeyEvent["action"];
        detail: string | null;
        ip: string | null;
        at: number;
      }[]
    ).map((e) => ({
      id: e.id,
      keyId: e.key_id,
      keyName: e.key_name,
      action: e.action,
      detail: e.detail,
      ip: e.ip,
      at: new Date(e.at).toISOString(),
    })),
  };
}

/** Revokes one of the creator's keys; null when no such key is theirs (a 404, never a hint it exists). */
export async function revokeApiKey(
  d1: D1Database,
  userId: string,
  keyId: string,
  ip: string | null,
  now = Date.now(),
): Promise<ApiKeySummary | null> {
  await d1.batch([
    d1
      .prepare("update api_keys set revoked_at = ?3 where id = ?1 and user_id = ?2 and revoked_at is null")
      .bind(keyId, userId, now),
    d1
      .prepare(
        `insert into api_key_events (id, key_id, user_id, action, ip, at)
         select 'revoked:' || ?1, ?1, ?2, 'revoked', ?3, ?4 where exists (select 1 from api_keys where id = ?1 and user_id = ?2 and revoked_at is not null)
         on conflict do nothing`,
      )
      .bind(keyId, userId, ip, now),
  ]);
  const row = await d1
    .prepare(
      "select id, name, prefix, scopes, created_at, last_used_at, revoked_at from api_keys where id = ? and user_id = ?",
    )
    .bind(keyId, userId)
    .first<KeyRow>();
  return row ? summary(row) : null;
}

/** The creator's newest active key (its name and stored prefix), for the API reference; null if none. */
export async function newestActiveKey(
  d1: D1Database,
  userId: string,
): Promise<{ name: string; prefix: string } | null> {
  return d1
    .prepare(
      "select name, prefix from api_keys where user_id = ? and revoked_at is null order by created_at desc, id desc limit 1",
    )
    .bind(userId)
    .first<{ name: string; prefix: string }>();
}

export type AuthenticatedKey = { id: string; userId: string; scopes: ApiKeyScope[]; lastUsedAt: number | null };

/** The active key whose hash matches `secret`, or null (unknown, malformed or revoked). */
export async function findActiveKey(d1: D1Database, secret: string): Promise<AuthenticatedKey | null> {
  if (!looksLikeApiKey(secret)) return null;
  const row = await d1
    .prepare("select id, user_id, scopes, last_used_at from api_keys where hash = ? and revoked_at is null")
    .bind(await sha256Hex(secret))
    .first<{ id: string; user_id: string; scopes: string; last_used_at: number | null }>();
  return row
    ? { id: row.id, userId: row.user_id, scopes: JSON.parse(row.scopes) as ApiKeyScope[], lastUsedAt: row.last_used_at }
    : null;
}

/** Moves `last_used_at` when the value read with the key is a minute old or more; else writes nothing. */
export async function touchKey(d1: D1Database, key: AuthenticatedKey, now = Date.now()): Promise<void> {
  if (key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_GRANULARITY_MS) return;
  await d1
    .prepare("update api_keys set last_used_at = ?2 where id = ?1 and (last_used_at is null or last_used_at <= ?3)")
    .bind(key.id, now, now - LAST_USED_GRANULARITY_MS)
    .run();
}

/**
 * Records a call the key was refused (a route not for keys, or a scope it lacks): at most one row per
 * key, refusal and minute (the id says which), so a key hammering a closed route cannot grow the log
 * by more than one row a minute per route.
 */
export async function recordDenied(
  d1: D1Database,
  key: AuthenticatedKey,
  detail: string,
  ip: string | null,
  now = Date.now(),
): Promise<void> {
  const text = detail.slice(0, 200);
  await d1
    .prepare(
      "insert into api_key_events (id, key_id, user_id, action, detail, ip, at) values (?, ?, ?, 'used_denied', ?, ?, ?) on conflict do nothing",
    )
    .bind(
      `denied:${key.id}:${(await sha256Hex(text)).slice(0, 16)}:${Math.floor(now / 60_000)}`,
      key.id,
      key.userId,
      text,
      ip,
      now,
    )
    .run();
}

/** Records a change a key made (worker/middleware/api-key-auth.ts auditKeyCall): one row per call, at most the key's rate limit. */
export async function recordUsed(
  d1: D1Database,
  key: AuthenticatedKey,
  detail: string,
  ip: string | null,
  now = Date.now(),
): Promise<void> {
  await d1
    .prepare(
      "insert into api_key_events (id, key_id, user_id, action, detail, ip, at) values (?, ?, ?, 'used', ?, ?, ?)",
    )
    .bind(`used:${newId()}`, key.id, key.userId, detail.slice(0, 200), ip, now)
    .run();
}
