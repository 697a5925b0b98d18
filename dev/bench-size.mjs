// `BENCH_ONLY=size npm run bench`: the Worker's size and startup, from the build `npm run bench` made.
// 1. Size: `wrangler deploy --dry-run --outdir` (every module it would upload, raw and gzip).
// 2. Startup: `wrangler check startup` (a CPU profile of the entry module's evaluation in local
//    workerd), BENCH_STARTUP_RUNS times, median of its "Active" time. The profile samples about every
//    2 ms, so one run is coarse.
// Goals (docs/operations.md, "Worker size and startup"): ≤ 250 KiB gzip, startup ≤ 25 ms.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "./local-app.mjs";

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
const wrangler = join(root, "node_modules/.bin/wrangler");

function run(args, cwd = root) {
  const r = spawnSync(wrangler, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const out = `${r.stdout}\n${r.stderr}`;
  if (r.status !== 0) throw new Error(`wrangler ${args.join(" ")} failed:\n${out}`);
  return out;
}

/** Medians of `wrangler check startup`'s "Active" and "Profile window" over RUNS runs in `cwd`. */
function startup(cwd, outfile) {
  const active = [];
  const window = [];
  for (let i = 0; i < RUNS; i++) {
    const out = run(["check", "startup", "--outfile", outfile], cwd);
    const a = /Active: ([\d.]+) ms/.exec(out);
    const w = /Profile window: ([\d.]+) ms/.exec(out);
    if (!a || !w) throw new Error(`wrangler check startup printed no figures:\n${out}`);
    active.push(Number(a[1]));
    window.push(Number(w[1]));
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  return { active: median(active), window: median(window), all: active };
}

export function benchSize() {
  const tmp = mkdtempSync(join(tmpdir(), "apewall-size-"));
  try {
    const dry = run(["deploy", "--dry-run", "--outdir", join(tmp, "out")]);
    const total = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(dry);
    if (!total) throw new Error(`wrangler deploy --dry-run printed no size:\n${dry}`);
    const modules = (dry.match(/│ \S+\.js\s+│/g) ?? []).length;
    const start = startup(root, join(tmp, "entry.cpuprofile"));

    console.log(
      `\nWorker size and startup (wrangler ${run(["--version"]).trim()}; goals: ≤ 250 KiB gzip, startup ≤ 25 ms)`,
    );
    const verdict = (value, goal, unit) =>
      value <= goal ? "(goal met)" : `(over the goal by ${(value - goal).toFixed(1)} ${unit})`;
    console.log(
      `upload (wrangler deploy --dry-run)     ${total[1]} KiB, gzip ${total[2]} KiB ${verdict(Number(total[2]), 250, "KiB")}, ${modules} modules`,
    );
    console.log(
      `startup (wrangler check startup)       Active ${start.active.toFixed(1)} ms ${verdict(start.active, 25, "ms")} of a ${start.window.toFixed(1)} ms window (median of ${RUNS}: ${start.all.join(", ")})`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
