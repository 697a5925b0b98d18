// `npm run bench`: the paywall page HTML and the public content call under many concurrent
// connections on loopback, beside a static asset of the same server (p50, p99, requests/s, ratio);
// then time to first byte of Range reads at several offsets of a large purchased file; then the
// creator dashboard's calls at 100, 100,000 and 1,000,000 sales (dev/bench-dashboard.mjs); the
// payout run (a Workflow) for 10,000 creators (100,000 opt-in) and the CSV export of 100,000 payouts (dev/bench-payouts.mjs); the
// paywall page in Chromium: requests and bytes until 'Unlock' shows, and Lighthouse mobile
// performance (dev/bench-page.mjs); the Worker's size and startup (dev/bench-size.mjs).
// BENCH_ONLY=dashboard (or load, range, upsell, payouts, page, size; comma-separated) runs only those parts.
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, PASSED_CHECK, prepareData, signInViaOutbox, startTestStack } from "./local-app.mjs";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const LARGE_FILE = Number(process.env.BENCH_FILE_MIB ?? 1024) * 1024 * 1024;
const port = 8600 + Math.floor(Math.random() * 90);
const appUrl = `http://127.0.0.1:${port}`;
const state = mkdtempSync(join(tmpdir(), "apewall-bench-"));

const only = process.env.BENCH_ONLY;
const runs = (part) => !only || only.split(",").includes(part);

console.log("Starting the app for the benchmark…");
build();
// ---- size: the Worker's upload size and startup, from this build (dev/bench-size.mjs) ----
if (runs("size")) (await import("./bench-size.mjs")).benchSize();
if (only === "size") {
  rmSync(state, { recursive: true, force: true });
  process.exit(0);
}
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
      res.on("end", () =>
        resolve({
          status: res.statusCode,
          ms: performance.now() - started,
          ttfb: firstByte ?? performance.now() - started,
        }),
      );
    });
    req.on("error", reject);
  });
}

/** `count` requests to `path` over CONCURRENCY connections: each one's latency, the wall time, failures. */
async function load(path, count) {
  for (let i = 0; i < CONCURRENCY; i++) await get(path); // warm the connections and caches
  const latencies = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < count) {
        const r = await get(path);
        if (r.status !== 200) failures++;
        latencies.push(r.ms);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000, failures };
}

/**
 * Buys `contentId` as a new visitor with the test card 4242 (untimed set-up for the parts below):
 * checkout, confirm at the Stripe stand-in, then the verified purchase and the buyer's cookie.
 */
async function buyWithTestCard(contentId, body = {}, headers = {}) {
  const res = await fetch(`${appUrl}/api/create-payment-intent`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: appUrl, ...PASSED_CHECK, ...headers },
    body: JSON.stringify({ contentId, ...body }),
  });
  if (!res.ok) throw new Error(`checkout: ${res.status} ${await res.text()}`);
  const buyerCookie = res.headers
    .getSetCookie()
    .find((c) => c.startsWith("aw_buyer="))
    .split(";")[0];
  const { clientSecret } = await res.json();
  const paymentIntent = clientSecret.split("_secret_")[0];
  await fetch(`${stripeUrl}/v1/payment_intents/${paymentIntent}/confirm`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.publishableKey}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_secret: clientSecret,
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": "4242424242424242",
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": "2034",
      "payment_method_data[card][cvc]": "123",
    }),
  });
  const verified = await (
    await fetch(`${appUrl}/api/purchase/verify?payment_intent=${paymentIntent}`, { headers: { cookie: buyerCookie } })
  ).json();
  return { buyerCookie, verified, paymentIntent };
}

if (runs("load")) {
  const asset = "/favicon.svg";
  const targets = [
    ["paywall page HTML", "/p/demoFieldGuide01"],
    // The same cached page with a discount code written in as it streams out (goal within 10%).
    ["paywall ?code=", "/p/demoFieldGuide01?code=LAUNCH20"],
    ["public content call", "/api/content/demoFieldGuide01"],
    ["static asset", asset],
  ];
  // The targets take turns in rounds, so a machine that slows down or speeds up mid-run weighs on all
  // of them alike rather than on whichever ran then.
  const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
  const runsOf = targets.map(() => ({ latencies: [], seconds: 0, failures: 0 }));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, [, path]] of targets.entries()) {
      const r = await load(path, Math.ceil(REQUESTS / ROUNDS));
      runsOf[i].latencies.push(...r.latencies);
      runsOf[i].seconds += r.seconds;
      runsOf[i].failures += r.failures;
    }
  }
  const results = targets.map(([name, path], i) => {
    const { latencies, seconds, failures } = runsOf[i];
    latencies.sort((a, b) => a - b);
    const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    return { name, path, p50: pct(50), p99: pct(99), rps: latencies.length / seconds, failures };
  });
  const base = results.find((r) => r.name === "static asset");
  const plain = results.find((r) => r.name === "paywall page HTML");
  const coded = results.find((r) => r.name === "paywall ?code=");
  console.log(
    `\nLoad: ${REQUESTS} requests per target in ${ROUNDS} interleaved rounds, ${CONCURRENCY} concurrent keep-alive connections, loopback, local workerd`,
  );
  console.log("target                 p50 ms   p99 ms    req/s   p50 vs static   req/s vs static   non-200");
  for (const r of results) {
    console.log(
      `${r.name.padEnd(22)} ${r.p50.toFixed(1).padStart(6)}  ${r.p99.toFixed(1).padStart(7)}  ${r.rps.toFixed(0).padStart(7)}   ${(r.p50 / base.p50).toFixed(2).padStart(10)}x   ${(r.rps / base.rps).toFixed(2).padStart(14)}x   ${String(r.failures).padStart(7)}`,
    );
  }
  console.log(
    `paywall with ?code= vs without: ${((coded.rps / plain.rps) * 100).toFixed(0)}% of the req/s, p50 ${(coded.p50 / plain.p50).toFixed(2)}x (goal: within 10%)`,
  );
  const call = results.find((r) => r.name === "public content call");
  console.log(`public content call vs static: ${(call.rps / base.rps).toFixed(2)}x the req/s (goal: ≥ 0.9x)`);
}

// ---- Range reads of a large purchased file ----
if (runs("range")) {
  const origin = { origin: appUrl };
  const cookie = await signInViaOutbox(appUrl, `bench-${Date.now()}@example.com`);
  const up = await (
    await fetch(`${appUrl}/api/uploads`, {
      method: "POST",
      headers: { cookie, ...origin, "content-type": "application/json" },
      body: JSON.stringify({ fileName: "big.mp4", size: LARGE_FILE, contentType: "video/mp4" }),
    })
  ).json();
  const part = Buffer.alloc(up.partSize, 7);
  const queue = Array.from({ length: up.partCount }, (_, i) => i + 1);
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let n = queue.shift(); n !== undefined; n = queue.shift()) {
        const len = n < up.partCount ? up.partSize : LARGE_FILE - up.partSize * (up.partCount - 1);
        const res = await fetch(`${appUrl}/api/uploads/${up.id}/parts/${n}`, {
          method: "PUT",
          headers: { cookie, ...origin },
          body: part.subarray(0, len),
        });
        if (!res.ok) throw new Error(`part ${n}: ${res.status}`);
      }
    }),
  );
  await fetch(`${appUrl}/api/uploads/${up.id}/complete`, { method: "POST", headers: { cookie, ...origin } });
  const form = new FormData();
  for (const [k, v] of Object.entries({ title: "Big video", price: "9", accessType: "stream", uploadId: up.id }))
    form.append(k, v);
  const item = await (
    await fetch(`${appUrl}/api/content`, { method: "POST", headers: { cookie, ...origin }, body: form })
  ).json();
  const { verified } = await buyWithTestCard(item.id);
  const fileUrl = verified.content.fileUrl;

  console.log(
    `\nRange reads of a ${(LARGE_FILE / 1024 ** 3).toFixed(2)} GiB purchased file (64 KiB each, median of 7):`,
  );
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
    console.log(
      `${String(offset).padStart(12)}   ${mid.ttfb.toFixed(1).padStart(8)}   ${mid.ms.toFixed(1).padStart(8)}   ${status}`,
    );
  }
}

if (runs("upsell")) {
  // ---- One-click upsells: from 'Add this to my order' to access granted ----
  const ACCEPTS = Number(process.env.BENCH_ACCEPTS ?? 200);
  // Its own creator: the range part's sign-in is scoped to that part's block.
  const origin = { origin: appUrl };
  const cookie = await signInViaOutbox(appUrl, `bench-upsell-${Date.now()}@example.com`);
  const post = (path, body, extra = {}) =>
    fetch(`${appUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...origin, ...extra },
      body: JSON.stringify(body),
    });
  const publishLink = async (title, price) => {
    const f = new FormData();
    for (const [k, v] of Object.entries({
      title,
      price,
      accessType: "link",
      linkUrl: `https://example.com/${title.replace(/\W/g, "")}`,
    }))
      f.append(k, v);
    return (
      await (await fetch(`${appUrl}/api/content`, { method: "POST", headers: { cookie, ...origin }, body: f })).json()
    ).id;
  };
  const mainId = await publishLink("Bench course", "20");
  const upsellId = await publishLink("Bench workbook", "15");
  const { priceId } = await (
    await post("/api/stripe/create-upsell-product", { name: "Bench workbook", price: 15 }, { cookie })
  ).json();
  const funnel = await (await post("/api/funnels", { name: "Bench funnel" }, { cookie })).json();
  await post(`/api/funnels/${funnel.id}/products`, { contentIds: [mainId] }, { cookie });
  const step = await (
    await post(
      `/api/funnels/${funnel.id}/steps`,
      { title: "Add the workbook", offerPriceId: priceId, contentId: upsellId },
      { cookie },
    )
  ).json();
  await fetch(`${appUrl}/api/funnels/${funnel.id}`, {
    method: "PATCH",
    headers: { "content-type": "application/json", cookie, ...origin },
    body: JSON.stringify({ testMode: false }),
  });

  // Paid purchases to accept on, each from its own browser, with the offer already on screen (untimed).
  let buyers = 0;
  async function paidPurchase() {
    // Each buyer is a different visitor: the checkout limit is per client address.
    const n = ++buyers;
    const { buyerCookie, verified: v } = await buyWithTestCard(
      mainId,
      { buyerEmail: "bench-buyer@example.com" },
      { "cf-connecting-ip": `10.9.${n >> 8}.${n & 255}` },
    );
    const offer = await (
      await fetch(`${appUrl}/api/upsell/offer?purchaseId=${v.purchase.id}`, { headers: { cookie: buyerCookie } })
    ).json();
    if (offer.offer?.stepId !== step.id) throw new Error("no offer on screen");
    return { purchaseId: v.purchase.id, buyerCookie };
  }
  const parents = [];
  let toMake = ACCEPTS;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (toMake-- > 0) parents.push(await paidPurchase());
    }),
  );

  const acceptMs = [];
  const grantedMs = [];
  for (const { purchaseId, buyerCookie } of parents) {
    const started = performance.now();
    const r = await (await post("/api/upsell/accept", { purchaseId, stepId: step.id }, { cookie: buyerCookie })).json();
    if (r.status !== "paid") throw new Error(`accept: ${JSON.stringify(r)}`);
    acceptMs.push(performance.now() - started);
    // Access granted: the order lists the upsell with its own access link.
    const order = await (
      await fetch(`${appUrl}/api/upsell/order?purchaseId=${purchaseId}`, { headers: { cookie: buyerCookie } })
    ).json();
    if (order.items?.[0]?.content?.id !== upsellId) throw new Error("upsell not in the order");
    grantedMs.push(performance.now() - started);
  }
  const pctOf = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
  console.log(
    `\nOne-click upsells: ${ACCEPTS} accepts, one at a time, each on its own paid purchase (off-session charge through the Stripe stand-in)`,
  );
  console.log("measure                                          p50 ms   p99 ms");
  console.log(
    `${"accept answered 'paid' (charged + fulfilled)".padEnd(48)} ${pctOf(acceptMs, 50).toFixed(1).padStart(6)}  ${pctOf(acceptMs, 99).toFixed(1).padStart(7)}`,
  );
  console.log(
    `${"accept -> order lists it with access".padEnd(48)} ${pctOf(grantedMs, 50).toFixed(1).padStart(6)}  ${pctOf(grantedMs, 99).toFixed(1).padStart(7)}`,
  );
}

// ---- dashboard: the creator's calls at 100, 100,000 and 1,000,000 sales (dev/bench-dashboard.mjs) ----
if (runs("dashboard")) await (await import("./bench-dashboard.mjs")).benchDashboard({ appUrl });

// ---- page: the paywall page in Chromium and Lighthouse (dev/bench-page.mjs) ----
if (runs("page")) await (await import("./bench-page.mjs")).benchPage({ appUrl, buy: buyWithTestCard });

agent.destroy();
await stack.stop();
rmSync(state, { recursive: true, force: true });

// ---- payouts: the run for 10,000 creators and the CSV of 100,000 payouts (dev/bench-payouts.mjs) ----
if (runs("payouts")) await (await import("./bench-payouts.mjs")).benchPayouts();
