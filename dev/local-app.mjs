// Builds and runs the app locally in workerd: the same steps for `npm start` and the browser tests.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name) => `${root}node_modules/.bin/${name}`;
// Local runs never phone home.
// node_modules/.bin first on PATH, so wrangler runs on the Node 22 the project installs.
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", PATH: `${root}node_modules/.bin:${process.env.PATH}` };
// The built Worker's config (dist/apewall/wrangler.json) is found through this redirect.
const BUILT_CONFIG = `${root}dist/apewall/wrangler.json`;

function run(cmd, args, label) {
  const started = Date.now();
  const result = spawnSync(cmd, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0) {
    process.stderr.write(result.stdout + result.stderr);
    throw new Error(`${label} failed (exit ${result.status})`);
  }
  console.log(`  ✓ ${label} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
  return result.stdout;
}

const keysOf = (text) => new Set([...text.matchAll(/^([A-Z0-9_]+)=/gm)].map((m) => m[1]));

/** Creates .dev.vars from the example, or adds the settings a newer example has and it lacks. */
export function ensureDevVars() {
  const example = `${root}.dev.vars.example`;
  const local = `${root}.dev.vars`;
  if (!existsSync(local)) {
    copyFileSync(example, local);
    console.log("  ✓ created .dev.vars from .dev.vars.example");
    return;
  }
  const have = keysOf(readFileSync(local, "utf8"));
  const missing = readFileSync(example, "utf8")
    .split("\n")
    .filter((line) => /^[A-Z0-9_]+=/.test(line) && !have.has(line.split("=")[0]));
  if (missing.length) {
    appendFileSync(local, `\n# Added from .dev.vars.example\n${missing.join("\n")}\n`);
    console.log(`  ✓ added ${missing.length} new setting(s) to .dev.vars`);
  }
}

/** The local Stripe stand-in, in this process, sending webhooks to the app at `appUrl`. */
export async function startStripeStandin({
  port,
  appUrl,
  webhookSecret = "whsec_standin",
  connectWebhookSecret = "whsec_standin_connect",
  log = false,
  stateFile,
}) {
  const { createStandin } = await import("./stripe-standin/server.mjs");
  const standin = createStandin({
    // The app's two endpoints at one path, as docs/operations.md sets them up on Stripe.
    webhookUrls: [`${appUrl}/api/stripe/webhook`],
    connectWebhookUrls: [`${appUrl}/api/stripe/webhook`],
    webhookSecret,
    connectWebhookSecret,
    stateFile,
    log: log ? (line) => console.log(`[stripe-standin] ${line}`) : () => {},
  });
  const url = await standin.listen(port);
  return { standin, url };
}

/** The local Turnstile stand-in (Cloudflare's test keys), in this process. */
export async function startTurnstileStandin({ port, log = false }) {
  const { createTurnstileStandin } = await import("./turnstile-standin/server.mjs");
  const standin = createTurnstileStandin({
    log: log ? (line) => console.log(`[turnstile-standin] ${line}`) : () => {},
  });
  const url = await standin.listen(port);
  return { standin, url };
}

/** A token the stand-in's test keys pass, for calls made as a browser whose widget passed. */
export const PASSED_CHECK = { "cf-turnstile-response": "XXXX.DUMMY.TOKEN.XXXX" };

export function build() {
  run(bin("vite"), ["build", "--logLevel", "warn"], "built the SPA and the Worker");
  run(
    bin("vite"),
    ["build", "-c", "vite.paywall.config.ts", "--logLevel", "warn"],
    "built the paywall and the public pages",
  );
}

/** Applies migrations and the demo seed to the local D1/R2 under `persistTo`. Idempotent. */
export function prepareData(persistTo) {
  const common = ["--config", BUILT_CONFIG, "--persist-to", persistTo];
  run(bin("wrangler"), ["d1", "migrations", "apply", "DB", "--local", ...common], "applied D1 migrations");
  run(
    bin("wrangler"),
    [
      "r2",
      "object",
      "put",
      "apewall-files/demo/ape-field-guide.md",
      "--local",
      "--file",
      "dev/demo/ape-field-guide.md",
      "--content-type",
      "text/markdown",
      ...common,
    ],
    "stored the demo file in R2",
  );
  run(
    bin("wrangler"),
    ["d1", "execute", "DB", "--local", "--file", "dev/seed.sql", ...common],
    "seeded the demo creator and items",
  );
}

/**
 * Starts `wrangler dev` on 127.0.0.1:`port` serving the built app, and resolves once it answers.
 * `vars` override .dev.vars (the browser tests point APP_URL at their own port).
 */
export async function startServer({ port, persistTo, vars = {}, quiet = false }) {
  const args = [
    "dev",
    "--config",
    BUILT_CONFIG,
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--persist-to",
    persistTo,
    "--show-interactive-dev-session=false",
  ];
  for (const [k, v] of Object.entries(vars)) args.push("--var", `${k}:${v}`);
  const child = spawn(bin("wrangler"), args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: false });
  // Whatever ends this process (a failed benchmark, Ctrl+C) ends the server too.
  process.once("exit", () => child.kill("SIGTERM"));
  let output = "";
  const collect = (chunk) => {
    output += chunk;
    if (!quiet) process.stdout.write(chunk);
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/api/auth/providers`);
      if (res.ok) return { child, url, output: () => output };
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill();
  throw new Error(`wrangler dev did not answer on ${url} within 60s:\n${output}`);
}

/**
 * A throwaway local stack for browser tests and benchmarks: the Stripe and Turnstile stand-ins plus
 * the app on `port`, with test settings passed on the command line (no .dev.vars needed); `vars`
 * changes some (a test of the bot check's failing secret).
 */
export async function startTestStack({ port, persistTo, label, vars = {} }) {
  const appUrl = `http://127.0.0.1:${port}`;
  const webhookSecret = `whsec_${label}`;
  const connectWebhookSecret = `whsec_${label}_connect`;
  const { standin, url: stripeUrl } = await startStripeStandin({
    port: 0,
    appUrl,
    webhookSecret,
    connectWebhookSecret,
  });
  // The account's demo tax registrations, as npm start has them (docs/tax.md).
  await (await import("./tax-registrations.mjs")).createTaxRegistrations({
    apiBase: stripeUrl,
    secretKey: `sk_test_${label}`,
  });
  const turnstile = await startTurnstileStandin({ port: 0 });
  const server = await startServer({
    port,
    persistTo,
    quiet: true,
    vars: {
      APP_ENV: "development",
      MAIL_TRANSPORT: "outbox",
      APP_URL: appUrl,
      ADMIN_EMAIL: "admin@apewall.test",
      STRIPE_SECRET_KEY: `sk_test_${label}`,
      STRIPE_PUBLISHABLE_KEY: `pk_test_${label}`,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
      STRIPE_CONNECT_WEBHOOK_SECRET: connectWebhookSecret,
      STRIPE_API_BASE: stripeUrl,
      STRIPE_JS_URL: `${stripeUrl}/v3`,
      ACCESS_TOKEN_SECRET: `${label}-access-token-secret`,
      // Cloudflare's test keys: an invisible widget that always passes, a secret that always passes.
      TURNSTILE_SITE_KEY: "1x00000000000000000000BB",
      TURNSTILE_SECRET_KEY: "1x0000000000000000000000000000000AA",
      TURNSTILE_SCRIPT_URL: `${turnstile.url}/turnstile/v0/api.js`,
      TURNSTILE_VERIFY_URL: `${turnstile.url}/turnstile/v0/siteverify`,
      ...vars,
    },
  }).catch(async (err) => {
    // The stand-ins go with a server that did not start, so a caller may try again.
    await Promise.all([standin.close(), turnstile.standin.close()]);
    throw err;
  });
  return {
    url: server.url,
    stripeUrl,
    turnstileUrl: turnstile.url,
    publishableKey: `pk_test_${label}`,
    child: server.child,
    /** Everything wrangler dev printed so far (the Worker's console lines included). */
    output: server.output,
    async stop() {
      await Promise.all([standin.close(), turnstile.standin.close()]);
      server.child.kill("SIGTERM");
      await new Promise((r) => (server.child.exitCode !== null ? r() : server.child.once("exit", r)));
    },
  };
}

/** Signs in through the emailed link read from the dev outbox; returns the session cookie pair. */
export async function signInViaOutbox(appUrl, email) {
  const asked = await fetch(`${appUrl}/api/auth/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: appUrl, ...PASSED_CHECK },
    body: JSON.stringify({ email }),
  });
  // The link signs in at once in the browser that asked for it, known by this cookie.
  const loginCookie = asked.headers
    .getSetCookie()
    .find((c) => c.startsWith("aw_login="))
    .split(";")[0];
  for (let i = 0; i < 150; i++) {
    const link = (await (await fetch(`${appUrl}/dev/mail.json`)).json()).find((m) => m.to === email)?.links[0];
    if (link) {
      const res = await fetch(link, { redirect: "manual", headers: { cookie: loginCookie } });
      return res.headers
        .getSetCookie()
        .find((c) => c.startsWith("aw_session="))
        .split(";")[0];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no sign-in mail for ${email}`);
}

// ---- benchmarks: the local runtime's memory ----

const childPids = (pid) => {
  let out = [];
  try {
    out = execFileSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return out.flatMap((p) => [p, ...childPids(p)]);
};

/** The workerd process under a `wrangler dev` child (Linux /proc), or undefined. */
export const workerdPidOf = (child) =>
  childPids(child.pid).find((p) => readFileSync(`/proc/${p}/comm`, "utf8").trim() === "workerd");

/** Resident memory of a process in KiB (Linux /proc). */
export const rssKbOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
