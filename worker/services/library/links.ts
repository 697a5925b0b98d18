// The library's one-time sign-in links: stored by the token's hash only, valid LIBRARY_LINK_MINUTES,
// used up once by an atomic conditional UPDATE. Behaviour: docs/library.md.
import { and, eq, gt, isNull } from "drizzle-orm";
import { LIBRARY_LINK_MINUTES } from "../../../shared/library";
import type { Db } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { libraryTokens } from "../../db/schema";
import { newToken, sha256Hex } from "../../lib/ids";
import type { EmailJob } from "../mail/templates";

const LINK_TTL_MS = LIBRARY_LINK_MINUTES * 60 * 1000;
/** A mailbox gets at most this many links per TTL window, so the form cannot be used to flood it. */
export const LIBRARY_LINKS_PER_WINDOW = 5;

/**
 * Stores a token for `email` and returns the email job to hand to the queue, or null when the
 * mailbox had enough links. The limit is counted inside the INSERT (one statement: concurrent
 * requests cannot all pass a count taken before any of them wrote). The job carries the token, so
 * it goes to the queue directly and is never written to the email outbox.
 */
async function createLibraryLink(
  d1: D1Database,
  email: string,
  appUrl: string,
  now = Date.now(),
): Promise<{ job: EmailJob; tokenHash: string } | null> {
  const token = newToken();
  const tokenHash = await sha256Hex(token);
  const inserted = await d1
    .prepare(
      `insert into library_tokens (token_hash, email, expires_at, created_at)
       select ?1, ?2, ?3, ?4
       where (select count(*) from library_tokens where email = ?2 and created_at > ?5) < ?6
       returning token_hash`,
    )
    .bind(tokenHash, email, now + LINK_TTL_MS, now, now - LINK_TTL_MS, LIBRARY_LINKS_PER_WINDOW)
    .all();
  if (!inserted.results.length) return null;
  // In the fragment: it never reaches a server, so no request log (the Worker's own, a proxy's) holds it.
  const url = new URL("/library", appUrl);
  url.hash = `token=${token}`;
  return {
    job: { dedupeKey: `library-link:${tokenHash}`, to: email, template: "library-link", data: { url: url.toString() } },
    tokenHash,
  };
}

/** The link could not be handed to the queue: it never existed, and does not count against the limit. */
async function dropLibraryLink(db: Db, tokenHash: string): Promise<void> {
  await db.delete(libraryTokens).where(and(eq(libraryTokens.tokenHash, tokenHash), isNull(libraryTokens.usedAt)));
}

/**
 * "Email me a sign-in link", the one place both the API and the page's plain form post send it: a
 * token stored and its email handed straight to the queue, not the outbox (the job holds the token
 * itself, which is stored nowhere). 503 when the queue refused it; nothing is then left behind.
 */
export async function sendLibraryLink(
  env: { DB: D1Database; EMAILS: Queue },
  db: Db,
  email: string,
  appUrl: string,
): Promise<void> {
  const link = await createLibraryLink(env.DB, email, appUrl);
  if (!link) return;
  try {
    await env.EMAILS.send(link.job);
  } catch (err) {
    console.error("library link not queued", err);
    await dropLibraryLink(db, link.tokenHash);
    throw new ApiError(503, "We could not send the email just now. Please try again in a moment.");
  }
}

/** Uses a token up and answers its email; a second, concurrent, expired or unknown use gets null. */
export async function redeemLibraryLink(db: Db, token: string, now = new Date()): Promise<string | null> {
  const row = await db
    .update(libraryTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(libraryTokens.tokenHash, await sha256Hex(token)),
        isNull(libraryTokens.usedAt),
        gt(libraryTokens.expiresAt, now),
      ),
    )
    .returning({ email: libraryTokens.email })
    .get();
  return row?.email ?? null;
}
