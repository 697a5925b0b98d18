// Browser tests run against the app as `npm start` serves it: built, migrated, seeded, on workerd,
// with its own fresh local state and port so a running `npm start` is left alone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
// Plain ESM helper shared with `npm start`.
import { prepareData, startServer, startStripeStandin } from "../dev/local-app.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    stripeUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const state = mkdtempSync(join(tmpdir(), "apewall-e2e-"));
  const port = 8900 + Math.floor(Math.random() * 90);
  const appUrl = `http://127.0.0.1:${port}`;
  // The npm test scripts build first (the worker tests need the built SPA too).
  prepareData(state);
  const { standin, url: stripeUrl } = await startStripeStandin({ port: 0, appUrl, webhookSecret: "whsec_e2e" });
  const server = await startServer({
    port,
    persistTo: state,
    quiet: true,
    vars: {
      APP_ENV: "development",
      MAIL_TRANSPORT: "outbox",
      APP_URL: appUrl,
      ADMIN_EMAIL: "admin@apewall.test",
      STRIPE_SECRET_KEY: "sk_test_e2e",
      STRIPE_PUBLISHABLE_KEY: "pk_test_e2e",
      STRIPE_WEBHOOK_SECRET: "whsec_e2e",
      STRIPE_API_BASE: stripeUrl,
      STRIPE_JS_URL: `${stripeUrl}/v3`,
      ACCESS_TOKEN_SECRET: "e2e-access-token-secret",
    },
  });
  project.provide("baseUrl", server.url);
  project.provide("stripeUrl", stripeUrl);
  return async () => {
    await standin.close();
    server.child.kill("SIGTERM");
    await new Promise((r) => server.child.once("exit", r));
    rmSync(state, { recursive: true, force: true });
  };
}
