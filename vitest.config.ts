import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { readFile } from "node:fs/promises";
import type { Plugin } from "vite";

/**
 * The stripe package's .js files point at source maps that name sources it does not ship, and vite
 * warns about each (about 200 lines per run). Loading those files without their map comment keeps
 * the test output readable; stack traces into the SDK still name its .js files.
 */
const stripeWithoutSourceMaps: Plugin = {
  name: "stripe-without-source-maps",
  enforce: "pre",
  async load(id) {
    if (!/\/node_modules\/stripe\/esm\/.*\.js$/.test(id)) return null;
    const code = await readFile(id, "utf8");
    return { code: code.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n"), map: null };
  },
};

// The worker tests talk to a Stripe stand-in process on this port (started by their global setup).
// The config may be evaluated more than once per run: the first pick of the port wins.
process.env.APEWALL_TEST_STANDIN_PORT ??= String(12200 + Math.floor(Math.random() * 700));
process.env.APEWALL_TEST_WEBHOOK_SECRET ??= "whsec_worker_tests";
process.env.APEWALL_TEST_CONNECT_WEBHOOK_SECRET ??= "whsec_worker_tests_connect";
// And to a Turnstile stand-in (dev/turnstile-standin) on this one, with Cloudflare's passing test keys.
process.env.APEWALL_TEST_TURNSTILE_PORT ??= String(13000 + Math.floor(Math.random() * 700));
const standinPort = Number(process.env.APEWALL_TEST_STANDIN_PORT);
const turnstileBase = `http://127.0.0.1:${process.env.APEWALL_TEST_TURNSTILE_PORT}/turnstile/v0`;
const webhookSecret = process.env.APEWALL_TEST_WEBHOOK_SECRET;
const connectWebhookSecret = process.env.APEWALL_TEST_CONNECT_WEBHOOK_SECRET;

const MONEY_AREAS = ["money", "refunds-and-disputes", "security", "checkout-and-codes"];
const E2E_LANES: { name: string; areas?: string[]; exclude?: string[] }[] = [
  { name: "e2e-money", areas: MONEY_AREAS },
  { name: "e2e", exclude: MONEY_AREAS },
];

export default defineConfig(async () => ({
  test: {
    projects: [
      {
        plugins: [
          stripeWithoutSourceMaps,
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              // Test settings stand in for .dev.vars, which a fresh clone does not have.
              bindings: {
                TEST_MIGRATIONS: await readD1Migrations("migrations"),
                APP_ENV: "development",
                APP_URL: "http://127.0.0.1:8787",
                MAIL_TRANSPORT: "outbox",
                MAIL_FROM: "ApeWall <hello@apewall.test>",
                ADMIN_EMAIL: "admin@apewall.test",
                GOOGLE_CLIENT_ID: "google-client",
                GOOGLE_CLIENT_SECRET: "google-secret",
                GITHUB_CLIENT_ID: "github-client",
                GITHUB_CLIENT_SECRET: "github-secret",
                STRIPE_SECRET_KEY: "sk_test_worker",
                STRIPE_PUBLISHABLE_KEY: "pk_test_worker",
                STRIPE_WEBHOOK_SECRET: webhookSecret,
                STRIPE_CONNECT_WEBHOOK_SECRET: connectWebhookSecret,
                STRIPE_API_BASE: `http://127.0.0.1:${standinPort}`,
                STRIPE_JS_URL: `http://127.0.0.1:${standinPort}/v3`,
                ACCESS_TOKEN_SECRET: "worker-test-access-secret",
                WEBHOOK_SECRETS_KEY: "worker-test-webhook-secrets-key",
                TURNSTILE_SITE_KEY: "1x00000000000000000000BB",
                TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
                TURNSTILE_SCRIPT_URL: `${turnstileBase}/api.js`,
                TURNSTILE_VERIFY_URL: `${turnstileBase}/siteverify`,
              },
              // The email queue as in wrangler.toml but with a 50 ms batch window instead of 1 s: almost every
              // test signs in through an emailed link and waited out that second. Measured with
              // `npx vitest run --project worker`: 4 files 119 s -> 76 s, the whole project ~470 s -> 395 s
              // on a busy machine. Batching itself is unchanged, and production keeps 1 s.
              queueConsumers: {
                "apewall-emails": {
                  maxBatchSize: 10,
                  maxBatchTimeout: 0.05,
                  maxRetries: 5,
                  retryDelay: 10,
                  deadLetterQueue: "apewall-emails-dlq",
                },
                // Likewise the views queue (2 s in wrangler.toml), which a paywall-visit test waits out.
                "apewall-views": { maxBatchSize: 100, maxBatchTimeout: 0.05, maxRetries: 3 },
              },
            },
          }),
        ],
        test: {
          name: "worker",
          // Several tests wait for a real queue round trip (~1 s each) and the stand-in's events; on a
          // busy 2-core machine vitest's 5 s default cut some of them off while they were passing.
          testTimeout: 20_000,
          // Two lanes, each one workerd running file after file instead of one workerd started (and every
          // module loaded again) per file; worker/test/support/setup.ts empties the storage before each file, as a
          // fresh runtime had it. Files wait on queues and the stand-in, so two lanes pay on 2 cores.
          isolate: false,
          maxWorkers: 2,
          include: ["worker/**/*.test.ts"],
          setupFiles: ["worker/test/support/setup.ts"],
          globalSetup: [
            "worker/test/support/stripe-standin.setup.ts",
            "worker/test/support/turnstile-standin.setup.ts",
          ],
        },
      },
      // The browser tests in two lanes, each its own app server, stand-in, state and Chromium: the money
      // lane holds every file that moves money platform-wide (the admin's monthly run pays every
      // creator on its server), the other lane everything else, so no file sees the other's money.
      ...E2E_LANES.map(({ name, areas, exclude }) => ({
        test: {
          name,
          include: areas ? areas.map((a) => `e2e/${a}/**/*.test.ts`) : ["e2e/**/*.test.ts"],
          exclude: exclude?.map((a) => `e2e/${a}/**`) ?? [],
          environment: "node",
          globalSetup: ["e2e/support/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // A page's state after a click is polled for up to 20 s (vitest's default is 5 s): the lanes run
          // beside the Worker's tests on 2 cores, and a busy server or browser takes longer to get there.
          expect: { poll: { timeout: 20_000 } },
          // A browser test that fails is run once more before the lane fails: beside the Worker's tests on
          // 2 cores a click or a poll can miss its time while the app is right (a stop's CI failed so,
          // and the same lane passed alone in 215 s). npm test names every test that passed only so
          // (dev/test.mjs), so a flaky one is seen, not hidden.
          retry: 1,
          // One after another against the lane's server, in one process (no fork and no fresh imports
          // per file), which also lets them share one Chromium (e2e/support/browser.ts).
          fileParallelism: false,
          isolate: false,
          // After the worker project: projects that share a group must share maxWorkers.
          sequence: { groupOrder: 1 },
        },
      })),
    ],
  },
}));
