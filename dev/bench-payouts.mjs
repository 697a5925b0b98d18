// Part of `npm run bench` (also runs alone: `node dev/bench-payouts.mjs` after `vite build`):
// 1. the payout run for BENCH_CREATORS (10,000) seeded creators with released sales, 10% of them
//    paid by transfer (to the Stripe stand-in; beyond the first 50 through the PAYOUTS queue), the rest by
//    hand: wall time, D1 statements and round trips per creator, as the run itself counts them;
// 2. the CSV export of BENCH_CSV_PAYOUTS (100,000) payouts of one month: time, bytes, and the peak
//    RSS of the workerd process while the response streams.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareData, root, rssKbOf, signInViaOutbox, startTestStack, workerdPidOf } from "./local-app.mjs";

const bin = (name) => `${root}node_modules/.bin/${name}`;

const CREATORS = Number(process.env.BENCH_CREATORS ?? 10_000);
const CSV_PAYOUTS = Number(process.env.BENCH_CSV_PAYOUTS ?? 100_000);
// Every BANK_EVERY-th creator has a connected account and is paid by transfer.
const BANK_EVERY = Number(process.env.BENCH_BANK_EVERY ?? 10);
const DAY = 24 * 60 * 60 * 1000;


/** Seeds users, payout settings, released sales and one month of payouts with recursive CTEs (no giant SQL file). */
function seed(state) {
  const users = Math.max(CREATORS, CSV_PAYOUTS);
  const saleAt = Date.now() - 10 * DAY;
  const sql = `
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${users})
    INSERT INTO users (id, email, first_name, last_name) SELECT 'bench' || i, 'bench' || i || '@example.com', 'Bench', 'Creator ' || i FROM n;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CREATORS})
    INSERT INTO payout_settings (user_id, method, email, stripe_account_id, connect_details_submitted, connect_payouts_enabled)
      SELECT 'bench' || i, CASE WHEN i % ${BANK_EVERY} = 0 THEN 'bank' ELSE 'paypal' END, 'pay' || i || '@example.com',
             CASE WHEN i % ${BANK_EVERY} = 0 THEN 'acct_bench' || i END, CASE WHEN i % ${BANK_EVERY} = 0 THEN 1 ELSE 0 END,
             CASE WHEN i % ${BANK_EVERY} = 0 THEN 1 ELSE 0 END FROM n;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CREATORS})
    INSERT INTO ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at)
      SELECT 'sale:bp' || i || ':creator', 'creator', 'bench' || i, 'sale', 4000 + i % 500, 'bp' || i, ${saleAt} FROM n;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CREATORS})
    INSERT INTO ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at)
      SELECT 'sale:bp' || i || ':platform', 'platform', NULL, 'platform_fee', 1000, 'bp' || i, ${saleAt} FROM n;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CSV_PAYOUTS})
    INSERT INTO payouts (id, user_id, amount_cents, method, email, status, period_year, period_month, created_at, processed_at, notes)
      SELECT 'csv' || printf('%07d', i), 'bench' || i, 2500 + i % 10000, 'paypal', CASE WHEN i % 1000 = 0 THEN '=cmd|calc' ELSE 'pay' || i || '@example.com' END,
             'paid', 2025, 1, ${Date.UTC(2025, 1, 1)}, ${Date.UTC(2025, 1, 15)}, NULL FROM n;
  `;
  const file = join(state, "bench-payouts.sql");
  writeFileSync(file, sql);
  const started = performance.now();
  execFileSync(bin("wrangler"), ["d1", "execute", "DB", "--local", "--file", file, "--config", `${root}dist/apewall/wrangler.json`, "--persist-to", state], { cwd: root, stdio: "ignore", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } });
  console.log(`  seeded ${users} users, ${CREATORS} creators with released sales, ${CSV_PAYOUTS} payouts of January 2025 (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

export async function benchPayouts() {
  const state = mkdtempSync(join(tmpdir(), "apewall-bench-payouts-"));
  const port = 8700 + Math.floor(Math.random() * 90);
  console.log("\nPayouts: preparing the data…");
  prepareData(state);
  seed(state);
  const stack = await startTestStack({ port, persistTo: state, label: "bench" });
  try {
    const base = stack.url;
    const runtime = workerdPidOf(stack.child);
    // The seeded connected accounts exist on the stand-in too, with platform funds to pay them.
    const control = (path, body) =>
      fetch(`${stack.stripeUrl}${path}`, { method: "POST", headers: { authorization: "Bearer sk_test_bench", "content-type": "application/x-www-form-urlencoded" }, body });
    const accountIds = Array.from({ length: Math.floor(CREATORS / BANK_EVERY) }, (_, k) => `acct_bench${(k + 1) * BANK_EVERY}`);
    for (let k = 0; k < accountIds.length; k += 500) {
      const form = new URLSearchParams();
      accountIds.slice(k, k + 500).forEach((id, j) => form.append(`ids[${j}]`, id));
      await control("/_standin/accounts/import", form);
    }
    await control("/_standin/balance/top_up", new URLSearchParams({ amount: String(1_000_000_000) }));
    const cookie = await signInViaOutbox(base, "admin@apewall.test");
    const now = new Date();
    const closing = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const period = { month: closing.getUTCMonth() + 1, year: closing.getUTCFullYear() };

    // 1. The run, as the admin does it: 'Process All Payouts' prepares the month and sends the
    // transfers; the creator list then shows the manual payouts, which the admin pays by hand and
    // marks paid with a second press that names exactly those (markPaid).
    let started = performance.now();
    const press = async (body) => {
      const res = await fetch(`${base}/api/admin/process-payouts`, { method: "POST", headers: { cookie, origin: base, "content-type": "application/json" }, body: JSON.stringify(body) });
      const answer = await res.json();
      if (res.status !== 200) throw new Error(`process-payouts ${res.status}: ${JSON.stringify(answer)}`);
      return answer;
    };
    const run = await press(period);
    const seconds = (performance.now() - started) / 1000;
    console.log(`\nPayout run for ${CREATORS} creators (${Math.floor(CREATORS / BANK_EVERY)} by transfer to the stand-in, the rest by hand), one call:`);
    console.log(`  ${seconds.toFixed(1)} s wall, ${((seconds * 1000) / CREATORS).toFixed(2)} ms per creator`);
    console.log(`  prepared ${run.prepared}, sent ${run.sent} in the run and ${run.queued} through the PAYOUTS queue, failed ${run.failed}`);
    let listed = performance.now();
    const rows = await (await fetch(`${base}/api/admin/creator-payouts?month=${period.month}&year=${period.year}`, { headers: { cookie } })).json();
    const markPaid = rows.flatMap((r) => (r.payout?.status === "pending" ? [r.payout.id] : []));
    const marked = await press({ ...period, markPaid });
    console.log(`  the admin's list (${rows.length} rows) and the press naming its ${markPaid.length} pending payouts: ${marked.markedProcessed} paid by hand marked paid (transfers are never marked) in ${((performance.now() - listed) / 1000).toFixed(1)} s`);
    // The queued transfers: done when nothing is pending any more.
    for (;;) {
      const summary = await (await fetch(`${base}/api/admin/payout-summary`, { headers: { cookie } })).json();
      if (summary.pendingPayouts === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    console.log(`  every payout paid ${((performance.now() - started) / 1000).toFixed(1)} s after the first press (queued transfers and the manual marking included)`);
    console.log(`  D1 in the run's own invocation: ${run.d1Statements} statements in ${run.d1RoundTrips} round trips = ${(run.d1Statements / CREATORS).toFixed(2)} statements and ${(run.d1RoundTrips / CREATORS).toFixed(3)} round trips per creator (each queued transfer then costs ~4 round trips in the consumer)`);
    started = performance.now();
    const again = await (await fetch(`${base}/api/admin/process-payouts`, { method: "POST", headers: { cookie, origin: base, "content-type": "application/json" }, body: JSON.stringify(period) })).json();
    console.log(`  pressed again: prepared ${again.prepared}, sent ${again.sent}, ${again.d1Statements} statements, ${((performance.now() - started) / 1000).toFixed(1)} s`);

    // 2. The CSV of 100,000 payouts, read as a browser downloads it, while sampling workerd's RSS.
    const baseline = runtime ? rssKbOf(runtime) : 0;
    let peak = baseline;
    const sampler = setInterval(() => runtime && (peak = Math.max(peak, rssKbOf(runtime))), 25);
    started = performance.now();
    const csv = await fetch(`${base}/api/admin/export-payouts?month=1&year=2025`, { headers: { cookie } });
    let bytes = 0;
    let lines = 0;
    let firstByteMs = 0;
    for await (const chunk of csv.body) {
      if (!firstByteMs) firstByteMs = performance.now() - started;
      bytes += chunk.length;
      for (const b of chunk) if (b === 10) lines++;
    }
    clearInterval(sampler);
    if (runtime) peak = Math.max(peak, rssKbOf(runtime));
    console.log(`\nCSV export of ${CSV_PAYOUTS} payouts (${csv.headers.get("content-disposition")}):`);
    console.log(`  ${lines - 1} rows, ${(bytes / 1024 / 1024).toFixed(1)} MiB in ${((performance.now() - started) / 1000).toFixed(1)} s, first byte after ${firstByteMs.toFixed(0)} ms`);
    console.log(`  workerd RSS before ${(baseline / 1024).toFixed(0)} MiB, peak ${(peak / 1024).toFixed(0)} MiB (+${((peak - baseline) / 1024).toFixed(0)} MiB)`);
  } finally {
    await stack.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPayouts();
