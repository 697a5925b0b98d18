// Browser tests run against the app as `npm start` serves it: built, migrated, seeded, on workerd,
// with the Stripe stand-in, on their own fresh local state and port so a running `npm start` is left alone.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { TestProject } from "vitest/node";
// Plain ESM helpers shared with `npm start`.
import { CHROMIUM_FLAGS, chromiumBinary } from "../dev/chromium.mjs";
import { prepareData, startTestStack } from "../dev/local-app.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    stripeUrl: string;
    browserWsEndpoint: string;
  }
}

export default async function setup(project: TestProject) {
  const state = mkdtempSync(join(tmpdir(), "apewall-e2e-"));
  // The npm test scripts build first (the worker tests need the built SPA too).
  prepareData(state);
  const stack = await startTestStack({ port: 8900 + Math.floor(Math.random() * 90), persistTo: state, label: "e2e" });
  project.provide("baseUrl", stack.url);
  project.provide("stripeUrl", stack.stripeUrl);
  // One Chromium for every file (each opens fresh contexts in it), started while nothing else runs.
  const binary = await chromiumBinary();
  const browser = await chromium.launchServer({
    executablePath: binary.executablePath,
    args: [...binary.args, "--headless", ...CHROMIUM_FLAGS],
    // playwright-core gives the browser a fresh, empty profile directory of its own.
  });
  project.provide("browserWsEndpoint", browser.wsEndpoint());
  return async () => {
    await browser.close();
    await stack.stop();
    rmSync(state, { recursive: true, force: true });
  };
}
