// The Worker's entry: HTTP (API + SPA assets), the email, webhooks and views queues, Cron Triggers, and the
// payout Workflows (worker/workflows/: the monthly run and one payout's transfer). Every handler's code
// is imported here, at startup: loading it on a request's first use made concurrent first requests of
// a fresh isolate wait on one request's import, which the runtime cancels as hung (docs/operations.md,
// "Worker size and startup").
import { app } from "./app";
import { handleScheduled } from "./cron";
import type { Bindings } from "./lib/env";
import { handleEmailBatch } from "./queue/emails";
import { handleViewBatch } from "./queue/views";
import { handleWebhookBatch } from "./queue/webhooks";
import type { ViewEvent } from "./services/content-views";
import type { EmailJob } from "./services/mail/templates";
import type { WebhookMessage } from "./services/webhooks/delivery";

export { PayoutRunWorkflow, PayoutSendWorkflow } from "./workflows/entrypoints";

export default {
  fetch: app.fetch,
  // The emails dead-letter queue is not consumed: it keeps failed messages for inspection.
  async queue(batch, env, _ctx) {
    if (batch.queue === "apewall-views") {
      return handleViewBatch(batch as MessageBatch<ViewEvent>, env);
    }
    if (batch.queue === "apewall-webhooks") {
      return handleWebhookBatch(batch as MessageBatch<WebhookMessage>, env);
    }
    await handleEmailBatch(batch as MessageBatch<EmailJob>, env);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(handleScheduled(controller, env));
  },
} satisfies ExportedHandler<Bindings, EmailJob | ViewEvent | WebhookMessage>;
