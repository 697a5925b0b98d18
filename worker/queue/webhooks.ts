// The WEBHOOKS queue consumer: one attempt per message (worker/services/webhooks/delivery.ts `deliverWebhook`
// claims the row, so a duplicate message attempts nothing). A retry is a new message sent with the
// backoff as its delay; an error here (D1 unavailable) lets the queue bring the message again.
import type { Bindings } from "../lib/env";
import { deliverWebhook, type WebhookMessage } from "../services/webhooks/delivery";
import { secretBox } from "../services/webhooks/secrets";

export async function handleWebhookBatch(batch: MessageBatch<WebhookMessage>, env: Bindings): Promise<void> {
  const deps = {
    d1: env.DB,
    queue: env.WEBHOOKS,
    emails: env.EMAILS,
    appUrl: env.APP_URL,
    appEnv: env.APP_ENV,
    secrets: secretBox(env),
  };
  // Each attempt waits up to 10 s on the creator's server: a batch's messages go in parallel.
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await deliverWebhook(deps, message.body);
        message.ack();
      } catch (err) {
        console.error("webhook delivery could not be recorded", message.body.id, err);
        message.retry({ delaySeconds: 60 });
      }
    }),
  );
}
