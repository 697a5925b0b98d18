// The creator dashboard's calls for creators with 100, 100,000 and 1,000,000 sales (BENCH_SALES,
// comma-separated): p50 and p99 one at a time and with 16 requests at once, each size's ratio to the
// first (goal: within 3x), the time to seed each size, whether the rollups agree with the ledger, and
// the EXPLAIN QUERY PLAN of every statement behind the calls (GET /dev/explain). Called by
// dev/bench.mjs (`BENCH_ONLY=dashboard npm run bench`); docs/operations.md ("Bench").
import http from "node:http";
import { signInViaOutbox } from "./local-app.mjs";

const CALLS = [
  "/api/auth/user",
  "/api/earnings/stats",
  "/api/content",
  "/api/analytics/stats?days=30",
  "/api/analytics/stats?days=90",
  "/api/creator/sales?limit=50",
  "/api/creator/sales?limit=50&cursor={deep}",
  "/api/earnings/timeline?limit=50",
  "/api/earnings/timeline?limit=50&cursor={deep}",
  "/api/payout/next",
  "/api/payout/history",
];
/** The most sales one /dev/seed-sales call writes (a larger creator is seeded in chunks). */
const CHUNK = 250_000;

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (ms) => ms.toFixed(1).padStart(8);
const n = (v) => v.toLocaleString("en-US");

export async function benchDashboard({ appUrl }) {
  const SIZES = (process.env.BENCH_SALES ?? "100,100000,1000000").split(",").map(Number);
  const SAMPLES = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 60);
  const AT_ONCE = Number(process.env.BENCH_DASHBOARD_CONCURRENCY ?? 16);
  const ROUNDS = Number(process.env.BENCH_DASHBOARD_ROUNDS ?? 8);
  const agent = new http.Agent({ keepAlive: true, maxSockets: AT_ONCE });
  const get = (path, cookie) =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      const req = http.get(`${appUrl}${path}`, { agent, headers: { cookie } }, (res) => {
        res.on("data", () => {});
        res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - started }));
      });
      req.on("error", reject);
    });
  const post = async (path, body) => {
    const res = await fetch(`${appUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };

  const creators = [];
  for (const sales of SIZES) {
    const email = `bench-${sales}-${Date.now()}@example.com`;
    const cookie = await signInViaOutbox(appUrl, email);
    const me = await (await fetch(`${appUrl}/api/auth/user`, { headers: { cookie } })).json();
    const t0 = performance.now();
    let itemId;
    for (let done = 0; done < sales; done += CHUNK) {
      const chunk = Math.min(CHUNK, sales - done);
      ({ itemId } = await post("/dev/seed-sales", { userId: me.id, sales: chunk, ...(itemId ? { itemId } : {}) }));
    }
    const seedS = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    const { differences } = await (await fetch(`${appUrl}/dev/rollups/compare?userId=${me.id}`)).json();
    console.log(
      `\nSeeded a creator with ${n(sales)} sales in ${seedS.toFixed(1)} s; rollups vs ledger: ${
        differences.length ? `${differences.length} differences` : "equal"
      } (compared in ${((performance.now() - t1) / 1000).toFixed(1)} s)`,
    );
    creators.push({ sales, cookie, userId: me.id, deepCursor: `${Date.now() - 700 * 86400000}.zzzz` });
  }

  // Each call: the creators take turns (a few samples each, round after round), so a machine that
  // slows down or speeds up mid-run weighs on every size alike. One at a time, then AT_ONCE at once.
  const timings = {};
  const check = (url, r) => {
    if (r.status !== 200) throw new Error(`${url} -> ${r.status}`);
    return r.ms;
  };
  for (const path of CALLS) {
    const urlOf = (c) => path.replace("{deep}", c.deepCursor);
    const one = new Map(creators.map((c) => [c, []]));
    const many = new Map(creators.map((c) => [c, []]));
    for (const c of creators) for (let i = 0; i < 5; i++) await get(urlOf(c), c.cookie);
    for (let done = 0; done < SAMPLES; done += 5)
      for (const c of creators)
        for (let i = 0; i < 5; i++) one.get(c).push(check(urlOf(c), await get(urlOf(c), c.cookie)));
    for (let round = 0; round < ROUNDS; round++)
      for (const c of creators) {
        const rs = await Promise.all(Array.from({ length: AT_ONCE }, () => get(urlOf(c), c.cookie)));
        for (const r of rs) many.get(c).push(check(urlOf(c), r));
      }
    timings[path] = {};
    for (const c of creators) {
      const o = one.get(c).sort((x, y) => x - y);
      const m = many.get(c).sort((x, y) => x - y);
      timings[path][c.sales] = { one: [pct(o, 50), pct(o, 99)], many: [pct(m, 50), pct(m, 99)] };
    }
  }

  const base = SIZES[0];
  for (const [mode, label] of [
    ["one", `one at a time (${SAMPLES} samples)`],
    ["many", `${AT_ONCE} at once (${ROUNDS} rounds)`],
  ]) {
    console.log(
      `\nDashboard calls, ${label}: p50 / p99 ms per creator's sales, p50 ratio to ${n(base)} (goal: within 3x)`,
    );
    console.log(
      `${"call".padEnd(44)}${SIZES.map((s) => `${`p50@${n(s)}`.padStart(14)}${"p99".padStart(8)}`).join("")}${SIZES.slice(
        1,
      )
        .map((s) => `${`x@${n(s)}`.padStart(12)}`)
        .join("")}`,
    );
    for (const path of CALLS) {
      const t = timings[path];
      const cells = SIZES.map((s) => `${fmt(t[s][mode][0]).padStart(14)}${fmt(t[s][mode][1])}`).join("");
      const ratios = SIZES.slice(1)
        .map((s) => `${(t[s][mode][0] / t[base][mode][0]).toFixed(2)}x`.padStart(12))
        .join("");
      console.log(`${path.padEnd(44)}${cells}${ratios}`);
    }
  }

  const largest = creators[creators.length - 1];
  const { queries } = await (await fetch(`${appUrl}/dev/explain?userId=${largest.userId}`)).json();
  console.log(`\nEXPLAIN QUERY PLAN of the statements behind the calls (creator with ${n(largest.sales)} sales):`);
  for (const q of queries) {
    console.log(`  ${q.name}`);
    for (const line of q.plan) console.log(`    ${line}`);
  }
  agent.destroy();
}
