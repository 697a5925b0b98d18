// One payout's transfer as a Workflow instance (PayoutSendWorkflow), and the one way to start it.
// The instance is one retried step, `send` (sendPayoutStep, services/payouts/transfer-rail.ts): a
// transient answer throws so Workflows retries with backoff; a definitive one returns "failed".
// Ids: `payout-{payoutId}` for the first send, `payout-{payoutId}-{tag}` for the sweep's re-drive.
// Behaviour: docs/money.md ("The monthly payout run").
import type { WorkflowEvent, WorkflowStep } from "cloudflare:workers";
import type { Bindings } from "../lib/env";
import { payoutBaseDeps, type PayoutDeps } from "../services/payouts/deps";
import { SEND_STEP_RETRY_LIMIT } from "../services/payouts/delay";
import { sendPayoutStep } from "../services/payouts/transfer-rail";

export type PayoutSendParams = { payoutId: string };

/** The send step's retries: 10 more attempts, 1, 2, 4 ... 512 minutes apart (retryDelaySeconds says the same). */
const SEND_STEP_RETRIES = { limit: SEND_STEP_RETRY_LIMIT, delay: "1 minute", backoff: "exponential" } as const;

/** PayoutSendWorkflow's run (worker/workflows/entrypoints.ts loads this module when an instance runs). */
export async function runPayoutSend(env: Bindings, event: WorkflowEvent<PayoutSendParams>, step: WorkflowStep) {
  const { payoutId } = event.payload;
  const outcome = await step.do("send", { retries: SEND_STEP_RETRIES, timeout: "5 minutes" }, async (ctx) =>
    sendPayoutStep(sendDeps(env), payoutId, ctx.attempt),
  );
  return { payoutId, outcome };
}

/** A send's own deps: what it starts (a re-prepared payout's send) is another instance of this Workflow. */
const sendDeps = (env: Bindings): PayoutDeps => ({
  ...payoutBaseDeps(env),
  startSend: (payoutId) => startPayoutSend(env, payoutId),
});

const sendInstanceId = (payoutId: string, tag?: string) => (tag ? `payout-${payoutId}-${tag}` : `payout-${payoutId}`);

/** Whether an error from Workflow.create says the instance id is taken (the create is then a no-op). */
export const alreadyExists = (err: unknown) =>
  /already exists|already_exists|duplicate/i.test(String((err as Error)?.message ?? err));

/**
 * Starts the send of each payout in `payoutIds` (one PayoutSendWorkflow instance each, in
 * createBatch calls of 100). An id already started is left as it is. Returns how many were asked for.
 */
export async function startPayoutSends(
  workflow: Workflow<PayoutSendParams>,
  payoutIds: string[],
  tag?: string,
): Promise<number> {
  for (let i = 0; i < payoutIds.length; i += 100) {
    const instances = payoutIds
      .slice(i, i + 100)
      .map((payoutId) => ({ id: sendInstanceId(payoutId, tag), params: { payoutId } }));
    // The array form skips ids that already exist; one create each is the fallback where it is refused.
    const created = await workflow.createBatch(instances).then(
      () => true,
      () => false,
    );
    if (!created) {
      for (const inst of instances) {
        await workflow.create(inst).catch((err) => {
          if (!alreadyExists(err)) throw err;
        });
      }
    }
  }
  return payoutIds.length;
}

/** Starts (or joins) the send of one payout: the run's fan-out and a withdrawal use the same path. */
export async function startPayoutSend(env: Pick<Bindings, "PAYOUT_SEND">, payoutId: string): Promise<void> {
  await startPayoutSends(env.PAYOUT_SEND, [payoutId]);
}
