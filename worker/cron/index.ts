// Scheduled work. The monthly run prepares and sends payouts; the daily sweep clears stale
// state. Each job is idempotent, since Cron Triggers may fire more than once.
import { lt, or, isNotNull } from "drizzle-orm";
import { createDb } from "../db/client";
import { loginTokens } from "../db/schema";
import type { Bindings } from "../lib/env";
import { purgeDeletedContentBytes } from "../services/content";
import { closingPeriod, payoutDeps, redriveStuckPayouts, runPayouts } from "../services/payouts";
import { sweepOutbox } from "../services/mail/email-outbox";
import { rebookVoidedProPeriods } from "../services/subscriptions";
import { abortStaleUploads, removeUnpublishedUploads } from "../services/uploads";

export const MONTHLY_PAYOUT_CRON = "0 2 1 * *";
export const DAILY_SWEEP_CRON = "30 3 * * *";
export const OUTBOX_SWEEP_CRON = "*/5 * * * *";

/** Every 5 minutes: email jobs that never reached the queue, or that the queue gave up on, go again. */
export async function outboxSweep(env: Bindings, now = Date.now()) {
  return sweepOutbox(env.DB, env.EMAILS, now);
}

export async function dailySweep(env: Bindings, now = Date.now()) {
  const db = createDb(env.DB);
  const day = 24 * 3600 * 1000;
  const deleted = await db
    .delete(loginTokens)
    .where(or(lt(loginTokens.expiresAt, new Date(now - day)), isNotNull(loginTokens.usedAt)))
    .returning({ h: loginTokens.tokenHash });
  return {
    loginTokensDeleted: deleted.length,
    staleUploadsAborted: await abortStaleUploads(db, env.FILES, now),
    unpublishedUploadsRemoved: await removeUnpublishedUploads(env.DB, env.FILES, now),
    deletedContentPurged: await purgeDeletedContentBytes(db, env.FILES, now),
    voidedProPeriodsRebooked: await rebookVoidedProPeriods(env.DB, now),
    stuckPayoutsRequeued: await redriveStuckPayouts(payoutDeps(env), now),
  };
}

/**
 * 02:00 UTC on the 1st (PAYOUT_SCHEDULE_TEXT): prepare the month that just closed with everything
 * available at this moment, and send the bank (connected account) payouts by transfer now. Manual
 * methods wait for the admin. A repeated or overlapping trigger is a no-op for what is done.
 */
export async function monthlyPayoutRun(env: Bindings, now = Date.now()) {
  return runPayouts(payoutDeps(env), closingPeriod(now), { now });
}

export async function handleScheduled(controller: ScheduledController, env: Bindings): Promise<void> {
  switch (controller.cron) {
    case DAILY_SWEEP_CRON:
      console.log("daily sweep", await dailySweep(env, controller.scheduledTime));
      break;
    case OUTBOX_SWEEP_CRON:
      console.log("outbox sweep", await outboxSweep(env, controller.scheduledTime));
      break;
    case MONTHLY_PAYOUT_CRON:
      console.log("monthly payout run", await monthlyPayoutRun(env, controller.scheduledTime));
      break;
    default:
      console.warn("unknown cron", controller.cron);
  }
}
