// `npm run deploy`: build, apply D1 migrations to the remote database, deploy the Worker.
// `npm run deploy -- --dry-run` builds and checks the bundle without touching Cloudflare.
import { spawnSync } from "node:child_process";
import { root } from "./local-app.mjs";

const dryRun = process.argv.includes("--dry-run");
const env = { ...process.env, PATH: `${root}node_modules/.bin:${process.env.PATH}` };
const step = (cmd, args) => {
  console.log(`$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

step("vite", ["build"]);
step("vite", ["build", "-c", "vite.paywall.config.ts"]);
if (dryRun) {
  step("wrangler", ["deploy", "--dry-run"]);
} else {
  step("wrangler", ["d1", "migrations", "apply", "DB", "--remote"]);
  step("wrangler", ["deploy"]);
}
