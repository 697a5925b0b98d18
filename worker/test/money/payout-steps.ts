// The payout run's steps in a row, in this invocation, with the caller's deps and `now`: what
// PayoutRunWorkflow calls (every preparePage page, then every dueTransferPage page), what each
// PayoutSendWorkflow instance calls (sendPayoutStep, its first attempt: a transfer Stripe did not
// settle stays processing with next_retry_at) and, with `markPaid`, what 'Process All Payouts' calls
// for the admin's list (markManualPaid). For tests that need a failing queue, a crashing Stripe or a
// chosen clock; the Workflows themselves are driven by payout-workflow.test.ts and the cron tests.
import { markManualPaid } from "../../services/payouts/manual-rail";
import type { PayoutDeps } from "../../services/payouts/deps";
import { assertPeriodEnded, preparesPeriod, type Period } from "../../services/payouts/period";
import { preparePage } from "../../services/payouts/prepare";
import { dueTransferPage, sendPayoutStep, TransferNotSettled } from "../../services/payouts/transfer-rail";

export type StepsResult = {
  prepared: number;
  skipped: number;
  sent: number;
  failed: number;
  retryLater: number;
  markedProcessed: number;
};

export async function runPayoutSteps(
  deps: PayoutDeps,
  period: Period,
  opts: { now?: number; markPaid?: string[] } = {},
): Promise<StepsResult> {
  const now = opts.now ?? Date.now();
  assertPeriodEnded(period, now);
  const out: StepsResult = { prepared: 0, skipped: 0, sent: 0, failed: 0, retryLater: 0, markedProcessed: 0 };
  if (preparesPeriod(period, now)) {
    for (let after: string | null = ""; after !== null; ) {
      const page = await preparePage(deps, period, now, after);
      out.prepared += page.prepared;
      out.skipped += page.skipped;
      after = page.next;
    }
  }
  for (let after = ""; ; ) {
    const due = await dueTransferPage(deps, period, after);
    if (!due.length) break;
    await Promise.all(
      due.map(async (id) => {
        try {
          const outcome = await sendPayoutStep(deps, id, 1, now);
          if (outcome === "paid") out.sent++;
          else if (outcome === "failed") out.failed++;
        } catch (err) {
          if (!(err instanceof TransferNotSettled)) throw err;
          out.retryLater++;
        }
      }),
    );
    after = due[due.length - 1];
  }
  if (opts.markPaid?.length) out.markedProcessed = (await markManualPaid(deps, period, opts.markPaid, now)).length;
  return out;
}
