// The Worker's entry: HTTP (API + SPA assets), the email, webhooks and views queues, Cron Triggers, and the
// payout Workflows (worker/workflows/: the monthly run and one payout's transfer). Each handler loads its
// code on first use (a chunk of its own), so an isolate starts without evaluating any of it and a queue
// batch or a Workflow step never loads the HTTP app (docs/operations.md, "Worker size and startup").
import type { Bindings } from "./lib/env";
import type { ViewEvent } from "./services/content-views";
import type { EmailJob } from "./services/mail/templates";
import type { WebhookMessage } from "./services/webhooks/delivery";

export { PayoutRunWorkflow, PayoutSendWorkflow } from "./workflows/entrypoints";

export default {
  async fetch(request: Request, env: Bindings, ctx: ExecutionContext) {
    const { app } = await import("./app");
    return app.fetch(request, env, ctx);
  },
  // The emails dead-letter queue is not consumed: it keeps failed messages for inspection.
  async queue(batch, env, _ctx) {
    if (batch.queue === "apewall-views") {
      const { handleViewBatch } = await import("./queue/views");
      return handleViewBatch(batch as MessageBatch<ViewEvent>, env);
    }
    if (batch.queue === "apewall-webhooks") {
      const { handleWebhookBatch } = await import("./queue/webhooks");
      return handleWebhookBatch(batch as MessageBatch<WebhookMessage>, env);
    }
    const { handleEmailBatch } = await import("./queue/emails");
    await handleEmailBatch(batch as MessageBatch<EmailJob>, env);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(import("./cron").then(({ handleScheduled }) => handleScheduled(controller, env)));
  },
} satisfies ExportedHandler<Bindings, EmailJob | ViewEvent | WebhookMessage>;
