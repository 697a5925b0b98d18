import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig(async () => ({
  test: {
    projects: [
      {
        plugins: [
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
              },
            },
          }),
        ],
        test: {
          name: "worker",
          include: ["worker/**/*.test.ts"],
          setupFiles: ["worker/test/setup.ts"],
        },
      },
      {
        test: {
          name: "e2e",
          include: ["e2e/**/*.test.ts"],
          environment: "node",
          globalSetup: ["e2e/global-setup.ts"],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
}));
