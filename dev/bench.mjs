// `npm run bench`: the paywall page HTML and the public content call under many concurrent
// connections on loopback, beside a static asset of the same server (p50, p99, requests/s, ratio);
// then time to first byte of Range reads at several offsets of a large purchased file; then the
// payout run for 10,000 creators and the CSV export of 100,000 payouts (dev/bench-payouts.mjs).
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, prepareData, signInViaOutbox, startTestStack } from "./local-app.mjs";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const LARGE_FILE = Number(process.env.BENCH_FILE_MIB ?? 1024) * 1024 * 1024;
const port = 8600 + Math.floor(Math.random() * 90);
const appUrl = `http://127.0.0.1:${port}`;
const state = mkdtempSync(join(tmpdir(), "apewall-bench-"));

console.log("Starting the app for the benchmark…");
build();
prepareData(state);
const stack = await startTestStack({ port, persistTo: state, label: "bench" });
const stripeUrl = stack.stripeUrl;

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function get(path, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get(`${appUrl}${path}`, { agent, headers }, (res) => {
      let firstByte;
      res.once("data", () => (firstByte = performance.now() - started));
      res.on("data", () => {});
      res.on("end", () => resolve({ status: res.statusCode, ms: performance.now() - started, ttfb: firstByte ?? performance.now() - started }));
    });
    req.on("error", reject);
  });
}

async function load(path) {
  for (let i = 0; i < CONCURRENCY; i++) await get(path); // warm the connections and caches
  const latencies = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) {
        const r = await get(path);
        if (r.status !== 200) failures++;
        latencies.push(r.ms);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { path, p50: pct(50), p99: pct(99), rps: latencies.length / seconds, failures };
}

const asset = "/favicon.svg";
const targets = [
  ["paywall page HTML", "/p/demoFieldGuide01"],
  ["public content call", "/api/content/demoFieldGuide01"],
  ["static asset", asset],
];
const results = [];
for (const [name, path] of targets) results.push({ name, ...(await load(path)) });
const base = results.find((r) => r.name === "static asset");
console.log(`\nLoad: ${REQUESTS} requests per target, ${CONCURRENCY} concurrent keep-alive connections, loopback, local workerd`);
console.log("target                 p50 ms   p99 ms    req/s   p50 vs static   req/s vs static   non-200");
for (const r of results) {
  console.log(
    `${r.name.padEnd(22)} ${r.p50.toFixed(1).padStart(6)}  ${r.p99.toFixed(1).padStart(7)}  ${r.rps.toFixed(0).padStart(7)}   ${(r.p50 / base.p50).toFixed(2).padStart(10)}x   ${(r.rps / base.rps).toFixed(2).padStart(14)}x   ${String(r.failures).padStart(7)}`,
  );
}

// ---- Range reads of a large purchased file ----
const origin = { origin: appUrl };
const cookie = await signInViaOutbox(appUrl, `bench-${Date.now()}@example.com`);
const up = await (await fetch(`${appUrl}/api/uploads`, { method: "POST", headers: { cookie, ...origin, "content-type": "application/json" }, body: JSON.stringify({ fileName: "big.mp4", size: LARGE_FILE, contentType: "video/mp4" }) })).json();
const part = Buffer.alloc(up.partSize, 7);
const queue = Array.from({ length: up.partCount }, (_, i) => i + 1);
await Promise.all(
  Array.from({ length: 4 }, async () => {
    for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
      const len = n < up.partCount ? up.partSize : LARGE_FILE - up.partSize * (up.partCount - 1);
      const res = await fetch(`${appUrl}/api/uploads/${up.id}/parts/${n}`, { method: "PUT", headers: { cookie, ...origin }, body: part.subarray(0, len) });
      if (!res.ok) throw new Error(`part ${n}: ${res.status}`);
    }
  }),
);
await fetch(`${appUrl}/api/uploads/${up.id}/complete`, { method: "POST", headers: { cookie, ...origin } });
const form = new FormData();
for (const [k, v] of Object.entries({ title: "Big video", price: "9", accessType: "stream", uploadId: up.id })) form.append(k, v);
const item = await (await fetch(`${appUrl}/api/content`, { method: "POST", headers: { cookie, ...origin }, body: form })).json();
const intentRes = await fetch(`${appUrl}/api/create-payment-intent`, { method: "POST", headers: { "content-type": "application/json", ...origin }, body: JSON.stringify({ contentId: item.id }) });
const buyer = intentRes.headers.getSetCookie().find((c) => c.startsWith("aw_buyer=")).split(";")[0];
const { clientSecret } = await intentRes.json();
const pi = clientSecret.split("_secret_")[0];
await fetch(`${stripeUrl}/v1/payment_intents/${pi}/confirm`, {
  method: "POST",
  headers: { authorization: `Bearer ${stack.publishableKey}`, "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ client_secret: clientSecret, "payment_method_data[type]": "card", "payment_method_data[card][number]": "4242424242424242", "payment_method_data[card][exp_month]": "12", "payment_method_data[card][exp_year]": "2034", "payment_method_data[card][cvc]": "123" }),
});
const verified = await (await fetch(`${appUrl}/api/purchase/verify?payment_intent=${pi}`, { headers: { cookie: buyer } })).json();
const fileUrl = verified.content.fileUrl;

console.log(`\nRange reads of a ${(LARGE_FILE / 1024 ** 3).toFixed(2)} GiB purchased file (64 KiB each, median of 7):`);
console.log("offset            TTFB ms   total ms   status");
for (const offset of [0, LARGE_FILE / 4, LARGE_FILE / 2, LARGE_FILE - 65536]) {
  const samples = [];
  let status;
  for (let i = 0; i < 7; i++) {
    const r = await get(fileUrl, { range: `bytes=${offset}-${offset + 65535}` });
    status = r.status;
    samples.push(r);
  }
  samples.sort((a, b) => a.ttfb - b.ttfb);
  const mid = samples[3];
  console.log(`${String(offset).padStart(12)}   ${mid.ttfb.toFixed(1).padStart(8)}   ${mid.ms.toFixed(1).padStart(8)}   ${status}`);
}

agent.destroy();
await stack.stop();
rmSync(state, { recursive: true, force: true });

// ---- payouts: the run for 10,000 creators and the CSV of 100,000 payouts (dev/bench-payouts.mjs) ----
await (await import("./bench-payouts.mjs")).benchPayouts();
