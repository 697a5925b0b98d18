// Sign-in by emailed link: a one-time token, stored hashed, valid for 15 minutes.
import { and, count, eq, gt, isNull } from "drizzle-orm";
import type { Db } from "../db/client";
import { loginTokens } from "../db/schema";
import { newToken, sha256Hex } from "../lib/ids";
import type { EmailJob } from "./mail/templates";

export const LOGIN_LINK_TTL_MS = 15 * 60 * 1000;
// A mailbox gets at most this many links per TTL window, so the form cannot be used to spam it.
export const LOGIN_LINKS_PER_WINDOW = 5;

export type LoginLinkRequest = { email: string; returnTo: string; appUrl: string; browserKey: string };

/** Stores a token and returns the email job to enqueue, or null when the mailbox had enough links. */
export async function createLoginLink(db: Db, req: LoginLinkRequest): Promise<EmailJob | null> {
  const now = Date.now();
  const recent = await db
    .select({ n: count() })
    .from(loginTokens)
    .where(and(eq(loginTokens.email, req.email), gt(loginTokens.createdAt, new Date(now - LOGIN_LINK_TTL_MS))))
    .get();
  if ((recent?.n ?? 0) >= LOGIN_LINKS_PER_WINDOW) return null;

  const token = newToken();
  const tokenHash = await sha256Hex(token);
  await db.insert(loginTokens).values({
    tokenHash,
    email: req.email,
    returnTo: req.returnTo,
    browserHash: await sha256Hex(req.browserKey),
    expiresAt: new Date(now + LOGIN_LINK_TTL_MS),
  });
  const url = new URL("/api/auth/email/callback", req.appUrl);
  url.searchParams.set("token", token);
  return { dedupeKey: `login:${tokenHash}`, to: req.email, template: "login-link", data: { url: url.toString() } };
}

/** A usable token's email and requesting browser, without using it up (a GET must not consume it). */
export async function peekLoginToken(db: Db, token: string): Promise<{ email: string; browserHash: string | null } | null> {
  if (!token || token.length > 100) return null;
  const row = await db
    .select({ email: loginTokens.email, browserHash: loginTokens.browserHash })
    .from(loginTokens)
    .where(and(eq(loginTokens.tokenHash, await sha256Hex(token)), isNull(loginTokens.usedAt), gt(loginTokens.expiresAt, new Date())))
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
    .where(and(eq(loginTokens.tokenHash, await sha256Hex(token)), isNull(loginTokens.usedAt), gt(loginTokens.expiresAt, now)))
    .returning({ email: loginTokens.email, returnTo: loginTokens.returnTo })
    .get();
  return row ?? null;
}
