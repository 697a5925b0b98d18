// The money kernel (worker/services/balances.ts): money on its way out is reserved in the ledger
// first, and every mover (a creator's refund, Withdraw now, the monthly prepare) takes only what is
// available after reservations, inside the statement that moves it. Each scenario here took the same
// cents twice before the kernel.
import { introspectWorkflow } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { createDb } from "../../db/client";
import { creatorBalance, reserve } from "../../services/balances";
import { requestRefund, sweepUnansweredRefundRequests } from "../../services/refunds/creator-refunds";
import { withdraw as withdrawNow } from "../../services/payouts/withdraw-now";
import { closingPeriod } from "../../services/payouts/period";
import { preparePage } from "../../services/payouts/prepare";
import { payoutDeps } from "../../deps";
import {
  call,
  CARDS,
  checkout,
  confirmAsStripeJs,
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
const LIMIT_CENTS = 10_000;
const PENDING_REFUND_CARD = "4000000000007726";

let seq = 0;
/** A creator with a bank Stripe can pay, selling one item at `price` dollars. */
async function creator(price = "500") {
  const email = `mk${++seq}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  await env.DB.prepare(
    "insert into payout_settings (user_id, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, ?, 1, 1)",
  )
    .bind(id, await connectedAccount())
    .run();
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Course", price, accessType: "link", linkUrl: "https://example.com/course" }),
    cookie,
  );
  expect(res.status).toBe(201);
  return { id, cookie, itemId: (await res.json<{ id: string }>()).id };
}

/** A paid sale of the item (by the creator's own card, say), made 10 days ago: past its hold. */
async function oldSale(itemId: string, card?: string, days = 10) {
  const { paymentIntent } = await checkout(itemId, { card });
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const purchaseId = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!
    .id;
  await env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
    .bind(days * DAY, purchaseId)
    .run();
  return { paymentIntent, purchaseId };
}

const refund = (purchaseId: string, cookie: string, body: Record<string, unknown> = {}) =>
  postJson(`/api/sales/${purchaseId}/refund`, { reason: "requested_by_customer", ...body }, cookie);
const withdraw = (cookie: string) => postJson("/api/payout/withdraw", {}, cookie);
/** Every creator row, reservations included: what the creator holds once everything on its way has moved. */
const ledgerBalance = async (userId: string) =>
  (await row<{ c: number }>(
    "select coalesce(sum(amount_cents), 0) as c from ledger_entries where user_id = ? and account = 'creator'",
    userId,
  ))!.c;
const balance = (userId: string) => creatorBalance(createDb(env.DB), userId);
const payoutsOf = (userId: string) =>
  rows<{ amount_cents: number; kind: string }>("select amount_cents, kind from payouts where user_id = ?", userId);
const refundsAt = async (paymentIntent: string) =>
  (
    await standin<{ data: { id: string; amount: number; status: string }[] }>("GET", "/v1/refunds", {
      payment_intent: paymentIntent,
    })
  ).body.data;

/** Runs `fn` and waits for every payout send Workflow it started. */
async function settlingSends<T>(fn: () => Promise<T>): Promise<T> {
  const sends = await introspectWorkflow(env.PAYOUT_SEND);
  try {
    const out = await fn();
    for (const s of await sends.get()) await s.waitForStatus("complete");
    return out;
  } finally {
    await sends.dispose();
  }
}

describe("a refund and a withdrawal never take the same cents", () => {
  for (const order of ["refund first", "withdraw first", "at once"] as const) {
    it(`the creator buys their own $500 item, refunds it and withdraws (${order}): at most the $100 limit below zero`, async () => {
      const c = await creator();
      const { paymentIntent, purchaseId } = await oldSale(c.itemId);
      expect((await balance(c.id)).availableCents).toBe(40_000);

      const answers = await settlingSends(async () => {
        if (order === "at once") return Promise.all([refund(purchaseId, c.cookie), withdraw(c.cookie)]);
        if (order === "refund first") return [await refund(purchaseId, c.cookie), await withdraw(c.cookie)];
        const w = await withdraw(c.cookie);
        return [await refund(purchaseId, c.cookie), w];
      });
      const [r, w] = answers.map((a) => a.status);
      // Exactly one of them moved the $400: the other was refused in the creator's terms.
      expect([r === 200, w === 200].filter(Boolean)).toHaveLength(1);
      expect(r === 200 ? w : r).toBeGreaterThanOrEqual(400);
      expect(await ledgerBalance(c.id)).toBeGreaterThanOrEqual(-LIMIT_CENTS);
      const refunded = (await refundsAt(paymentIntent)).reduce((a, x) => a + x.amount, 0);
      const paidOut = (await payoutsOf(c.id)).reduce((a, p) => a + p.amount_cents, 0);
      expect(refunded * 0.8 + paidOut).toBeLessThanOrEqual(40_000 + LIMIT_CENTS);
    });
  }

  it("a withdrawal pressed while the refund is still at Stripe (asked, not answered) takes only what is left", async () => {
    const c = await creator();
    const { purchaseId } = await oldSale(c.itemId);
    const deps = {
      ...payoutDeps(env as never),
      startSend: async () => {},
      accessSecret: (env as unknown as { ACCESS_TOKEN_SECRET: string }).ACCESS_TOKEN_SECRET,
    };
    // Stripe answers the refund only when the test lets it: the withdrawal comes in between.
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const real = deps.stripe;
    const slow = new Proxy(real, {
      get: (target, key) =>
        key === "refunds"
          ? {
              create: async (...args: Parameters<typeof real.refunds.create>) => {
                await held;
                return real.refunds.create(...args);
              },
              list: (...args: Parameters<typeof real.refunds.list>) => real.refunds.list(...args),
              retrieve: (...args: Parameters<typeof real.refunds.retrieve>) => real.refunds.retrieve(...args),
            }
          : Reflect.get(target, key),
    });
    const refunding = requestRefund({ ...deps, stripe: slow }, c.id, purchaseId, {
      reason: "requested_by_customer",
    }).catch((err: Error) => err);
    await vi.waitUntil(
      async () => !!(await row("select 1 as x from refund_requests where purchase_id = ?", purchaseId)),
      { timeout: 5000, interval: 10 },
    );
    const withdrawn = await withdrawNow(deps, c.id).catch((err: { status: number }) => err.status);
    answer();
    await refunding;
    // The refund's reservation left nothing to withdraw; the creator ends at zero, not -$400.
    expect(withdrawn).toBe(400);
    expect(await payoutsOf(c.id)).toEqual([]);
    expect(await ledgerBalance(c.id)).toBe(0);
  });

  it("a refund pending at Stripe is reserved: Withdraw now takes only what is left, and the balance ends at zero, not -$400", async () => {
    const c = await creator();
    const { purchaseId, paymentIntent } = await oldSale(c.itemId, PENDING_REFUND_CARD);
    await oldSale(c.itemId);
    const res = await refund(purchaseId, c.cookie);
    expect(await res.json()).toMatchObject({ status: "pending" });
    expect(await balance(c.id)).toMatchObject({ availableCents: 40_000, reservedCents: 40_000 });
    expect(await (await call("/api/earnings/stats", { cookie: c.cookie })).json()).toMatchObject({
      availableBalance: 400,
      reserved: 400,
    });

    await settlingSends(async () => expect((await withdraw(c.cookie)).status).toBe(200));
    expect(await payoutsOf(c.id)).toEqual([{ amount_cents: 40_000, kind: "withdrawal" }]);

    // Stripe settles the refund: the reservation is posted, nothing more is owed.
    const [r] = await refundsAt(paymentIntent);
    await standin("POST", `/_standin/refunds/${r.id}/settle`, { outcome: "succeeded" });
    expect((await deliver(await eventFor("refund.updated", r.id))).status).toBe(200);
    expect(await ledgerBalance(c.id)).toBe(0);
    expect(await balance(c.id)).toMatchObject({ availableCents: 0, reservedCents: 0, carriedNegativeCents: 0 });
  });

  it("a refund that fails at Stripe gives its reservation back: available again", async () => {
    const c = await creator();
    const { purchaseId, paymentIntent } = await oldSale(c.itemId, PENDING_REFUND_CARD);
    expect(await (await refund(purchaseId, c.cookie)).json()).toMatchObject({ status: "pending" });
    expect((await balance(c.id)).availableCents).toBe(0);
    const [r] = await refundsAt(paymentIntent);
    await standin("POST", `/_standin/refunds/${r.id}/settle`, { outcome: "failed" });
    expect((await deliver(await eventFor("refund.updated", r.id))).status).toBe(200);
    expect(await balance(c.id)).toMatchObject({ availableCents: 40_000, reservedCents: 0 });
  });
});

describe("the monthly prepare takes only what is available after reservations", () => {
  it("a pending refund's share is not paid out by the run", async () => {
    const c = await creator();
    await oldSale(c.itemId);
    const { purchaseId } = await oldSale(c.itemId, PENDING_REFUND_CARD);
    expect(await (await refund(purchaseId, c.cookie)).json()).toMatchObject({ status: "pending" });
    const now = Date.now();
    await preparePage(payoutDeps(env as never), closingPeriod(now), now, c.id.slice(0, -1), 1);
    expect(await payoutsOf(c.id)).toEqual([{ amount_cents: 40_000, kind: "monthly" }]);
  });

  it("a refund and the run's prepare at the same instant: at most the $100 limit below zero", async () => {
    const c = await creator();
    const { purchaseId } = await oldSale(c.itemId);
    const now = Date.now();
    const [res] = await Promise.all([
      refund(purchaseId, c.cookie),
      preparePage(payoutDeps(env as never), closingPeriod(now), now, c.id.slice(0, -1), 1),
    ]);
    const paidOut = (await payoutsOf(c.id)).reduce((a, p) => a + p.amount_cents, 0);
    // One of them moved the $400; the other found nothing left to take.
    expect([res.status === 200, paidOut > 0].filter(Boolean)).toHaveLength(1);
    expect(await ledgerBalance(c.id)).toBeGreaterThanOrEqual(-LIMIT_CENTS);
  });
});

describe("two refunds of one sale at once", () => {
  it("never take more than that sale's own remainder: nothing spills onto the order bump's sale", async () => {
    const c = await creator("10");
    const addOn = await postForm(
      "/api/content",
      contentForm({ title: "Workbook", price: "12", accessType: "link", linkUrl: "https://example.com/wb" }),
      c.cookie,
    );
    const addOnId = (await addOn.json<{ id: string }>()).id;
    const put = await call(`/api/content/${c.itemId}/bump`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contentId: addOnId, price: "4" }),
      cookie: c.cookie,
    });
    expect(put.status).toBe(200);
    const started = await postJson("/api/create-payment-intent", {
      contentId: c.itemId,
      bump: true,
      buyerEmail: "two-refunds@example.com",
    });
    const { clientSecret } = await started.json<{ clientSecret: string }>();
    expect((await confirmAsStripeJs(clientSecret, CARDS.ok, { receipt_email: "two-refunds@example.com" })).status).toBe(
      200,
    );
    const paymentIntent = clientSecret.split("_secret_")[0];
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    const main = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!.id;

    // The first press is still at Stripe (its request written with its reservation, no answer yet)
    // when a second dialog asks for the same $10 of the same sale.
    const now = Date.now();
    await env.DB.batch([
      reserve(env.DB, { ref: "refund-request:rr_first", purchaseId: main, cents: 1000, now }),
      env.DB.prepare(
        "insert into refund_requests (id, purchase_id, creator_id, request_key, amount_cents, reason, created_at) values ('rr_first', ?, ?, 'key:dialog-first-1', 1000, 'requested_by_customer', ?)",
      ).bind(main, c.id, now),
    ]);
    const second = await refund(main, c.cookie, { amountCents: 1000, requestKey: "dialog-second-2" });
    expect(second.status).toBe(400);
    expect(await refundsAt(paymentIntent)).toEqual([]);
    // The first press, repeated, makes its refund; and two more dialogs at once make at most one more.
    expect((await refund(main, c.cookie, { amountCents: 1000, requestKey: "dialog-first-1" })).status).toBe(200);
    const answers = await Promise.all([
      refund(main, c.cookie, { amountCents: 100, requestKey: "dialog-third-3" }),
      refund(main, c.cookie, { amountCents: 100, requestKey: "dialog-fourth-4" }),
    ]);
    // The sale is refunded in full: both are refused, and neither touches the add-on's part.
    expect(answers.map((a) => a.status)).toEqual([400, 400]);
    expect((await refundsAt(paymentIntent)).map((r) => r.amount)).toEqual([1000]);
    expect(await rows("select status from purchases where bump_of = ?", main)).toEqual([{ status: "paid" }]);
  });
});

describe("Stripe's fees are the platform's, in the ledger and the monthly report", () => {
  type Month = {
    year: number;
    month: number;
    grossSales: number;
    refunds: number;
    disputes: number;
    stripeFees: number;
    disputeFees: number;
    platformEarnings: number;
    platformNet: number;
    salesBelowFee: number;
  };
  const thisMonth = async (cookie: string) => {
    const d = new Date();
    const all = await (await call("/api/admin/monthly-reports", { cookie })).json<Month[]>();
    return (
      all.find((m) => m.year === d.getUTCFullYear() && m.month === d.getUTCMonth() + 1) ??
      ({
        grossSales: 0,
        refunds: 0,
        disputes: 0,
        stripeFees: 0,
        disputeFees: 0,
        platformEarnings: 0,
        platformNet: 0,
        salesBelowFee: 0,
      } as Month)
    );
  };
  const fees = (purchaseId: string) =>
    rows<{ kind: string; amount_cents: number }>(
      "select kind, amount_cents from ledger_entries where purchase_id = ? and kind in ('stripe_fee', 'dispute_fee') order by id",
      purchaseId,
    );

  it("books each charge's processing fee and each dispute fee (given back when won), and the report shows gross, refunds, fees and the platform's net", async () => {
    const admin = await signIn("admin@apewall.test");
    const before = await thisMonth(admin);
    const c = await creator("10");
    // Made now: the report's month is this one whatever day the test runs.
    const { paymentIntent, purchaseId } = await oldSale(c.itemId, undefined, 0);
    // Stripe's 2.9% + 30¢ on $10.00.
    expect(await fees(purchaseId)).toEqual([{ kind: "stripe_fee", amount_cents: -59 }]);
    expect((await refund(purchaseId, c.cookie, { amountCents: 200 })).status).toBe(200);

    const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
      .latest_charge;
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    expect((await deliver(await eventFor("charge.dispute.created", dispute.body.id))).status).toBe(200);
    expect(await fees(purchaseId)).toEqual([
      { kind: "stripe_fee", amount_cents: -59 },
      { kind: "dispute_fee", amount_cents: -1500 },
    ]);
    // A $1 sale: the platform's 20¢ is less than Stripe's 33¢.
    const small = await creator("1");
    await oldSale(small.itemId, undefined, 0);

    const after = await thisMonth(admin);
    const delta = (k: keyof Month) => Math.round((Number(after[k]) - Number(before[k])) * 100);
    expect(delta("grossSales")).toBe(1100);
    expect(delta("refunds")).toBe(200);
    expect(delta("disputes")).toBe(800);
    expect(delta("stripeFees")).toBe(59 + 33);
    expect(delta("disputeFees")).toBe(1500);
    expect(after.salesBelowFee - before.salesBelowFee).toBe(1);
    expect(Math.round(after.platformNet * 100)).toBe(
      Math.round((after.platformEarnings - after.stripeFees - after.disputeFees) * 100),
    );

    // Won: the disputed amount and the dispute fee come back.
    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "won" });
    expect((await deliver(await eventFor("charge.dispute.closed", dispute.body.id))).status).toBe(200);
    expect((await fees(purchaseId)).reduce((a, f) => a + f.amount_cents, 0)).toBe(-59);
  });
});

describe("a request Stripe never answered", () => {
  it("holds its reservation until the sweep finds no Refund at Stripe, then voids it", async () => {
    const c = await creator();
    const { purchaseId } = await oldSale(c.itemId);
    // A request written with its reservation, then a crash before Stripe was asked.
    const now = Date.now();
    await env.DB.batch([
      reserve(env.DB, { ref: "refund-request:rr_lost", purchaseId, cents: 50_000, now }),
      env.DB.prepare(
        "insert into refund_requests (id, purchase_id, creator_id, request_key, amount_cents, reason, created_at) values ('rr_lost', ?, ?, 'key:lost-dialog', 50000, 'requested_by_customer', ?)",
      ).bind(purchaseId, c.id, now),
    ]);
    expect((await balance(c.id)).availableCents).toBe(0);
    // Not yet: Stripe may still answer.
    expect(await sweepUnansweredRefundRequests(sweepDeps(), now + 60_000)).toEqual({ settled: 0, voided: 0 });
    const later = now + 11 * 60_000;
    expect(await sweepUnansweredRefundRequests(sweepDeps(), later)).toEqual({ settled: 0, voided: 1 });
    expect(await creatorBalance(createDb(env.DB), c.id, later)).toMatchObject({
      availableCents: 40_000,
      reservedCents: 0,
    });
    // The same dialog pressed again makes no refund from a request that ended.
    const again = await refund(purchaseId, c.cookie, { amountCents: 50_000, requestKey: "lost-dialog" });
    expect(await again.json()).toEqual({ message: "This refund was not made: close the dialog and start again" });
    expect(again.status).toBe(409);
  });
});

const sweepDeps = () => ({
  ...payoutDeps(env as never),
  accessSecret: (env as unknown as { ACCESS_TOKEN_SECRET: string }).ACCESS_TOKEN_SECRET,
});
