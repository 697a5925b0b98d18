// `npm run bench:upload`: uploads generated 1 GiB and 4 GiB files through the local app the way the
// browser does (POST /api/uploads, 10 MiB parts, 4 at a time, complete) and prints throughput and
// the local runtime's peak memory for each. Runs on its own fresh local state and port.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, prepareData, rssKbOf, signInViaOutbox, startTestStack, workerdPidOf } from "./local-app.mjs";

const GiB = 1024 ** 3;
const sizes = (process.env.BENCH_SIZES ?? "1,4").split(",").map((s) => Math.round(Number(s) * GiB));
const CONCURRENCY = 4;
const port = 8700 + Math.floor(Math.random() * 90);
const state = mkdtempSync(join(tmpdir(), "apewall-bench-"));

console.log("Starting the app for the benchmark…");
build();
prepareData(state);
const stack = await startTestStack({ port, persistTo: state, label: "bench" });
const base = stack.url;
const runtime = workerdPidOf(stack.child);
if (!runtime) throw new Error("could not find the workerd process");

// Sign in through the emailed link, as a creator would.
const cookie = await signInViaOutbox(base, `bench-${Date.now()}@example.com`);
const headers = { cookie, origin: base };

const results = [];
for (const size of sizes) {
  const created = await (
    await fetch(`${base}/api/uploads`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ fileName: `bench-${size}.bin`, size, contentType: "application/octet-stream" }),
    })
  ).json();
  const { id, partSize, partCount } = created;
  const full = Buffer.alloc(partSize, 0x5a);
  const baseline = rssKbOf(runtime);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssKbOf(runtime))), 50);
  const started = performance.now();
  const queue = Array.from({ length: partCount }, (_, i) => i + 1);
  const worker = async () => {
    for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
      const length = n < partCount ? partSize : size - partSize * (partCount - 1);
      const body = length === partSize ? full : full.subarray(0, length);
      const res = await fetch(`${base}/api/uploads/${id}/parts/${n}`, {
        method: "PUT",
        headers: { ...headers, "content-type": "application/octet-stream" },
        body,
      });
      if (!res.ok) throw new Error(`part ${n}: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const done = await fetch(`${base}/api/uploads/${id}/complete`, { method: "POST", headers });
  if (!done.ok) throw new Error(`complete: ${done.status} ${await done.text()}`);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssKbOf(runtime));
  results.push({ size, seconds, baseline, peak, partCount });
  console.log(
    `${+(size / GiB).toFixed(2)} GiB: ${partCount} parts in ${seconds.toFixed(1)} s = ${(size / 1024 ** 2 / seconds).toFixed(1)} MiB/s; ` +
      `workerd RSS before ${(baseline / 1024).toFixed(0)} MiB, peak ${(peak / 1024).toFixed(0)} MiB (+${((peak - baseline) / 1024).toFixed(0)} MiB)`,
  );
}
if (results.length >= 2) {
  const [a, b] = [results[0], results[results.length - 1]];
  console.log(
    `peak RSS of the ${+(b.size / GiB).toFixed(2)} GiB run minus the ${+(a.size / GiB).toFixed(2)} GiB run: ${((b.peak - a.peak) / 1024).toFixed(1)} MiB`,
  );
}
await stack.stop();
rmSync(state, { recursive: true, force: true });
