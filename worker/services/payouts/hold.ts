// Holding a creator's payouts, and releasing them. While held no money leaves for them (HOLD_PROMISE in
// shared/admin.ts): the runs skip them, Withdraw now refuses, the transfer rail makes no transfer and
// a manual payout cannot be marked paid. Each change is one D1 batch with the creator's email (held:
// why to ask support; released) in the outbox, so the email exists exactly when the change committed.
// A release sends at once the transfers that waited. Behaviour: docs/money.md ("The admin dashboard").
import { eq } from "drizzle-orm";
import type { CreatorHoldResult } from "../../../shared/admin";
import { payoutSettings, users } from "../../db/schema";
import { notFound } from "../../lib/errors";
import { dispatch, outboxInsert } from "../mail/email-outbox";
import { audit } from "./admin";
import type { Actor, PayoutDeps } from "./deps";
import { sendPayout } from "./transfer-rail";

const holdView = (s: { heldAt: Date | null; heldReason: string | null } | undefined): CreatorHoldResult["held"] =>
  s?.heldAt ? { at: s.heldAt.toISOString(), reason: s.heldReason } : null;

async function creatorOf(deps: PayoutDeps, userId: string) {
  const u =
    userId.length <= 64
      ? await deps.db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId)).get()
      : undefined;
  if (!u) throw notFound("Creator not found");
  return u;
}

const links = (deps: PayoutDeps) => ({
  settingsUrl: new URL("/settings", deps.appUrl).toString(),
  supportUrl: new URL("/feedback", deps.appUrl).toString(),
});

const settingsOf = (deps: PayoutDeps, userId: string) =>
  deps.db.select().from(payoutSettings).where(eq(payoutSettings.userId, userId)).get();

/** Hold a creator's payouts: set only when not held (a repeat keeps the first hold and its reason). */
export async function holdCreator(
  deps: PayoutDeps,
  actor: Actor,
  userId: string,
  reason: string,
  now = Date.now(),
): Promise<CreatorHoldResult> {
  const u = await creatorOf(deps, userId);
  const key = `payouts-held:${userId}:${now}`;
  const [held] = await deps.d1.batch([
    deps.d1
      .prepare(
        `insert into payout_settings (user_id, held_at, held_reason) values (?1, ?2, ?3)
         on conflict (user_id) do update set held_at = excluded.held_at, held_reason = excluded.held_reason
         where payout_settings.held_at is null
         returning user_id`,
      )
      .bind(userId, now, reason),
    // Only when this press made the hold (held_at is its own time).
    outboxInsert(deps.d1, { dedupeKey: key, to: u.email, template: "payouts-held", data: links(deps) }, now, {
      sql: "exists (select 1 from payout_settings where user_id = ? and held_at = ?)",
      binds: [userId, now],
    }),
  ]);
  const changed = (held.results?.length ?? 0) > 0;
  if (changed) await dispatch(deps.d1, deps.emails, [key], now);
  await audit(deps, actor, "creator-hold", null, { userId, reason, changed }, now);
  return { changed, userId, held: holdView(await settingsOf(deps, userId)) };
}

/** Release a held creator: cleared only when held; the transfers that waited are sent now, the next run pays them again. */
export async function releaseCreator(
  deps: PayoutDeps,
  actor: Actor,
  userId: string,
  now = Date.now(),
): Promise<CreatorHoldResult> {
  const u = await creatorOf(deps, userId);
  const heldAt = (await settingsOf(deps, userId))?.heldAt?.getTime() ?? null;
  let changed = false;
  if (heldAt !== null) {
    // Keyed by the hold it ends: two presses at once release it once and email once.
    const key = `payouts-released:${userId}:${heldAt}`;
    const [released] = await deps.d1.batch([
      deps.d1
        .prepare(
          "update payout_settings set held_at = null, held_reason = null where user_id = ? and held_at = ? returning user_id",
        )
        .bind(userId, heldAt),
      // No transfer reads "On hold" once released, even before its send below answers.
      deps.d1
        .prepare(
          "update payouts set retry_code = null where user_id = ? and status = 'processing' and retry_code = 'held' and exists (select 1 from payout_settings where user_id = ? and held_at is null)",
        )
        .bind(userId, userId),
      outboxInsert(deps.d1, { dedupeKey: key, to: u.email, template: "payouts-released", data: links(deps) }, now, {
        sql: "not exists (select 1 from payout_settings where user_id = ? and held_at = ?)",
        binds: [userId, heldAt],
      }),
    ]);
    changed = (released.results?.length ?? 0) > 0;
    if (changed) {
      await dispatch(deps.d1, deps.emails, [key], now);
      await sendWaiting(deps, userId, now);
    }
  }
  await audit(deps, actor, "creator-release", null, { userId, changed }, now);
  return { changed, userId, held: holdView(await settingsOf(deps, userId)) };
}

/**
 * The creator's transfers that waited for the hold go out now (as Re-send does: sendPayout resumes
 * each from what Stripe says); each also keeps its retrying owner (startSend joins or starts it).
 */
async function sendWaiting(deps: PayoutDeps, userId: string, now: number) {
  const { results } = await deps.d1
    .prepare(
      "select id from payouts where user_id = ? and stripe_account_id is not null and status in ('pending', 'processing')",
    )
    .bind(userId)
    .all<{ id: string }>();
  for (const { id } of results) {
    try {
      if ((await sendPayout(deps, id, now)) === "retry_later") await deps.startSend(id);
    } catch (err) {
      console.warn("a payout that waited for the hold was not sent now; its send retries it", id, err);
    }
  }
}
