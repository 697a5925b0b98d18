// Starts the local Turnstile stand-in for the worker tests on the port vitest.config.ts chose.
import type { TestProject } from "vitest/node";
import { createTurnstileStandin } from "../../../dev/turnstile-standin/server.mjs";

export default async function setup(_project: TestProject) {
  const standin = createTurnstileStandin();
  await standin.listen(Number(process.env.APEWALL_TEST_TURNSTILE_PORT));
  return () => standin.close();
}
