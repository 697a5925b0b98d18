// The PAYOUTS queue consumer: one message per payout id, sent (or resumed) by the same call the
// run uses. Delivery is at-least-once; sendPayout is safe to repeat, so a duplicate does nothing.
import type { Bindings } from "../lib/env";
import { payoutDeps, retryDelaySeconds, sendPayout, type PayoutJob } from "../services/payouts";

export async function handlePayoutBatch(batch: MessageBatch<PayoutJob>, env: Bindings): Promise<void> {
  const deps = payoutDeps(env);
  // The payouts of a batch are independent: sent side by side.
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const outcome = await sendPayout(deps, message.body.payoutId, Date.now(), { retry: message.attempts });
        // Stripe did not settle it (no answer, rate limit, its own error, the platform's balance short):
        // the payout stays processing and is tried again, backing off (1 minute, doubling, at most 6 hours).
        if (outcome === "retry_later") message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
        else message.ack();
      } catch (err) {
        console.error("payout send failed", message.body.payoutId, message.attempts, err);
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
      }
    }),
  );
}
