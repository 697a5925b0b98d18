// Sign-in by emailed link: a one-time token, stored hashed, valid for 15 minutes.
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { loginTokens } from "../db/schema";
import { newToken, sha256Hex } from "../lib/ids";
import type { EmailJob } from "./mail/templates";

const LOGIN_LINK_TTL_MS = 15 * 60 * 1000;
// A mailbox gets at most this many links per TTL window, so the form cannot be used to spam it.
const LOGIN_LINKS_PER_WINDOW = 5;

export type LoginLinkRequest = { email: string; returnTo: string; appUrl: string; browserKey: string };

/**
 * Stores a token and returns the email job to enqueue, or null when the mailbox had enough links.
 * The limit is checked inside the INSERT (one statement, so concurrent requests cannot all pass a
 * count taken before any of them wrote). The job carries the token itself, so it is never written
 * to the email outbox: only the token's hash is ever stored.
 */
export async function createLoginLink(
  d1: D1Database,
  req: LoginLinkRequest,
): Promise<{ job: EmailJob; tokenHash: string } | null> {
  const now = Date.now();
  const token = newToken();
  const tokenHash = await sha256Hex(token);
  const inserted = await d1
    .prepare(
      `insert into login_tokens (token_hash, email, return_to, browser_hash, expires_at, created_at)
       select ?1, ?2, ?3, ?4, ?5, ?6
       where (select count(*) from login_tokens where email = ?2 and created_at > ?7) < ?8
       returning token_hash`,
    )
    .bind(
      tokenHash,
      req.email,
      req.returnTo,
      await sha256Hex(req.browserKey),
      now + LOGIN_LINK_TTL_MS,
      now,
      now - LOGIN_LINK_TTL_MS,
      LOGIN_LINKS_PER_WINDOW,
    )
    .all();
  if (!inserted.results.length) return null;
  const url = new URL("/api/auth/email/callback", req.appUrl);
  url.searchParams.set("token", token);
  return {
    job: { dedupeKey: `login:${tokenHash}`, to: req.email, template: "login-link", data: { url: url.toString() } },
    tokenHash,
  };
}

/** The link could not be handed to the queue: it never existed, and does not count against the limit. */
export async function dropLoginLink(db: Db, tokenHash: string): Promise<void> {
  await db.delete(loginTokens).where(and(eq(loginTokens.tokenHash, tokenHash), isNull(loginTokens.usedAt)));
}

/** A usable token's email and requesting browser, without using it up (a GET must not consume it). */
export async function peekLoginToken(
  db: Db,
  token: string,
): Promise<{ email: string; browserHash: string | null } | null> {
  if (!token || token.length > 100) return null;
  const row = await db
    .select({ email: loginTokens.email, browserHash: loginTokens.browserHash })
    .from(loginTokens)
    .where(
      and(
        eq(loginTokens.tokenHash, await sha256Hex(token)),
        isNull(loginTokens.usedAt),
        gt(loginTokens.expiresAt, new Date()),
      ),
    )
    .get();
  return row ?? null;
}

/** Redeems a token once: the conditional UPDATE is atomic, so a second or concurrent use gets null. */
export async function redeemLoginToken(db: Db, token: string): Promise<{ email: string; returnTo: string } | null> {
  if (!token || token.length > 100) return null;
  const now = new Date();
  const row = await db
    .update(loginTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(loginTokens.tokenHash, await sha256Hex(token)),
        isNull(loginTokens.usedAt),
        gt(loginTokens.expiresAt, now),
      ),
    )
    .returning({ email: loginTokens.email, returnTo: loginTokens.returnTo })
    .get();
  return row ?? null;
}
