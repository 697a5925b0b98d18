// The PAYOUTS queue consumer: one message per payout id, sent (or resumed) by the same call the
// run uses. Delivery is at-least-once; sendPayout is safe to repeat, so a duplicate does nothing.
import type { Bindings } from "../lib/env";
import { payoutDeps, sendPayout, type PayoutJob } from "../services/payouts";

export async function handlePayoutBatch(batch: MessageBatch<PayoutJob>, env: Bindings): Promise<void> {
  const deps = payoutDeps(env);
  // The payouts of a batch are independent: sent side by side.
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const outcome = await sendPayout(deps, message.body.payoutId);
        // Stripe could not be reached: the payout stays processing and is tried again later.
        if (outcome === "retry_later") message.retry({ delaySeconds: 60 });
        else message.ack();
      } catch (err) {
        console.error("payout send failed", message.body.payoutId, message.attempts, err);
        message.retry({ delaySeconds: 60 });
      }
    }),
  );
}
