// The Worker's entry: HTTP (API + SPA assets), the email, views and payouts queues, and Cron Triggers.
import { app } from "./app";
import { handleScheduled } from "./cron";
import type { Bindings } from "./lib/env";
import { handleEmailBatch } from "./queue/emails";
import { handlePayoutBatch } from "./queue/payouts";
import { handleViewBatch } from "./queue/views";
import type { ViewEvent } from "./services/content";
import type { EmailJob } from "./services/mail/templates";
import type { PayoutJob } from "./services/payouts";

export default {
  fetch: app.fetch,
  // The emails dead-letter queue is not consumed: it keeps failed messages for inspection.
  async queue(batch, env, _ctx) {
    if (batch.queue === "apewall-views") return handleViewBatch(batch as MessageBatch<ViewEvent>, env);
    if (batch.queue === "apewall-payouts") return handlePayoutBatch(batch as MessageBatch<PayoutJob>, env);
    await handleEmailBatch(batch as MessageBatch<EmailJob>, env);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(handleScheduled(controller, env));
  },
} satisfies ExportedHandler<Bindings, EmailJob | ViewEvent | PayoutJob>;
