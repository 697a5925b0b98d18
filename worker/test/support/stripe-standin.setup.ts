// Starts the local Stripe stand-in for the worker tests on the port vitest.config.ts chose.
import type { TestProject } from "vitest/node";
import { createStandin } from "../../../dev/stripe-standin/server.mjs";
import { createTaxRegistrations } from "../../../dev/tax-registrations.mjs";

export default async function setup(_project: TestProject) {
  const standin = createStandin({
    webhookSecret: process.env.APEWALL_TEST_WEBHOOK_SECRET,
    connectWebhookSecret: process.env.APEWALL_TEST_CONNECT_WEBHOOK_SECRET,
  });
  const url = await standin.listen(Number(process.env.APEWALL_TEST_STANDIN_PORT));
  await createTaxRegistrations({ apiBase: url, secretKey: "sk_test_setup" });
  return () => standin.close();
}
