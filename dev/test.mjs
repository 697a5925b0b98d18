// npm test's vitest step: the Worker's tests (the route fuzzer apart) and the two browser lanes
// (vitest.config.ts) as four vitest processes at once, since one vitest runs projects that share a worker pool one after another.
// Each project's output is printed whole when it ends; the exit code is non-zero if any failed.
// `node dev/test.mjs [vitest args]` passes the args (e.g. a file filter) to each.
import { spawn } from "node:child_process";
import { join } from "node:path";

// The Worker's tests take one workerd lane here (two when run alone). Measured on 2 cores from a fresh
// clone: with one, npm test took 420 s and passed; with two, 324 s, but three browser tests missed their
// timing under the load (a 5 s poll, since 20 s, and a layout-shift check that saw 0.00005).
// The route fuzzer (146 s of the Worker's 511 s on a fresh clone) runs as a fourth process of its own,
// with its own workerd and Stripe stand-in, so it shares no state with the other Worker tests.
const FUZZ = "worker/test/security/fuzz-routes.test.ts";
const args = process.argv.slice(2);
const projects = args.length
  ? [["worker", "--maxWorkers=1"], ["e2e"], ["e2e-money"]]
  : [["worker", "--maxWorkers=1", "--exclude", FUZZ], ["worker", FUZZ], ["e2e"], ["e2e-money"]];
const vitest = join(import.meta.dirname, "..", "node_modules", ".bin", "vitest");
const started = Date.now();
const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;

// Each Worker lane starts its own stand-ins (vitest.config.ts picks random ports): two lanes get ports
// of their own here, so they can never pick the same one.
const spread = Math.floor(Math.random() * 350);
let workerLanes = 0;
const portsFor = (project) => {
  if (project !== "worker") return {};
  const n = workerLanes++;
  return {
    APEWALL_TEST_STANDIN_PORT: String(12200 + n * 350 + spread),
    APEWALL_TEST_TURNSTILE_PORT: String(13000 + n * 350 + spread),
  };
};

const runs = projects.map(
  ([project, ...own]) =>
    new Promise((resolve) => {
      const child = spawn(vitest, ["run", "--project", project, ...own, ...args], {
        env: { ...process.env, ...portsFor(project), FORCE_COLOR: process.stdout.isTTY ? "1" : "0" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      const out = [];
      child.stdout.on("data", (d) => out.push(d));
      child.stderr.on("data", (d) => out.push(d));
      child.on("close", (code) => {
        process.stdout.write(Buffer.concat(out));
        const lane = own.includes(FUZZ) && !own.includes("--exclude") ? `${project} (route fuzzer)` : project;
        console.log(
          `\n── ${lane}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} after ${seconds(Date.now() - started)}\n`,
        );
        resolve({ project: lane, code, text: Buffer.concat(out).toString() });
      });
    }),
);

const results = await Promise.all(runs);
const failed = results.filter((r) => r.code !== 0);
// A log shown only by its end (a CI page) still names what failed: each failed project's failures again.
for (const { project, text } of failed) {
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
  const from = plain.search(/⎯+ (Failed Tests? \d+|Unhandled Errors?) ⎯/);
  const failures = from >= 0 ? plain.slice(from).split("\n").slice(0, 80) : plain.split("\n").slice(-40);
  console.log(`\n── ${project}: what failed\n${failures.join("\n")}`);
}
const retried = results.flatMap(({ project, text }) =>
  text
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    // A passed test's line (✓); a failed one is named under "what failed".
    .filter((line) => /\(retry x\d+\)/.test(line) && line.trim().startsWith("✓"))
    .map((line) => `${project}: ${line.trim()}`),
);
if (retried.length) console.log(`\n── passed only when run again (flaky):\n${retried.join("\n")}`);
console.log(
  `vitest: ${results.map((r) => `${r.project} ${r.code === 0 ? "ok" : "failed"}`).join(", ")} in ${seconds(Date.now() - started)}`,
);
process.exit(failed.length ? 1 : 0);
