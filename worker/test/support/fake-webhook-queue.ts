// A webhooks queue that keeps what it is sent (the delays are the backoff), for tests that drive attempts.
import type { WebhookMessage } from "../../services/webhooks/delivery";

export function fakeQueue() {
  const sent: { body: WebhookMessage; delaySeconds?: number }[] = [];
  const queue = {
    send: async (body: WebhookMessage, opts?: { delaySeconds?: number }) =>
      void sent.push({ body, delaySeconds: opts?.delaySeconds }),
    sendBatch: async (msgs: { body: WebhookMessage; delaySeconds?: number }[]) => void sent.push(...msgs),
  } as unknown as Queue;
  return { queue, sent };
}
