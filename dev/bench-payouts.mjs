// Part of `npm run bench` (also runs alone: `node dev/bench-payouts.mjs` after `vite build`):
// 1. the payout run (PayoutRunWorkflow in wrangler dev's local Workflows) for BENCH_CREATORS (10,000)
//    seeded creators with released sales, and again for BENCH_CREATORS_LARGE (100,000) creators when
//    that is set (opt-in: about 40 minutes here), 10% of them paid by transfer (each its own
//    PayoutSendWorkflow instance, to the Stripe stand-in), the rest by hand: wall time until the run's
//    instance completes, D1 round trips per creator (the run's own count, from its log line), time until
//    every transfer is paid, then the admin's marking of the manual payouts;
// 2. the CSV export of BENCH_CSV_PAYOUTS (100,000) payouts of one month: time, bytes, and the peak
//    RSS of the workerd process while the response streams.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { prepareData, root, rssKbOf, signInViaOutbox, startTestStack, workerdPidOf } from "./local-app.mjs";

const bin = (name) => `${root}node_modules/.bin/${name}`;

const CREATORS = Number(process.env.BENCH_CREATORS ?? 10_000);
const CREATORS_LARGE = Number(process.env.BENCH_CREATORS_LARGE ?? 0);
const CSV_PAYOUTS = Number(process.env.BENCH_CSV_PAYOUTS ?? 100_000);
// Every BANK_EVERY-th creator has a connected account and is paid by transfer.
const BANK_EVERY = Number(process.env.BENCH_BANK_EVERY ?? 10);
const DAY = 24 * 60 * 60 * 1000;

/** Seeds users, payout settings, released sales and one month of payouts with recursive CTEs (no giant SQL file). */
function seed(state, CREATORS) {
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
    -- The money kernel's rows: every 5th creator has a refund on its way (reserved), every 10th one
    -- that settled since (reserved, then posted), so the prepare reads reservations as it would live.
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CREATORS})
    INSERT INTO ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at)
      SELECT 'reserve:refund-request:rbp' || i, 'creator', 'bench' || i, 'reserve', -400, 'bp' || i, ${saleAt + DAY} FROM n WHERE i % 5 = 0;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CREATORS})
    INSERT INTO ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at)
      SELECT 'release:refund-request:rbp' || i, 'creator', 'bench' || i, 'reserve_posted', 400, 'bp' || i, ${saleAt + 2 * DAY} FROM n WHERE i % 10 = 0;
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CSV_PAYOUTS})
    INSERT INTO payouts (id, user_id, amount_cents, method, email, status, period_year, period_month, created_at, processed_at, notes)
      SELECT 'csv' || printf('%07d', i), 'bench' || i, 2500 + i % 10000, 'paypal', CASE WHEN i % 1000 = 0 THEN '=cmd|calc' ELSE 'pay' || i || '@example.com' END,
             'paid', 2025, 1, ${Date.UTC(2025, 1, 1)}, ${Date.UTC(2025, 1, 15)}, NULL FROM n;
  `;
  const file = join(state, "bench-payouts.sql");
  writeFileSync(file, sql);
  const started = performance.now();
  execFileSync(
    bin("wrangler"),
    [
      "d1",
      "execute",
      "DB",
      "--local",
      "--file",
      file,
      "--config",
      `${root}dist/apewall/wrangler.json`,
      "--persist-to",
      state,
    ],
    { cwd: root, stdio: "ignore", env: { ...process.env, WRANGLER_SEND_METRICS: "false" } },
  );
  console.log(
    `  seeded ${users} users, ${CREATORS} creators with released sales, ${CSV_PAYOUTS} payouts of January 2025 (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
}

export async function benchPayouts() {
  for (const [i, creators] of [CREATORS, CREATORS_LARGE].filter(Boolean).entries())
    await benchRun(creators, { withCsv: i === 0 });
  if (!CREATORS_LARGE)
    console.log(
      "\n  (100,000 creators: BENCH_CREATORS_LARGE=100000 BENCH_ONLY=payouts npm run bench; opt-in: locally the run prepares ~200 creators/s and pays ~5 transfers/s, about 40 minutes here)",
    );
}

async function benchRun(CREATORS, { withCsv }) {
  const state = mkdtempSync(join(tmpdir(), "apewall-bench-payouts-"));
  const port = 8700 + Math.floor(Math.random() * 90);
  console.log(`\nPayouts (${CREATORS} creators): preparing the data…`);
  prepareData(state);
  seed(state, CREATORS);
  const stack = await startTestStack({ port, persistTo: state, label: "bench" });
  try {
    const base = stack.url;
    const runtime = workerdPidOf(stack.child);
    // The seeded connected accounts exist on the stand-in too, with platform funds to pay them.
    const control = (path, body) =>
      fetch(`${stack.stripeUrl}${path}`, {
        method: "POST",
        headers: { authorization: "Bearer sk_test_bench", "content-type": "application/x-www-form-urlencoded" },
        body,
      });
    const transfers = Math.floor(CREATORS / BANK_EVERY);
    const accountIds = Array.from({ length: transfers }, (_, k) => `acct_bench${(k + 1) * BANK_EVERY}`);
    for (let k = 0; k < accountIds.length; k += 500) {
      const form = new URLSearchParams();
      accountIds.slice(k, k + 500).forEach((id, j) => {
        form.append(`ids[${j}]`, id);
      });
      await control("/_standin/accounts/import", form);
    }
    await control("/_standin/balance/top_up", new URLSearchParams({ amount: String(10_000_000_000) }));
    const cookie = await signInViaOutbox(base, "admin@apewall.test");
    const now = new Date();
    const closing = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const period = { month: closing.getUTCMonth() + 1, year: closing.getUTCFullYear() };
    const view = async () =>
      (
        await fetch(`${base}/api/admin/payout-run?month=${period.month}&year=${period.year}`, { headers: { cookie } })
      ).json();

    // 1. The run, as the admin starts it ('Process All Payouts' creates the period's Workflow
    // instance, as the cron does on the 1st); its progress is read from GET /api/admin/payout-run.
    let started = performance.now();
    const press = async (body) => {
      const res = await fetch(`${base}/api/admin/process-payouts`, {
        method: "POST",
        headers: { cookie, origin: base, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await res.json();
      if (res.status !== 200) throw new Error(`process-payouts ${res.status}: ${JSON.stringify(answer)}`);
      return answer;
    };
    const first = await press(period);
    const pressMs = performance.now() - started;
    let v;
    for (;;) {
      v = await view();
      if (v.run.status === "errored" || v.run.status === "terminated")
        throw new Error(`the run ${v.run.id} ${v.run.status}: ${v.run.error}`);
      if (v.run.status === "complete") break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const runSeconds = (performance.now() - started) / 1000;
    for (;;) {
      v = await view();
      if (v.paid >= transfers && v.sent === 0 && v.retrying === 0) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const paidSeconds = (performance.now() - started) / 1000;
    const line = stack
      .output()
      .split("\n")
      .reverse()
      .find((l) => l.includes(`payout run ${v.run.id} complete`));
    const out = line ? JSON.parse(line.slice(line.indexOf("{"))) : null;
    console.log(
      `\nPayout run for ${CREATORS} creators (${transfers} by transfer to the stand-in, the rest by hand), as a Workflow:`,
    );
    console.log(
      `  the press answered in ${pressMs.toFixed(0)} ms (run ${first.run.id} ${first.run.started ? "started" : "joined"}; wrangler dev's local engine answers the create only once the run is under way)`,
    );
    console.log(
      `  the run's instance complete after ${runSeconds.toFixed(1)} s wall (${((runSeconds * 1000) / CREATORS).toFixed(2)} ms per creator): prepared ${v.prepared}, failed ${v.failed}`,
    );
    if (out)
      console.log(
        `  its steps: ${out.pages} prepare pages + ${Math.ceil(out.sendsStarted / 100) + 1} send-start pages; D1 ${out.d1RoundTrips} round trips = ${(out.d1RoundTrips / CREATORS).toFixed(3)} per creator with the money kernel's reservations (before the kernel: 0.076; each transfer then costs ~5 round trips in its own send instance); skipped ${out.skipped}`,
      );
    console.log(`  every transfer paid ${paidSeconds.toFixed(1)} s after the press (${v.paid} paid)`);
    const listed = performance.now();
    const rows = await (
      await fetch(`${base}/api/admin/creator-payouts?month=${period.month}&year=${period.year}`, {
        headers: { cookie },
      })
    ).json();
    const markPaid = rows.flatMap((r) => (r.payout?.status === "pending" ? [r.payout.id] : []));
    const marked = await press({ ...period, markPaid: markPaid.slice(0, 10_000) });
    console.log(
      `  the admin's list (${rows.length} rows) and the press naming ${Math.min(markPaid.length, 10_000)} of its ${markPaid.length} pending payouts: ${marked.markedProcessed} paid by hand marked paid (transfers are never marked) in ${((performance.now() - listed) / 1000).toFixed(1)} s`,
    );
    started = performance.now();
    const again = await press(period);
    console.log(
      `  pressed again: the run ${again.run.started ? "ran again" : "was joined"}, ${again.d1Statements} statements, ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    if (!withCsv) return;

    // 2. The CSV of 100,000 payouts, read as a browser downloads it, while sampling workerd's RSS.
    const baseline = runtime ? rssKbOf(runtime) : 0;
    let peak = baseline;
    const sampler = setInterval(() => {
      if (runtime) peak = Math.max(peak, rssKbOf(runtime));
    }, 25);
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
    console.log(
      `  ${lines - 1} rows, ${(bytes / 1024 / 1024).toFixed(1)} MiB in ${((performance.now() - started) / 1000).toFixed(1)} s, first byte after ${firstByteMs.toFixed(0)} ms`,
    );
    console.log(
      `  workerd RSS before ${(baseline / 1024).toFixed(0)} MiB, peak ${(peak / 1024).toFixed(0)} MiB (+${((peak - baseline) / 1024).toFixed(0)} MiB)`,
    );
  } finally {
    await stack.stop();
    rmSync(state, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchPayouts();
