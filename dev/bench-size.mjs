// `BENCH_ONLY=size npm run bench`: the Worker's size and startup, from the build `npm run bench` made.
// 1. Size: `wrangler deploy --dry-run --outdir` (every module it would upload, raw and gzip).
// 2. Startup: `wrangler check startup` (a CPU profile of the entry module's evaluation in local
//    workerd), BENCH_STARTUP_RUNS times, median of its "Active" time. The profile samples about every
//    2 ms, so one run is coarse.
// 3. The first request's load: the same measure of an entry that imports the HTTP app's chunk, which
//    the Worker's fetch handler loads on a fresh isolate's first request (worker/index.ts).
// Goals (docs/operations.md, "Worker size and startup"): ≤ 250 KiB gzip, startup ≤ 25 ms.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "./local-app.mjs";

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
const wrangler = join(root, "node_modules/.bin/wrangler");
const built = join(root, "dist/apewall");

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

    // The app chunk alone, as a fresh isolate's first request evaluates it.
    const entry = readFileSync(join(built, "index.js"), "utf8");
    const chunk = /import\(`\.\/(assets\/app-[\w-]+\.js)`\)/.exec(entry)?.[1];
    let app = null;
    if (chunk) {
      const dir = join(tmp, "app");
      cpSync(join(built, "assets"), join(dir, "assets"), { recursive: true });
      for (const f of readdirSync(join(dir, "assets"))) if (f.endsWith(".map")) rmSync(join(dir, "assets", f));
      writeFileSync(
        join(dir, "index.js"),
        `import * as app from "./${chunk}";\nglobalThis.app = app;\nexport default { fetch: () => new Response("") };\n`,
      );
      const config = JSON.parse(readFileSync(join(built, "wrangler.json"), "utf8"));
      writeFileSync(
        join(dir, "wrangler.json"),
        JSON.stringify({
          name: "apewall-app-chunk",
          main: "index.js",
          no_bundle: true,
          compatibility_date: config.compatibility_date,
          compatibility_flags: config.compatibility_flags,
          rules: [{ type: "ESModule", globs: ["**/*.js"] }],
          send_metrics: false,
        }),
      );
      app = startup(dir, join(tmp, "app.cpuprofile"));
    }

    console.log(
      `\nWorker size and startup (wrangler ${run(["--version"]).trim()}; goals: ≤ 250 KiB gzip, startup ≤ 25 ms)`,
    );
    console.log(`upload (wrangler deploy --dry-run)     ${total[1]} KiB, gzip ${total[2]} KiB, ${modules} modules`);
    console.log(
      `startup (wrangler check startup)       Active ${start.active.toFixed(1)} ms of a ${start.window.toFixed(1)} ms window (median of ${RUNS}: ${start.all.join(", ")})`,
    );
    if (app)
      console.log(
        `first request's app chunk (${chunk.replace("assets/", "")})  Active ${app.active.toFixed(1)} ms of a ${app.window.toFixed(1)} ms window (median of ${RUNS}: ${app.all.join(", ")})`,
      );
    else console.log("first request's app chunk: not found in dist/apewall/index.js (the app is in the entry)");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
