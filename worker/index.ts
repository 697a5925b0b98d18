// The Worker's entry: HTTP (API + SPA assets), the email queue, and Cron Triggers.
import { app } from "./app";
import { handleScheduled } from "./cron";
import type { Bindings } from "./lib/env";
import { handleEmailBatch } from "./queue/emails";
import type { EmailJob } from "./services/mail/templates";

export default {
  fetch: app.fetch,
  // Only the EMAILS queue is consumed; its dead-letter queue keeps failed messages for inspection.
  async queue(batch, env, _ctx) {
    await handleEmailBatch(batch, env);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(handleScheduled(controller, env));
  },
} satisfies ExportedHandler<Bindings, EmailJob>;
