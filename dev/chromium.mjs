// The Chromium of the browser tests and the page benchmark: CHROMIUM_PATH if set, else a system
// chromium, else the one the npm package @sparticuz/chromium ships in its tarball, so a fresh
// machine needs nothing but Node.
import { existsSync } from "node:fs";

const SYSTEM_CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
// The package's args are made for one-shot serverless runs: they switch off web security and run one
// process, which ends the whole browser when a test closes its context. Neither is wanted here.
const UNSAFE_ARGS = new Set(["--disable-web-security", "--allow-running-insecure-content", "--single-process"]);

/** The Chromium to launch and the extra flags it needs. */
export async function chromiumBinary() {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return { executablePath: fromEnv, args: [] };
  const system = SYSTEM_CHROMIUM.find((p) => existsSync(p));
  if (system) return { executablePath: system, args: [] };
  const { default: packaged } = await import("@sparticuz/chromium");
  return { executablePath: await packaged.executablePath(), args: packaged.args.filter((a) => !UNSAFE_ARGS.has(a)) };
}

/** Flags every launch here adds, besides its own --headless. */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
