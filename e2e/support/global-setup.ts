// Browser tests run against the app as `npm start` serves it: built, migrated, seeded, on workerd,
// with the Stripe and Turnstile stand-ins, on their own fresh local state and port so a running `npm start` is left alone.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
// Plain ESM helpers shared with `npm start`.
import { prepareData, startTestStack } from "../../dev/local-app.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    stripeUrl: string;
    turnstileUrl: string;
  }
}

/**
 * A port of [base, base + span) that nothing listens on now: a server of an earlier run still exiting
 * (a workerd takes a while to let go) would make wrangler dev fail with "Address already in use".
 */
async function freePort(base: number, span: number): Promise<number> {
  for (let tries = 0; tries < span; tries++) {
    const port = base + Math.floor(Math.random() * span);
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once("error", () => resolve(false));
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`no free port in ${base}-${base + span - 1}`);
}

export default async function setup(project: TestProject) {
  const state = mkdtempSync(join(tmpdir(), "apewall-e2e-"));
  // The npm test scripts build first (the worker tests need the built SPA too).
  prepareData(state);
  // Each lane (a vitest project) has its own server; their port ranges do not overlap.
  const base = project.name === "e2e" ? 8900 : 8950;
  // A port found free can be taken before wrangler dev binds it (another lane's workerd starting at
  // the same moment): then once more, on another.
  let stack: Awaited<ReturnType<typeof startTestStack>> | undefined;
  for (let attempt = 1; !stack; attempt++) {
    try {
      stack = await startTestStack({ port: await freePort(base, 45), persistTo: state, label: "e2e" });
    } catch (err) {
      if (attempt >= 3 || !String(err).includes("Address already in use")) throw err;
    }
  }
  project.provide("baseUrl", stack.url);
  project.provide("stripeUrl", stack.stripeUrl);
  project.provide("turnstileUrl", stack.turnstileUrl);
  return async () => {
    await stack.stop();
    rmSync(state, { recursive: true, force: true });
  };
}
