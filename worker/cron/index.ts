// Scheduled work. The monthly run starts the period's payout Workflow; the daily sweep clears stale
// state. Each job is idempotent, since Cron Triggers may fire more than once.
import { lt, or, isNotNull } from "drizzle-orm";
import { createDb } from "../db/client";
import { adminAudit, libraryTokens, loginTokens } from "../db/schema";
import type { Bindings } from "../lib/env";
import { purgeDeletedContentBytes } from "../services/content-purge";
import { sweepCardTesting } from "../services/purchases/card-testing";
import { sweepUnansweredRefundRequests } from "../services/refunds/creator-refunds";
import { purchaseDepsOf } from "../deps";
import { closingPeriod } from "../services/payouts/period";
import { stuckPayoutIds } from "../services/payouts/transfer-rail";
import { startPayoutRun } from "../workflows/payout-run";
import { startPayoutSends } from "../workflows/payout-send";
import { sweepOutbox } from "../services/mail/email-outbox";
import { sweepWebhooks } from "../services/webhooks/delivery";
import { purgeWebhookHistory } from "../services/webhooks/limits";
import { sealPlainSecrets, secretBox } from "../services/webhooks/secrets";
import { rebookVoidedProPeriods } from "../services/subscriptions";
import { deliverTaxReversals } from "../services/tax/reversals";
import { abortStaleUploads, removeUnpublishedUploads } from "../services/uploads";

export const MONTHLY_PAYOUT_CRON = "0 2 1 * *";
const DAILY_SWEEP_CRON = "30 3 * * *";
const OUTBOX_SWEEP_CRON = "*/5 * * * *";

/**
 * Every 5 minutes: email jobs that never reached the queue, or that the queue gave up on, go again;
 * so do webhook deliveries whose message was lost. Each on its own: one failing leaves the other.
 */
async function outboxSweep(env: Bindings, now = Date.now()) {
  const [emails, webhooks, refunds, taxReversals] = await Promise.allSettled([
    sweepOutbox(env.DB, env.EMAILS, now),
    sweepWebhooks(env.DB, env.WEBHOOKS, now),
    sweepUnansweredRefundRequests(purchaseDepsOf(env), now),
    deliverTaxReversals(purchaseDepsOf(env), now),
  ]);
  if (webhooks.status === "rejected") console.error("webhook sweep failed", webhooks.reason);
  if (refunds.status === "rejected") console.error("refund request sweep failed", refunds.reason);
  if (taxReversals.status === "rejected") console.error("tax reversal sweep failed", taxReversals.reason);
  if (emails.status === "rejected") throw emails.reason;
  return {
    ...emails.value,
    webhooks: webhooks.status === "fulfilled" ? webhooks.value : { error: String(webhooks.reason) },
    refundRequests: refunds.status === "fulfilled" ? refunds.value : { error: String(refunds.reason) },
    taxReversals: taxReversals.status === "fulfilled" ? taxReversals.value : { error: String(taxReversals.reason) },
  };
}

export async function dailySweep(env: Bindings, now = Date.now()) {
  const db = createDb(env.DB);
  const day = 24 * 3600 * 1000;
  const deleted = await db
    .delete(loginTokens)
    .where(or(lt(loginTokens.expiresAt, new Date(now - day)), isNotNull(loginTokens.usedAt)))
    .returning({ h: loginTokens.tokenHash });
  // Library links: kept a day (the per-mailbox limit counts the last 15 minutes), then gone with their address.
  await db.delete(libraryTokens).where(lt(libraryTokens.createdAt, new Date(now - day)));
  // Money first, and each job on its own: one that throws (an R2 error, say) is logged and the
  // others still run, so a stuck payout is never left without its re-drive.
  const job = async <T>(name: string, fn: () => Promise<T>): Promise<T | { error: string }> => {
    try {
      return await fn();
    } catch (err) {
      console.error("daily sweep job failed", name, err);
      return { error: String((err as Error)?.message ?? err) };
    }
  };
  const stuckPayoutsResent = await job("stuckPayoutsResent", async () =>
    startPayoutSends(
      env.PAYOUT_SEND,
      await stuckPayoutIds({ d1: env.DB }, now),
      new Date(now).toISOString().slice(0, 10).replaceAll("-", ""),
    ),
  );
  const voidedProPeriodsRebooked = await job("voidedProPeriodsRebooked", () => rebookVoidedProPeriods(env.DB, now));
  return {
    loginTokensDeleted: deleted.length,
    staleUploadsAborted: await job("staleUploadsAborted", () => abortStaleUploads(db, env.FILES, now)),
    unpublishedUploadsRemoved: await job("unpublishedUploadsRemoved", () =>
      removeUnpublishedUploads(env.DB, env.FILES, now),
    ),
    deletedContentPurged: await job("deletedContentPurged", () => purgeDeletedContentBytes(db, env.FILES, now)),
    voidedProPeriodsRebooked,
    stuckPayoutsResent,
    webhookHistoryPurged: await job("webhookHistoryPurged", () => purgeWebhookHistory(env.DB, now)),
    webhookSecretsSealed: await job("webhookSecretsSealed", () => sealPlainSecrets(env.DB, secretBox(env))),
    // Emails, card fingerprints and address hashes of card-testing checks are not kept past their use.
    cardTestingSwept: await job("cardTestingSwept", () => sweepCardTesting(env.DB, now)),
  };
}

/**
 * 02:00 UTC on the 1st (PAYOUT_SCHEDULE_TEXT): start the run of the month that just closed, as of
 * this moment (PayoutRunWorkflow: prepare, skip records, then each bank transfer as its own retried
 * send). Manual methods wait for the admin. A repeated trigger joins the instance that exists.
 */
async function monthlyPayoutRun(env: Bindings, now = Date.now()) {
  const period = closingPeriod(now);
  const run = await startPayoutRun(env, period, now, true);
  await createDb(env.DB)
    .insert(adminAudit)
    .values({
      action: "scheduled-payout-run",
      periodYear: period.year,
      periodMonth: period.month,
      detail: JSON.stringify(run),
      createdAt: new Date(now),
    });
  return run;
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
