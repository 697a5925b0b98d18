// The admin API: server-side guard, the payout summary equal to ledger sums after sales, refunds,
// disputes and payouts, creator rows, 'Process All Payouts' pressed twice, month/year validation,
// the CSV (name, rows, injection), Fix Missing Emails and the feedback inbox.
import { createScheduledController, introspectWorkflow } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  CSV_ROW_COUNT_HEADER,
  csvDataRowCount,
  type AdminCreatorPayoutRow,
  type MonthlyReport,
} from "../../../shared/admin";
import { handleScheduled, MONTHLY_PAYOUT_CRON } from "../../cron";
import { createDb, type Db } from "../../db/client";
import { csvCell, payoutsCsvExport } from "../../services/payouts-csv";
import { runPayoutSteps } from "./payout-steps";
import { closingPeriod } from "../../services/payouts/period";
import { payoutDeps } from "../../deps";
import {
  call,
  checkout,
  connectedAccount,
  contentForm,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
} from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.now();
const P = closingPeriod(NOW);
const MM = String(P.month).padStart(2, "0");

/**
 * Runs `fn` (presses of 'Process All Payouts') and waits for the period's runs (one Workflow
 * instance per press that found the last run finished) and every transfer send they started to
 * end; the local engine forgets the instances afterwards.
 */
async function withRun(fn: () => Promise<void>) {
  const runs = await introspectWorkflow(env.PAYOUT_RUN);
  const sends = await introspectWorkflow(env.PAYOUT_SEND);
  try {
    await sends.modifyAll(async (m) => m.disableRetryDelays());
    await fn();
    for (const run of await runs.get()) await run.waitForStatus("complete");
    for (const send of await sends.get()) await send.waitForStatus("complete");
  } finally {
    await sends.dispose();
    await runs.dispose();
  }
}
/** The id of one of the period's runs: the first, or a later press's (`-r{n}`). */
const periodRunId = expect.stringMatching(new RegExp(`^payouts-${P.year}-${MM}(-r\\d+)?$`));

const accounts: Record<string, string> = {};
async function creator(id: string, kind: "bank" | "paypal" | "none", firstName: string | null = null) {
  await env.DB.prepare("insert into users (id, email, first_name) values (?, ?, ?)")
    .bind(id, `${id}@example.com`, firstName)
    .run();
  if (kind === "bank") {
    accounts[id] = await connectedAccount();
    await env.DB.prepare(
      "insert into payout_settings (user_id, method, email, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, 'bank', ?, ?, 1, 1)",
    )
      .bind(id, `${id}@example.com`, accounts[id])
      .run();
  }
  if (kind === "paypal")
    await env.DB.prepare("insert into payout_settings (user_id, method, email) values (?, 'paypal', ?)")
      .bind(id, `@pp-${id}`)
      .run();
}

/** Ledger rows as fulfil and reverseSale write them: creator 80%, platform 20%. */
async function book(
  userId: string,
  pid: string,
  kind: "sale" | "refund" | "dispute",
  cents: number,
  at = NOW - 10 * DAY,
) {
  const sign = kind === "sale" ? 1 : -1;
  const fee = Math.round(cents * 0.2);
  await env.DB.batch([
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'creator', ?, ?, ?, ?, ?)",
    ).bind(`${kind}:${pid}:creator`, userId, kind, sign * (cents - fee), pid, at),
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'platform', null, ?, ?, ?, ?)",
    ).bind(`${kind}:${pid}:platform`, kind === "sale" ? "platform_fee" : kind, sign * fee, pid, at),
  ]);
}

let admin: string;
let someone: string;
beforeAll(async () => {
  admin = await signIn("admin@apewall.test");
  someone = await signIn("not-admin@example.com");
});

const get = <T>(path: string) =>
  call(path, { cookie: admin }).then(async (r) => ({ status: r.status, body: (await r.json()) as T }));

describe("admin guard", () => {
  const endpoints: [string, string][] = [
    ["GET", "/api/admin/payout-summary"],
    ["GET", `/api/admin/creator-payouts?month=${P.month}&year=${P.year}`],
    ["GET", "/api/admin/monthly-reports"],
    ["POST", "/api/admin/process-payouts"],
    ["GET", `/api/admin/export-payouts?month=${P.month}&year=${P.year}`],
    ["POST", "/api/admin/fix-purchase-emails"],
    ["GET", "/api/admin/feedback"],
  ];
  it("every /api/admin call: 401 signed out, 403 for a creator; nothing is run", async () => {
    for (const [method, path] of endpoints) {
      const init =
        method === "POST"
          ? {
              method,
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ month: P.month, year: P.year }),
            }
          : {};
      expect((await call(path, init)).status, path).toBe(401);
      const res = await call(path, { ...init, cookie: someone });
      expect(res.status, path).toBe(403);
    }
    expect(await row("select count(*) as n from admin_audit")).toEqual({ n: 0 });
  });
});

describe("month and year", () => {
  it("a clear 400 for a bad month or year, and nothing is processed", async () => {
    const bad: [string, RegExp][] = [
      ["month=13&year=2026", /month must be a whole number from 1 to 12/],
      ["month=0&year=2026", /month must be/],
      ["month=abc&year=2026", /month must be/],
      ["month=1.5&year=2026", /month must be/],
      ["month=1&year=2023", /year must be a whole number from 2024 to 2030/],
      ["month=1&year=2031", /year must be/],
      ["year=2026", /month/],
    ];
    for (const [q, message] of bad) {
      for (const path of ["/api/admin/creator-payouts", "/api/admin/export-payouts"]) {
        const res = await call(`${path}?${q}`, { cookie: admin });
        expect(res.status, `${path}?${q}`).toBe(400);
        expect((await res.json<{ message: string }>()).message).toMatch(message);
      }
    }
    const res = await postJson("/api/admin/process-payouts", { month: 13, year: 2026 }, admin);
    expect(res.status).toBe(400);
    const current = new Date(NOW);
    const open = await postJson(
      "/api/admin/process-payouts",
      { month: current.getUTCMonth() + 1, year: current.getUTCFullYear() },
      admin,
    );
    expect(open.status).toBe(400);
    expect((await open.json<{ message: string }>()).message).toMatch(/has not ended yet/);
    expect(await row("select count(*) as n from payouts")).toEqual({ n: 0 });
  });
});

describe("payouts from the admin's side", () => {
  it("summary figures equal ledger sums after sales, refunds, disputes and payouts; Process All Payouts is safe twice; CSV", async () => {
    await creator("alice", "bank", "Alice");
    await creator("bob", "paypal", "Bob");
    await creator("carol", "paypal", '=HYPERLINK("http://evil")');
    await creator("dave", "bank", "Dave");
    await creator("erin", "none", "Erin");
    await book("alice", "pa1", "sale", 10000);
    await book("alice", "pa1", "refund", 2500);
    await book("bob", "pb1", "sale", 5000);
    await book("bob", "pb1", "dispute", 5000);
    await book("carol", "pc1", "sale", 5000);
    await book("dave", "pd1", "sale", 5000);
    await book("erin", "pe1", "sale", 4000);
    await standin("POST", "/_standin/transfers/fail_next", {
      destination: accounts.dave,
      code: "insufficient_capabilities_for_transfer",
    });

    // The cron's run: alice paid by transfer, carol waits for the admin, dave's transfer fails.
    await withRun(() =>
      handleScheduled(createScheduledController({ cron: MONTHLY_PAYOUT_CRON, scheduledTime: NOW }), env as never),
    );
    expect(await rows("select user_id, status from payouts order by user_id")).toEqual([
      { user_id: "alice", status: "paid" },
      { user_id: "carol", status: "pending" },
      { user_id: "dave", status: "failed" },
    ]);

    const ledgerSum = async (where: string) =>
      Number(
        (await row<{ c: number }>(
          `select coalesce(sum(l.amount_cents), 0) as c from ledger_entries l left join payouts p on p.id = l.payout_id where ${where}`,
        ))!.c,
      ) / 100;
    const { body: summary } = await get<Record<string, number>>("/api/admin/payout-summary");
    expect(summary).toEqual({
      totalRevenue: 215,
      platformCommission: 43,
      totalPayouts: 60,
      creatorCount: 5,
      pendingPayouts: 40,
    });
    expect(summary.totalRevenue).toBe(await ledgerSum("l.kind in ('sale', 'platform_fee', 'refund', 'dispute')"));
    expect(summary.platformCommission).toBe(await ledgerSum("l.account = 'platform'"));
    expect(summary.totalPayouts).toBe(-(await ledgerSum("l.kind = 'payout' and p.status = 'paid'")));
    expect(summary.pendingPayouts).toBe(
      -(await ledgerSum("l.kind = 'payout' and p.status in ('pending', 'processing')")),
    );

    const { body: creators } = await get<AdminCreatorPayoutRow[]>(
      `/api/admin/creator-payouts?month=${P.month}&year=${P.year}`,
    );
    const byId = Object.fromEntries(creators.map((c) => [c.userId, c]));
    expect(byId.dave).toMatchObject({
      availableBalance: 40,
      status: "Failed",
      payoutSetUp: true,
      payoutMethod: "bank",
      payout: { status: "failed", amount: 40, notes: expect.stringContaining("capabilities") },
    });
    expect(byId.erin).toMatchObject({ availableBalance: 32, status: "Not set up", payoutSetUp: false, payout: null });
    expect(byId.alice).toMatchObject({
      firstName: "Alice",
      email: "alice@example.com",
      totalEarnings: 60,
      availableBalance: 0,
      status: "Paid",
      payout: { status: "paid", amount: 60 },
    });
    expect(byId.carol).toMatchObject({
      payoutMethod: "paypal",
      payoutEmail: "@pp-carol",
      payout: { status: "pending", amount: 40 },
    });
    expect(byId.bob).toMatchObject({
      totalEarnings: 0,
      availableBalance: 0,
      // Nothing available (sold and charged back): nothing to pay, not 'Below Minimum ($25)'.
      status: "Nothing to pay",
      statusLabel: "Nothing to pay",
      payout: null,
    });

    // Pressed twice with the list's manual payouts (paid by hand): dave is prepared again and paid,
    // carol is marked paid, nothing twice.
    const markPaid = creators.filter((c) => c.payout?.status === "pending").map((c) => c.payout!.id);
    // The press starts the period's run (dave is prepared and sent in the background) and marks carol paid;
    // the second press (joining the run, or running it again if it finished) marks nothing more.
    await withRun(async () => {
      const first = await postJson("/api/admin/process-payouts", { month: P.month, year: P.year, markPaid }, admin);
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({
        run: { id: `payouts-${P.year}-${MM}`, started: true },
        markedProcessed: 1,
      });
      const second = await postJson("/api/admin/process-payouts", { month: P.month, year: P.year, markPaid }, admin);
      expect(await second.json()).toMatchObject({ run: { id: periodRunId }, markedProcessed: 0 });
    });

    expect(
      await rows("select user_id, status, amount_cents from payouts where status <> 'failed' order by user_id"),
    ).toEqual([
      { user_id: "alice", status: "paid", amount_cents: 6000 },
      { user_id: "carol", status: "paid", amount_cents: 4000 },
      { user_id: "dave", status: "paid", amount_cents: 4000 },
    ]);
    expect((await get<Record<string, number>>("/api/admin/payout-summary")).body).toMatchObject({
      totalPayouts: 140,
      pendingPayouts: 0,
    });
    const audit = await rows<{ action: string; actor_email: string | null; period_year: number; period_month: number }>(
      "select action, actor_email, period_year, period_month from admin_audit order by id",
    );
    expect(audit).toEqual([
      { action: "scheduled-payout-run", actor_email: null, period_year: P.year, period_month: P.month },
      { action: "process-payouts", actor_email: "admin@apewall.test", period_year: P.year, period_month: P.month },
      { action: "process-payouts", actor_email: "admin@apewall.test", period_year: P.year, period_month: P.month },
    ]);

    // Monthly report of the month the sales were booked in equals the ledger.
    const { body: reports } = await get<MonthlyReport[]>("/api/admin/monthly-reports");
    const booked = new Date(NOW - 10 * DAY);
    const report = reports.find((r) => r.year === booked.getUTCFullYear() && r.month === booked.getUTCMonth() + 1);
    expect(report).toMatchObject({ totalRevenue: 215, platformEarnings: 43, transactionCount: 5 });
    expect(reports.find((r) => r.year === P.year && r.month === P.month)?.creatorPayouts).toBe(140);

    // The CSV: file named for the period, one row per payout, formula cells neutralised.
    const csv = await call(`/api/admin/export-payouts?month=${P.month}&year=${P.year}`, { cookie: admin });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="payouts-${P.year}-${MM}.csv"`);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "payout_id,creator_id,creator_name,creator_email,method,payout_email,amount,currency,status,stripe_transfer_id,stripe_account_id,created_at,processed_at,notes",
    );
    expect(lines).toHaveLength(1 + 4);
    const carolLine = lines.find((l) => l.includes(",carol,"))!;
    expect(carolLine).toContain(`,"'=HYPERLINK(""http://evil"")",carol@example.com,paypal,'@pp-carol,40.00,usd,paid,`);
    expect(
      lines
        .filter((l) => l.includes(",dave,"))
        .map((l) => l.split(",")[8])
        .sort(),
    ).toEqual(["failed", "paid"]);
  });
});

describe("payout CSV never ends early", () => {
  const Q = { year: 2025, month: 3 };
  async function seedPayouts(n: number) {
    for (let i = 0; i < n; i++) {
      await env.DB.prepare("insert into users (id, email) values (?, ?)")
        .bind(`csv-creator-${i}`, `csv-creator-${i}@example.com`)
        .run();
      await env.DB.prepare(
        "insert into payouts (id, user_id, amount_cents, method, email, status, period_year, period_month, notes, created_at) values (?, ?, 2500, 'paypal', '@pp', 'paid', ?, ?, ?, ?)",
      )
        .bind(
          `po_csv_${i}`,
          `csv-creator-${i}`,
          Q.year,
          Q.month,
          i === 0 ? 'line one\nline two, with "quotes"' : null,
          Date.UTC(2025, 3, 1, 2),
        )
        .run();
    }
  }
  /** The database, except that its `all` fails from the `failAt`-th call on (a D1 error on a later page). */
  const failingFrom = (db: Db, failAt: number): Db => {
    let calls = 0;
    return new Proxy(db, {
      get(target, key, receiver) {
        if (key !== "all") return Reflect.get(target, key, receiver);
        return (...args: unknown[]) =>
          ++calls >= failAt
            ? Promise.reject(new Error("D1_ERROR: simulated"))
            : (target.all as (...a: unknown[]) => unknown)(...args);
      },
    });
  };

  it("states its row count, which the body matches; a D1 error on a later page fails the stream, short of that count", async () => {
    await seedPayouts(5);
    const res = await call(`/api/admin/export-payouts?month=${Q.month}&year=${Q.year}`, { cookie: admin });
    expect(res.status).toBe(200);
    expect(res.headers.get(CSV_ROW_COUNT_HEADER)).toBe("5");
    expect(csvDataRowCount(await res.text())).toBe(5);

    // Pages of 2: the count and the first page read, then D1 fails.
    const { rowCount, stream } = await payoutsCsvExport(failingFrom(createDb(env.DB), 3), Q, { pageSize: 2 });
    expect(rowCount).toBe(5);
    const reader = stream.getReader();
    let text = "";
    const decoder = new TextDecoder();
    const failure = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return null;
        text += decoder.decode(value);
      }
    })().catch((err: Error) => err);
    expect(failure?.message).toMatch(/D1_ERROR/);
    expect(csvDataRowCount(text)).toBe(2);
  });

  it("the formula guard also covers a leading LF, BOM, NBSP and the full-width = + - @", () => {
    for (const lead of ["\n", "\uFEFF", "\u00A0", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20", " =", "\u00A0=", "\uFEFF+"]) {
      const cell = csvCell(`${lead}HYPERLINK("http://evil")`);
      expect(cell.replace(/^"/, "").startsWith("'"), JSON.stringify(lead)).toBe(true);
    }
    expect(csvCell("plain text")).toBe("plain text");
    expect(csvCell("25.00")).toBe("25.00");
  });
});

describe("Fix Missing Emails", () => {
  it("fills the missing buyer emails of paid purchases from Stripe and says how many", async () => {
    const cookie = await signIn("fixer@example.com");
    const item = await (
      await postForm(
        "/api/content",
        contentForm({ title: "Zine", price: "5", linkUrl: "https://example.com/z", accessType: "link" }),
        cookie,
      )
    ).json<{ id: string }>();
    const { paymentIntent } = await checkout(item.id, { email: "reader@example.com" });
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    await env.DB.prepare("update purchases set buyer_email = null where payment_intent_id = ?")
      .bind(paymentIntent)
      .run();

    const res = await call("/api/admin/fix-purchase-emails", { method: "POST", cookie: admin });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ fixed: 1, total: 1, remaining: 0, next: null });
    expect(await row("select buyer_email from purchases where payment_intent_id = ?", paymentIntent)).toEqual({
      buyer_email: "reader@example.com",
    });
    expect(await (await call("/api/admin/fix-purchase-emails", { method: "POST", cookie: admin })).json()).toEqual({
      fixed: 0,
      total: 0,
      remaining: 0,
      next: null,
    });
  });
});

describe("feedback inbox", () => {
  it("lists feedback newest first, filtered by type and priority", async () => {
    for (const [type, priority, subject] of [
      ["bug", "high", "one"],
      ["feature", "low", "two"],
      ["bug", "urgent", "three"],
    ]) {
      expect(
        (await postJson("/api/feedback", { type, priority, subject, message: `m ${subject}`, email: "f@example.com" }))
          .status,
      ).toBe(201);
      await new Promise((r) => setTimeout(r, 5));
    }
    const all = (
      await get<
        { subject: string; type: string; priority: string; email: string; message: string; createdAt: string }[]
      >("/api/admin/feedback")
    ).body;
    expect(all.map((f) => f.subject)).toEqual(["three", "two", "one"]);
    expect(all[0]).toMatchObject({ type: "bug", priority: "urgent", message: "m three", email: "f@example.com" });
    expect((await get<{ subject: string }[]>("/api/admin/feedback?type=bug")).body.map((f) => f.subject)).toEqual([
      "three",
      "one",
    ]);
    expect(
      (await get<{ subject: string }[]>("/api/admin/feedback?type=bug&priority=high")).body.map((f) => f.subject),
    ).toEqual(["one"]);
    expect((await call("/api/admin/feedback?priority=asap", { cookie: admin })).status).toBe(400);
  });
});

describe("Process All Payouts marks paid only what the admin saw", () => {
  it("a list of 10,000 manual payouts can be marked paid in one press (its ids are larger than the usual 64 KB body limit)", async () => {
    const markPaid = Array.from(
      { length: 10_000 },
      (_, i) => `listed-payout-${String(i).padStart(8, "0")}-${"x".repeat(40)}`,
    );
    expect(JSON.stringify({ month: P.month, year: P.year, markPaid }).length).toBeGreaterThan(64 * 1024);
    await withRun(async () => {
      const res = await postJson("/api/admin/process-payouts", { month: P.month, year: P.year, markPaid }, admin);
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await res.json<{ markedProcessed: number }>()).markedProcessed).toBe(0);
    });
  });

  it("a creator sets up PayPal after the list was fetched: their new payout is prepared, not marked paid; pressing twice marks nothing more", async () => {
    await creator("gina", "paypal", "Gina");
    await book("gina", "pg1", "sale", 5000);
    expect(await runPayoutSteps(payoutDeps(env as never), P, { now: NOW })).toMatchObject({ prepared: 1 });

    // The admin reads the list and pays gina's PayPal payout by hand.
    const { body: list } = await get<AdminCreatorPayoutRow[]>(
      `/api/admin/creator-payouts?month=${P.month}&year=${P.year}`,
    );
    const seen = list.filter((r) => r.payout?.status === "pending").map((r) => r.payout!.id);
    expect(seen).toHaveLength(1);

    // Meanwhile frank sets up PayPal, with money available.
    const frank = await signIn("frank@example.com");
    const frankId = (await row<{ id: string }>("select id from users where email = 'frank@example.com'"))!.id;
    await book(frankId, "pf1", "sale", 5000);
    expect(
      (await postJson("/api/payout/setup", { payoutMethod: "paypal", payoutEmail: "frank@example.com" }, frank)).status,
    ).toBe(200);

    await withRun(async () => {
      const first = await postJson(
        "/api/admin/process-payouts",
        { month: P.month, year: P.year, markPaid: seen },
        admin,
      );
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ run: { started: true }, markedProcessed: 1 });
      const second = await postJson(
        "/api/admin/process-payouts",
        { month: P.month, year: P.year, markPaid: seen },
        admin,
      );
      expect(await second.json()).toMatchObject({ run: { id: periodRunId }, markedProcessed: 0 });
    });
    expect(
      await rows(
        "select u.email, p.status from payouts p join users u on u.id = p.user_id where u.email in ('frank@example.com', 'gina@example.com') order by u.email",
      ),
    ).toEqual([
      { email: "frank@example.com", status: "pending" },
      { email: "gina@example.com", status: "paid" },
    ]);
    const audit = await rows<{ detail: string }>(
      "select detail from admin_audit where action = 'process-payouts' order by id desc limit 2",
    );
    expect(audit.map((a) => JSON.parse(a.detail).markedPaid)).toEqual([[], seen]);
  });

  it("ids that are not pending manual payouts of the period are left alone; a malformed list is a 400", async () => {
    await creator("hank", "bank", "Hank");
    await book("hank", "ph1", "sale", 5000);
    await runPayoutSteps(payoutDeps(env as never), P, { now: NOW });
    const hankPayout = (await row<{ id: string }>("select id from payouts where user_id = 'hank'"))!.id;
    await withRun(async () => {
      const res = await postJson(
        "/api/admin/process-payouts",
        { month: P.month, year: P.year, markPaid: [hankPayout, "nope"] },
        admin,
      );
      expect(await res.json()).toMatchObject({ markedProcessed: 0 });
    });
    for (const markPaid of ["x", [1], Array.from({ length: 10_001 }, () => "a")]) {
      const bad = await postJson("/api/admin/process-payouts", { month: P.month, year: P.year, markPaid }, admin);
      expect(bad.status).toBe(400);
      expect(typeof (await bad.json<{ message: string }>()).message).toBe("string");
    }
  });
});

describe("bank payouts go through Connect only", () => {
  it("a restricted account never makes a manual 'bank' payout; it falls back to the creator's PayPal; a chosen manual default is paid by hand", async () => {
    const restricted = await connectedAccount();
    await standin("POST", `/_standin/accounts/${restricted}/restrict`);
    const ready = await connectedAccount();
    const restricted2 = await connectedAccount();
    await standin("POST", `/_standin/accounts/${restricted2}/restrict`);
    for (const [id, method, account, enabled, dflt] of [
      ["ivan", "bank", restricted, 0, null], // an old row: connecting once wrote 'bank' over the manual method
      ["judy", "paypal", restricted2, 0, null],
      ["kim", "paypal", ready, 1, "manual"],
    ] as const) {
      await env.DB.prepare("insert into users (id, email) values (?, ?)").bind(id, `${id}@example.com`).run();
      await env.DB.prepare(
        "insert into payout_settings (user_id, method, email, stripe_account_id, connect_details_submitted, connect_payouts_enabled, payout_default) values (?, ?, ?, ?, 1, ?, ?)",
      )
        .bind(id, method, `${id}@example.com`, account, enabled, dflt)
        .run();
      await book(id, `p-${id}`, "sale", 5000);
    }
    await runPayoutSteps(payoutDeps(env as never), P, { now: NOW });
    expect(
      await rows(
        "select user_id, method, stripe_account_id, status from payouts where user_id in ('ivan', 'judy', 'kim') order by user_id",
      ),
    ).toEqual([
      { user_id: "judy", method: "paypal", stripe_account_id: null, status: "pending" },
      { user_id: "kim", method: "paypal", stripe_account_id: null, status: "pending" },
    ]);
    const { body: list } = await get<AdminCreatorPayoutRow[]>(
      `/api/admin/creator-payouts?month=${P.month}&year=${P.year}`,
    );
    expect(list.find((r) => r.userId === "ivan")).toMatchObject({ payoutSetUp: false, payout: null });
    expect(list.find((r) => r.userId === "judy")).toMatchObject({
      payoutSetUp: true,
      payoutMethod: "paypal",
      payoutEmail: "judy@example.com",
    });
  });
});
