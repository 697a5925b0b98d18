// The admin screen says what is true, and the admin's actions on one payout: each creator row's
// status (the seven words), and mark paid / mark failed / hold / release / re-send, each audited,
// each safe to press twice or at once, refused with 403 / 400 / 404 / 409 as it should be.
import { introspectWorkflow } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  BELOW_MINIMUM,
  READY_FOR_PAYOUT,
  type AdminCreatorPayoutRow,
  type CreatorHoldResult,
  type PayoutActionResult,
} from "../../../shared/admin";
import { creatorWithSales, DAY } from "./payout-fixtures";
import { runPayoutSteps } from "./payout-steps";
import { closingPeriod } from "../../services/payouts/period";
import { payoutDeps } from "../../deps";
import { call, env, outbox, postJson, row, rows, signIn, standin } from "../support/helpers";

const NOW = Date.now();
const P = closingPeriod(NOW);

const creator = (kind: "bank" | "paypal" | "none", cents: number) => creatorWithSales(kind, cents, { now: NOW });

/** A payout of the period in the given state, written as the run and sendPayout leave it (with its ledger row). */
async function payoutIn(
  userId: string,
  status: "pending" | "processing" | "paid" | "failed",
  cents: number,
  extra: { account?: string; nextRetryAt?: number; lastError?: string } = {},
) {
  const id = `po_${userId}_${status}`;
  await env.DB.batch([
    env.DB.prepare(
      "insert into payouts (id, user_id, amount_cents, method, email, stripe_account_id, status, period_year, period_month, next_retry_at, last_error, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ).bind(
      id,
      userId,
      cents,
      extra.account ? "bank" : "paypal",
      extra.account ? null : "pp@example.com",
      extra.account ?? null,
      status,
      P.year,
      P.month,
      extra.nextRetryAt ?? null,
      extra.lastError ?? null,
      NOW - DAY,
    ),
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id, created_at) values (?, 'creator', ?, 'payout', ?, ?, ?)",
    ).bind(`payout:${id}`, userId, -cents, id, NOW - DAY),
    ...(status === "failed"
      ? [
          env.DB.prepare(
            "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, payout_id, created_at) values (?, 'creator', ?, 'payout_reversal', ?, ?, ?)",
          ).bind(`payout-reversal:${id}`, userId, cents, id, NOW - DAY),
        ]
      : []),
  ]);
  return id;
}

let admin: string;
let someone: string;
beforeAll(async () => {
  admin = await signIn("admin@apewall.test");
  someone = await signIn("not-admin-payouts@example.com");
});

async function list(): Promise<Record<string, AdminCreatorPayoutRow>> {
  const res = await call(`/api/admin/creator-payouts?month=${P.month}&year=${P.year}`, { cookie: admin });
  expect(res.status).toBe(200);
  return Object.fromEntries((await res.json<AdminCreatorPayoutRow[]>()).map((r) => [r.userId, r]));
}

describe("each creator row's status is true", () => {
  it("a paid creator reads Paid (not 'Below Minimum ($25)'), and a creator with $286 and no payout method reads Not set up", async () => {
    const paid = await creator("paypal", 6240);
    await payoutIn(paid.id, "paid", 6240);
    const unset = await creator("none", 28600);
    const rowsNow = await list();
    expect(rowsNow[paid.id]).toMatchObject({
      status: "Paid",
      statusLabel: "Paid",
      availableBalance: 0,
      payout: { amount: 62.4, status: "paid" },
    });
    expect(rowsNow[unset.id]).toMatchObject({
      status: "Not set up",
      statusLabel: "Not set up",
      availableBalance: 286,
      payoutSetUp: false,
      payout: null,
    });
  });

  it("each of the seven: Paid, Pending, Retrying, Failed, Held, Not set up, Below minimum; the spec's words where they are true", async () => {
    const paid = await creator("paypal", 4000);
    await payoutIn(paid.id, "paid", 4000);
    const pending = await creator("paypal", 4000);
    await payoutIn(pending.id, "pending", 4000);
    const ready = await creator("paypal", 3000);
    const retrying = await creator("bank", 5000);
    await payoutIn(retrying.id, "processing", 5000, {
      account: retrying.account!,
      nextRetryAt: NOW + 60_000,
      lastError: "StripeAPIError api_error (500): boom",
    });
    const sending = await creator("bank", 5000);
    await payoutIn(sending.id, "processing", 5000, { account: sending.account! });
    const failed = await creator("paypal", 4500);
    await payoutIn(failed.id, "failed", 4500);
    const held = await creator("paypal", 9000);
    await env.DB.prepare("update payout_settings set held_at = ?, held_reason = 'Checking a dispute' where user_id = ?")
      .bind(NOW, held.id)
      .run();
    const notSetUp = await creator("none", 5000);
    const below = await creator("paypal", 1000);
    const belowUnset = await creator("none", 1000);

    const r = await list();
    expect(r[paid.id]).toMatchObject({ status: "Paid", statusLabel: "Paid" });
    expect(r[pending.id]).toMatchObject({
      status: "Pending",
      statusLabel: "Pending",
      payout: { status: "pending", byTransfer: false },
    });
    expect(r[ready.id]).toMatchObject({ status: "Pending", statusLabel: READY_FOR_PAYOUT, payout: null });
    expect(r[retrying.id]).toMatchObject({
      status: "Retrying",
      statusLabel: "Retrying",
      payout: {
        status: "processing",
        byTransfer: true,
        lastError: expect.stringContaining("api_error"),
        nextRetryAt: new Date(NOW + 60_000).toISOString(),
      },
    });
    expect(r[sending.id]).toMatchObject({ status: "Pending", payout: { status: "processing" } });
    expect(r[failed.id]).toMatchObject({
      status: "Failed",
      statusLabel: "Failed",
      availableBalance: 45,
      payout: { status: "failed" },
    });
    expect(r[held.id]).toMatchObject({
      status: "Held",
      statusLabel: "Held",
      held: { reason: "Checking a dispute", at: new Date(NOW).toISOString() },
    });
    expect(r[notSetUp.id]).toMatchObject({ status: "Not set up", statusLabel: "Not set up" });
    expect(r[below.id]).toMatchObject({ status: "Below minimum", statusLabel: BELOW_MINIMUM });
    expect(r[belowUnset.id]).toMatchObject({ status: "Below minimum", statusLabel: BELOW_MINIMUM });
  });

  it("the CSV's status column agrees with the list: a transfer Stripe has not settled reads retrying", async () => {
    const retrying = await creator("bank", 5000);
    const id = await payoutIn(retrying.id, "processing", 5000, {
      account: retrying.account!,
      nextRetryAt: NOW + 60_000,
      lastError: "api_error",
    });
    const csv = await (
      await call(`/api/admin/export-payouts?month=${P.month}&year=${P.year}`, { cookie: admin })
    ).text();
    const line = csv.split("\r\n").find((l) => l.startsWith(`${id},`))!;
    expect(line.split(",")[8]).toBe("retrying");
  });
});

/** The period prepared by the run, as the cron does: a creator's monthly payout, pending (by hand) or sent (by transfer). */
async function prepared(kind: "paypal" | "bank", cents: number) {
  const c = await creator(kind, cents);
  await runPayoutSteps(payoutDeps(env as never), P, { now: NOW });
  const p = await row<{ id: string; status: string }>(
    "select id, status from payouts where user_id = ? and status <> 'failed'",
    c.id,
  );
  return { ...c, payoutId: p!.id };
}
const act = (path: string, body: unknown = {}, cookie = admin) => postJson(path, body, cookie);
const balanceOf = async (userId: string) =>
  Number(
    (await row<{ c: number }>(
      "select coalesce(sum(amount_cents), 0) as c from ledger_entries where user_id = ? and account = 'creator'",
      userId,
    ))!.c,
  );
const auditOf = (action: string, id: string) =>
  rows<{ detail: string }>("select detail from admin_audit where action = ? and detail like ?", action, `%${id}%`);
const SUBJECTS = { "payout-paid": /payout of .* was sent/, "payout-failed": /payout could not be sent/ };
const mailsTo = async (userId: string, template: keyof typeof SUBJECTS) =>
  (await outbox()).filter((m) => m.to === `${userId}@example.com` && SUBJECTS[template].test(m.subject));

describe("admin actions for one payout", () => {
  it("mark paid with a reference: paid, reference stored, creator emailed once; pressed twice and at once it is one change; audited", async () => {
    const c = await prepared("paypal", 4000);
    const path = `/api/admin/payouts/${c.payoutId}/mark-paid`;
    const [a, b] = await Promise.all([act(path, { reference: "PP-TX-1" }), act(path, { reference: "PP-TX-1" })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const answers = [await a.json<PayoutActionResult>(), await b.json<PayoutActionResult>()];
    expect(answers.map((x) => x.changed).sort()).toEqual([false, true]);
    for (const x of answers)
      expect(x.payout).toMatchObject({
        id: c.payoutId,
        status: "paid",
        rowStatus: "Paid",
        reference: "PP-TX-1",
        amount: 40,
      });
    const again = await act(path, { reference: "PP-TX-2" });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ changed: false, payout: { status: "paid", reference: "PP-TX-1" } });
    expect(await row("select status, reference from payouts where id = ?", c.payoutId)).toEqual({
      status: "paid",
      reference: "PP-TX-1",
    });
    expect(await balanceOf(c.id)).toBe(0);
    await expect.poll(async () => (await mailsTo(c.id, "payout-paid")).length, { timeout: 10_000 }).toBe(1);
    expect((await auditOf("payout-mark-paid", c.payoutId)).map((r) => JSON.parse(r.detail).changed).sort()).toEqual([
      false,
      false,
      true,
    ]);
    expect((await list())[c.id]).toMatchObject({ status: "Paid", payout: { reference: "PP-TX-1" } });
  });

  it("mark failed with a reason: failed, money booked back once, the creator emailed the reason; twice and at once is one booking; a paid payout is 409", async () => {
    const c = await prepared("paypal", 5000);
    expect(await balanceOf(c.id)).toBe(0);
    const path = `/api/admin/payouts/${c.payoutId}/mark-failed`;
    const reason =
      "Your PayPal account could not receive the payment. Check your PayPal email in your payout settings.";
    const [a, b] = await Promise.all([act(path, { reason }), act(path, { reason })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([(await a.json<PayoutActionResult>()).changed, (await b.json<PayoutActionResult>()).changed].sort()).toEqual(
      [false, true],
    );
    const again = await act(path, { reason: "another" });
    expect(await again.json()).toMatchObject({
      changed: false,
      payout: { status: "failed", rowStatus: "Failed", notes: reason },
    });
    expect(await balanceOf(c.id)).toBe(5000);
    expect(
      await rows("select kind, amount_cents from ledger_entries where payout_id = ? order by id", c.payoutId),
    ).toEqual([
      { kind: "payout", amount_cents: -5000 },
      { kind: "payout_reversal", amount_cents: 5000 },
    ]);
    await expect.poll(async () => (await mailsTo(c.id, "payout-failed")).length, { timeout: 10_000 }).toBe(1);
    expect((await mailsTo(c.id, "payout-failed"))[0].text).toContain(reason);
    expect((await list())[c.id]).toMatchObject({ status: "Failed", availableBalance: 50 });

    // A paid payout cannot be failed by hand, nor a failed one marked paid.
    const paid = await prepared("paypal", 3000);
    expect((await act(`/api/admin/payouts/${paid.payoutId}/mark-paid`, { reference: "R1" })).status).toBe(200);
    const refused = await act(`/api/admin/payouts/${paid.payoutId}/mark-failed`, { reason });
    expect(refused.status).toBe(409);
    expect((await refused.json<{ message: string }>()).message).toMatch(/paid/);
    expect((await act(`/api/admin/payouts/${c.payoutId}/mark-paid`, { reference: "R2" })).status).toBe(409);
    expect(await balanceOf(paid.id)).toBe(0);
  });

  it("a transfer payout is Stripe's to decide: mark failed and mark paid answer 409, nothing changes", async () => {
    const c = await creator("bank", 4000);
    const id = await payoutIn(c.id, "processing", 4000, {
      account: c.account!,
      nextRetryAt: NOW + 60_000,
      lastError: "api_error",
    });
    for (const [action, body] of [
      ["mark-failed", { reason: "no" }],
      ["mark-paid", { reference: "x" }],
    ] as const) {
      const res = await act(`/api/admin/payouts/${id}/${action}`, body);
      expect(res.status, action).toBe(409);
      expect((await res.json<{ message: string }>()).message).toMatch(/Stripe decides/);
    }
    expect(await row("select status from payouts where id = ?", id)).toEqual({ status: "processing" });
    expect(await balanceOf(c.id)).toBe(0);
  });

  it("re-send: a failed transfer payout is prepared again and sent (one transfer, also pressed at once); a retrying one is sent now; a manual pending one is 409", async () => {
    const c = await creator("bank", 6000);
    await standin("POST", "/_standin/transfers/fail_next", {
      destination: c.account!,
      code: "insufficient_capabilities_for_transfer",
    });
    await runPayoutSteps(payoutDeps(env as never), P, { now: NOW });
    const failed = await row<{ id: string; status: string }>("select id, status from payouts where user_id = ?", c.id);
    expect(failed!.status).toBe("failed");
    expect((await list())[c.id]).toMatchObject({ status: "Failed" });
    const path = `/api/admin/payouts/${failed!.id}/resend`;
    // The re-prepared payout is sent by its own send Workflow: the answers name it, and it is paid moments later.
    const sends = await introspectWorkflow(env.PAYOUT_SEND);
    let answers: PayoutActionResult[];
    try {
      const [a, b] = await Promise.all([act(path), act(path)]);
      expect([a.status, b.status]).toEqual([200, 200]);
      answers = [await a.json<PayoutActionResult>(), await b.json<PayoutActionResult>()];
      expect(answers[0].payout!.id).toBe(answers[1].payout!.id);
      expect(answers[0].payout!.id).not.toBe(failed!.id);
      // One change for two presses: the one that prepared it (the other joins the same send).
      expect(answers.map((x) => x.changed).sort()).toEqual([false, true]);
      const started = await sends.get();
      expect(started).toHaveLength(1);
      await started[0].waitForStatus("complete");
      expect(await started[0].getOutput()).toEqual({ payoutId: answers[0].payout!.id, outcome: "paid" });
    } finally {
      await sends.dispose();
    }
    const again = await act(path);
    expect(await again.json()).toMatchObject({ changed: false, payout: { id: answers[0].payout!.id, status: "paid" } });
    expect(
      await rows("select status, amount_cents from payouts where user_id = ? order by created_at, status", c.id),
    ).toEqual([
      { status: "failed", amount_cents: 6000 },
      { status: "paid", amount_cents: 6000 },
    ]);
    const { body: transfers } = await standin<{ data: { amount: number }[] }>(
      "GET",
      `/v1/transfers?destination=${c.account}&limit=100`,
    );
    expect(transfers.data.map((t) => t.amount)).toEqual([6000]);
    expect(await balanceOf(c.id)).toBe(0);
    expect((await list())[c.id]).toMatchObject({ status: "Paid" });

    // Retrying: a transient error left it processing; re-send sends it now.
    const r = await creator("bank", 3000);
    await standin("POST", "/_standin/transfers/fail_next", { destination: r.account!, code: "api_error" });
    await runPayoutSteps(payoutDeps(env as never), P, { now: NOW });
    const retrying = await row<{ id: string }>("select id from payouts where user_id = ?", r.id);
    expect((await list())[r.id]).toMatchObject({ status: "Retrying" });
    const sent = await act(`/api/admin/payouts/${retrying!.id}/resend`);
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({
      changed: true,
      payout: { id: retrying!.id, status: "paid", rowStatus: "Paid" },
    });
    expect((await act(`/api/admin/payouts/${retrying!.id}/resend`)).status).toBe(200);

    const manual = await prepared("paypal", 3000);
    const refused = await act(`/api/admin/payouts/${manual.payoutId}/resend`);
    expect(refused.status).toBe(409);
    expect((await refused.json<{ message: string }>()).message).toMatch(/by hand/);
    expect(await row("select status from payouts where id = ?", manual.payoutId)).toEqual({ status: "pending" });
  });

  it("re-send of a failed manual payout prepares it again, pending for the admin; a held creator is 409 until released", async () => {
    const c = await prepared("paypal", 4000);
    expect((await act(`/api/admin/payouts/${c.payoutId}/mark-failed`, { reason: "Wrong PayPal email" })).status).toBe(
      200,
    );
    expect((await act(`/api/admin/creators/${c.id}/hold`, { reason: "Checking" })).status).toBe(200);
    const held = await act(`/api/admin/payouts/${c.payoutId}/resend`);
    expect(held.status).toBe(409);
    expect((await held.json<{ message: string }>()).message).toMatch(/held/);
    expect((await act(`/api/admin/creators/${c.id}/release`)).status).toBe(200);
    const res = await act(`/api/admin/payouts/${c.payoutId}/resend`);
    expect(res.status).toBe(200);
    const body = await res.json<PayoutActionResult>();
    expect(body).toMatchObject({ changed: true, payout: { status: "pending", rowStatus: "Pending", amount: 40 } });
    expect(await balanceOf(c.id)).toBe(0);
    expect((await list())[c.id]).toMatchObject({ status: "Pending", payout: { id: body.payout!.id } });
  });

  it("hold and release a creator: the run skips them, their pending manual payout is untouched; twice and at once is one change; audited", async () => {
    const c = await prepared("paypal", 4000);
    const other = await creator("paypal", 5000);
    const path = `/api/admin/creators/${other.id}/hold`;
    const [a, b] = await Promise.all([
      act(path, { reason: "Checking a dispute" }),
      act(path, { reason: "Another reason" }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const answers = [await a.json<CreatorHoldResult>(), await b.json<CreatorHoldResult>()];
    expect(answers.map((x) => x.changed).sort()).toEqual([false, true]);
    expect(answers[0].held).toEqual(answers[1].held);
    await runPayoutSteps(payoutDeps(env as never), P, { now: NOW });
    expect(await row("select count(*) as n from payouts where user_id = ?", other.id)).toEqual({ n: 0 });
    expect((await list())[other.id]).toMatchObject({
      status: "Held",
      held: { reason: expect.stringMatching(/^(Checking a dispute|Another reason)$/) },
    });

    // Holding a creator whose manual payout is prepared leaves that payout as it is.
    expect((await act(`/api/admin/creators/${c.id}/hold`, { reason: "Paused" })).status).toBe(200);
    expect(await row("select status from payouts where id = ?", c.payoutId)).toEqual({ status: "pending" });
    expect((await list())[c.id]).toMatchObject({ status: "Held", payout: { status: "pending" } });

    const release = `/api/admin/creators/${other.id}/release`;
    const [r1, r2] = await Promise.all([act(release), act(release)]);
    expect([(await r1.json<CreatorHoldResult>()).changed, (await r2.json<CreatorHoldResult>()).changed].sort()).toEqual(
      [false, true],
    );
    expect(await row("select held_at, held_reason from payout_settings where user_id = ?", other.id)).toEqual({
      held_at: null,
      held_reason: null,
    });
    expect((await list())[other.id]).toMatchObject({ status: "Pending", held: null });
    const audited = await rows<{ action: string }>(
      "select action from admin_audit where detail like ? order by id",
      `%${other.id}%`,
    );
    expect(audited.map((x) => x.action)).toEqual([
      "creator-hold",
      "creator-hold",
      "creator-release",
      "creator-release",
    ]);
  });

  it("refused as it should be: 401/403 for anyone but the admin, 400 with a message for a bad body, 404 for an unknown id; nothing changes", async () => {
    const c = await prepared("paypal", 4000);
    const routes: [string, unknown][] = [
      [`/api/admin/payouts/${c.payoutId}/mark-paid`, { reference: "R" }],
      [`/api/admin/payouts/${c.payoutId}/mark-failed`, { reason: "R" }],
      [`/api/admin/payouts/${c.payoutId}/resend`, {}],
      [`/api/admin/creators/${c.id}/hold`, { reason: "R" }],
      [`/api/admin/creators/${c.id}/release`, {}],
    ];
    for (const [path, body] of routes) {
      expect((await act(path, body, someone)).status, path).toBe(403);
      expect(
        (
          await call(path, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          })
        ).status,
        path,
      ).toBe(401);
    }
    const bad: [string, unknown, RegExp][] = [
      [`/api/admin/payouts/${c.payoutId}/mark-paid`, {}, /reference must be 1 to 200 characters/],
      [`/api/admin/payouts/${c.payoutId}/mark-paid`, { reference: "   " }, /reference must be/],
      [`/api/admin/payouts/${c.payoutId}/mark-paid`, { reference: "x".repeat(201) }, /reference must be/],
      [`/api/admin/payouts/${c.payoutId}/mark-paid`, { reference: 12 }, /reference must be/],
      [`/api/admin/payouts/${c.payoutId}/mark-paid`, { reference: "ok", extra: 1 }, /extra/],
      [`/api/admin/payouts/${c.payoutId}/mark-failed`, { reason: "" }, /reason must be 1 to 500 characters/],
      [`/api/admin/payouts/${c.payoutId}/mark-failed`, { reason: "x".repeat(501) }, /reason must be/],
      [`/api/admin/creators/${c.id}/hold`, {}, /reason must be 1 to 200 characters/],
    ];
    for (const [path, body, message] of bad) {
      const res = await act(path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json<{ message: string }>()).message).toMatch(message);
    }
    for (const path of [
      "/api/admin/payouts/nope/mark-paid",
      "/api/admin/payouts/nope/mark-failed",
      "/api/admin/payouts/nope/resend",
      "/api/admin/creators/nope/hold",
      "/api/admin/creators/nope/release",
    ]) {
      const res = await act(
        path,
        path.includes("mark-paid")
          ? { reference: "R" }
          : path.endsWith("release") || path.endsWith("resend")
            ? {}
            : { reason: "R" },
      );
      expect(res.status, path).toBe(404);
      expect((await res.json<{ message: string }>()).message).toMatch(/not found/);
    }
    expect(await row("select status, reference from payouts where id = ?", c.payoutId)).toEqual({
      status: "pending",
      reference: null,
    });
    expect(await row("select held_at from payout_settings where user_id = ?", c.id)).toEqual({ held_at: null });
  });
});
