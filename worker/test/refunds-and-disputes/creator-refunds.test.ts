// A creator refunds a sale from the sales table (POST /api/sales/{purchaseId}/refund): one Stripe
// Refund per request, however often it is pressed; the ledger, the buyer's access and the buyer's
// email follow from Stripe's word like any refund; a refund after a payout leaves a negative balance
// that the next payout nets.
import { describe, expect, it } from "vitest";
import type { RefundRequestResult, Sale } from "../../../shared/earnings";
import { createDb } from "../../db/client";
import { creatorBalance } from "../../services/balances";
import { closingPeriod } from "../../services/payouts/period";
import { preparePage } from "../../services/payouts/prepare";
import { payoutDeps } from "../../deps";
import {
  call,
  checkout,
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
  waitForMail,
} from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;
/** 02:00 UTC on the 1st, `k` months after this one (k ≥ 2: every sale made now is past its hold). */
const runAt = (k: number) => {
  const d = new Date();
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + k, 1, 2);
};
const FAILING_REFUND_CARD = "4000000000005126";
const PENDING_REFUND_CARD = "4000000000007726";

async function creatorWithItem(email: string, price = "10") {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price, accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return { cookie, item: await res.json<{ id: string }>() };
}

async function paidPurchase(itemId: string, opts: { card?: string; email?: string } = {}) {
  const { paymentIntent, buyerCookie } = await checkout(itemId, { card: opts.card, email: opts.email });
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const purchase = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!;
  return { paymentIntent, buyerCookie, purchaseId: purchase.id };
}

const refund = (purchaseId: string, body: Record<string, unknown>, cookie: string) =>
  postJson(`/api/sales/${purchaseId}/refund`, body, cookie);
const stripeRefunds = async (paymentIntent: string) =>
  (
    await standin<{ data: { id: string; amount: number; status: string; reason: string | null }[] }>(
      "GET",
      "/v1/refunds",
      { payment_intent: paymentIntent, limit: "100" },
    )
  ).body.data;
const owned = async (itemId: string, buyerCookie: string) =>
  (await (await call(`/api/content/${itemId}/access`, { cookie: buyerCookie })).json<{ owned: boolean }>()).owned;
/** What moved (posted rows); a refund on its way is reserved, not moved (see `reserved`). */
const net = async (purchaseId: string) => {
  const l = await rows<{ account: string; amount_cents: number }>(
    "select account, amount_cents from ledger_entries where purchase_id = ? and kind not like 'reserve%' and kind not in ('stripe_fee', 'dispute_fee')",
    purchaseId,
  );
  const sum = (a: string) => l.filter((e) => e.account === a).reduce((s, e) => s + e.amount_cents, 0);
  return { creator: sum("creator"), platform: sum("platform") };
};
const reserved = async (purchaseId: string) =>
  0 -
  (await row<{ c: number }>(
    "select coalesce(sum(amount_cents), 0) as c from ledger_entries where purchase_id = ? and kind like 'reserve%'",
    purchaseId,
  ))!.c;
/** Ages a sale past its hold, as if it was made `days` ago. */
const age = (purchaseId: string, days = 10) =>
  env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
    .bind(days * DAY, purchaseId)
    .run();
const saleRow = async (cookie: string, purchaseId: string) =>
  (await (await call("/api/creator/sales", { cookie })).json<Sale[]>()).find((s) => s.id === purchaseId)!;
const balance = async (userId: string) =>
  (await row<{ c: number }>(
    "select coalesce(sum(amount_cents), 0) as c from ledger_entries where user_id = ? and account = 'creator'",
    userId,
  ))!.c;

describe("a creator refunds a sale", () => {
  it("a full refund through Stripe: ledger nets to zero, access ends, the buyer is emailed, the row says Refunded", async () => {
    const { cookie, item } = await creatorWithItem("cr-full@example.com");
    const { paymentIntent, buyerCookie, purchaseId } = await paidPurchase(item.id, {
      email: "cr-full-buyer@example.com",
    });
    expect((await saleRow(cookie, purchaseId)).refundable).toBe(10);

    const res = await refund(purchaseId, { reason: "requested_by_customer" }, cookie);
    expect(res.status).toBe(200);
    const body = await res.json<RefundRequestResult>();
    expect(body).toMatchObject({
      amount: 10,
      status: "succeeded",
      sale: { status: "refunded", refundedAmount: 10, refundable: 0, refundPending: false },
    });
    expect(await stripeRefunds(paymentIntent)).toMatchObject([
      { amount: 1000, status: "succeeded", reason: "requested_by_customer" },
    ]);
    expect(await net(purchaseId)).toEqual({ creator: 0, platform: 0 });
    expect(await owned(item.id, buyerCookie)).toBe(false);
    const mail = await waitForMail("cr-full-buyer@example.com", 1);
    expect(mail.subject).toBe("Your refund of $10.00 for Guide");
    expect(mail.text).toContain("refunded in full");

    // Stripe's webhooks that follow add nothing; the row stays refunded, and a further press is refused.
    expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
    expect(await net(purchaseId)).toEqual({ creator: 0, platform: 0 });
    const again = await refund(purchaseId, { reason: "duplicate" }, cookie);
    expect(again.status).toBe(400);
    expect((await again.json<{ message: string }>()).message).toBe("This sale was already refunded in full");
    expect(await stripeRefunds(paymentIntent)).toHaveLength(1);
  });

  it("a partial refund with a note keeps access, reverses its share, and the row says what is left", async () => {
    const { cookie, item } = await creatorWithItem("cr-partial@example.com");
    const { paymentIntent, buyerCookie, purchaseId } = await paidPurchase(item.id, {
      email: "cr-partial-buyer@example.com",
    });
    const res = await refund(purchaseId, { amountCents: 250, reason: "Arrived late, partial goodwill refund" }, cookie);
    expect(res.status).toBe(200);
    expect((await res.json<RefundRequestResult>()).sale).toMatchObject({
      status: "completed",
      refundedAmount: 2.5,
      refundable: 7.5,
    });
    const [r] = await stripeRefunds(paymentIntent);
    expect(r).toMatchObject({ amount: 250, reason: null });
    expect(await net(purchaseId)).toEqual({ creator: 600, platform: 150 });
    expect(await owned(item.id, buyerCookie)).toBe(true);
    expect((await waitForMail("cr-partial-buyer@example.com", 1)).text).toContain("You keep your access");

    // A second partial refund later is a new request and a new Refund.
    expect((await refund(purchaseId, { amountCents: 250, reason: "requested_by_customer" }, cookie)).status).toBe(200);
    expect(await stripeRefunds(paymentIntent)).toHaveLength(2);
    expect(await net(purchaseId)).toEqual({ creator: 400, platform: 100 });
  });

  it("a double press and two presses at once make one Stripe refund", async () => {
    const { cookie, item } = await creatorWithItem("cr-double@example.com");
    const a = await paidPurchase(item.id);
    const key = "dialog-key-0001";
    const [first, second] = await Promise.all([
      refund(a.purchaseId, { amountCents: 300, reason: "duplicate", requestKey: key }, cookie),
      refund(a.purchaseId, { amountCents: 300, reason: "duplicate", requestKey: key }, cookie),
    ]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await refund(a.purchaseId, { amountCents: 300, reason: "duplicate", requestKey: key }, cookie);
    expect(third.status).toBe(200);
    expect(await stripeRefunds(a.paymentIntent)).toHaveLength(1);
    expect(await net(a.purchaseId)).toEqual({ creator: 560, platform: 140 });

    // Without the dialog's key: two presses at once are still one refund.
    const b = await paidPurchase(item.id);
    const both = await Promise.all([
      refund(b.purchaseId, { reason: "requested_by_customer" }, cookie),
      refund(b.purchaseId, { reason: "requested_by_customer" }, cookie),
    ]);
    expect(both.map((r) => r.status)).toContain(200);
    expect(await stripeRefunds(b.paymentIntent)).toHaveLength(1);
    expect(await net(b.purchaseId)).toEqual({ creator: 0, platform: 0 });
  });

  it("someone else's sale is a 404 and nothing reaches Stripe; too much is a 400", async () => {
    const { cookie, item } = await creatorWithItem("cr-owner@example.com");
    const { paymentIntent, purchaseId } = await paidPurchase(item.id);
    const other = await signIn("cr-other@example.com");
    const res = await refund(purchaseId, { reason: "fraudulent" }, other);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Sale Not Found" });
    expect(await stripeRefunds(paymentIntent)).toHaveLength(0);

    const over = await refund(purchaseId, { amountCents: 1001, reason: "requested_by_customer" }, cookie);
    expect(over.status).toBe(400);
    expect((await over.json<{ message: string }>()).message).toBe("You can refund at most $10.00 of this sale");
    const noReason = await refund(purchaseId, { amountCents: 100 }, cookie);
    expect(noReason.status).toBe(400);
    expect(await stripeRefunds(paymentIntent)).toHaveLength(0);
    expect(await net(purchaseId)).toEqual({ creator: 800, platform: 200 });
  });

  it("a refund Stripe fails later shows as failed and the money is as before", async () => {
    const { cookie, item } = await creatorWithItem("cr-fails@example.com");
    const { paymentIntent, buyerCookie, purchaseId } = await paidPurchase(item.id, { card: FAILING_REFUND_CARD });
    expect((await refund(purchaseId, { reason: "requested_by_customer" }, cookie)).status).toBe(200);
    const [r] = await stripeRefunds(paymentIntent);
    await standin("POST", `/_standin/refunds/${r.id}/settle`, { outcome: "failed" });
    expect((await deliver(await eventFor("refund.failed", r.id))).status).toBe(200);
    expect(await saleRow(cookie, purchaseId)).toMatchObject({
      status: "completed",
      refundFailed: true,
      refundPending: false,
      refundedAmount: 0,
      refundable: 10,
    });
    expect(await net(purchaseId)).toEqual({ creator: 800, platform: 200 });
    expect(await owned(item.id, buyerCookie)).toBe(true);
  });

  it("a pending refund shows as pending and books nothing until Stripe says it succeeded", async () => {
    const { cookie, item } = await creatorWithItem("cr-pending@example.com");
    const { buyerCookie, purchaseId } = await paidPurchase(item.id, { card: PENDING_REFUND_CARD });
    const res = await refund(purchaseId, { reason: "requested_by_customer" }, cookie);
    expect(await res.json<RefundRequestResult>()).toMatchObject({
      status: "pending",
      sale: { status: "completed", refundPending: true, refundable: 0, refundedAmount: 0 },
    });
    expect(await net(purchaseId)).toEqual({ creator: 800, platform: 200 });
    expect(await reserved(purchaseId)).toBe(800);
    const [r] = await stripeRefunds(
      (await row<{ payment_intent_id: string }>("select payment_intent_id from purchases where id = ?", purchaseId))!
        .payment_intent_id,
    );
    await standin("POST", `/_standin/refunds/${r.id}/settle`, { outcome: "succeeded" });
    expect((await deliver(await eventFor("refund.updated", r.id))).status).toBe(200);
    expect(await saleRow(cookie, purchaseId)).toMatchObject({
      status: "refunded",
      refundPending: false,
      refundedAmount: 10,
    });
    expect(await owned(item.id, buyerCookie)).toBe(false);
  });

  it("a refund that would take the balance more than $100 below zero is refused before Stripe is asked", async () => {
    const { cookie, item } = await creatorWithItem("cr-overdraft@example.com", "200");
    const userId = (await row<{ id: string }>("select id from users where email = ?", "cr-overdraft@example.com"))!.id;
    expect(
      (
        await postJson(
          "/api/payout/setup",
          { payoutMethod: "paypal", payoutEmail: "cr-overdraft-pp@example.com" },
          cookie,
        )
      ).status,
    ).toBe(200);
    const { paymentIntent, purchaseId } = await paidPurchase(item.id);
    // Made 10 days ago (past its hold) and paid out since: the share is gone from the balance.
    await age(purchaseId);
    const run = Date.now();
    await preparePage(payoutDeps(env as never), closingPeriod(run), run, "");
    expect(await balance(userId)).toBe(0);

    // Refunded in full, the $160 already paid out would be owed: more than $100 below zero.
    const full = await refund(purchaseId, { reason: "requested_by_customer" }, cookie);
    expect(full.status).toBe(409);
    expect((await full.json<{ message: string }>()).message).toBe(
      "This refund would leave your balance $160.00 below zero, and your refunds may take it at most $100.00 below zero. Refund less, or wait until new sales cover it.",
    );
    expect(await stripeRefunds(paymentIntent)).toEqual([]);
    // $125 of it is $100 of the creator's share: allowed, and the balance is -$100.
    expect((await refund(purchaseId, { amountCents: 12500, reason: "requested_by_customer" }, cookie)).status).toBe(
      200,
    );
    expect(await balance(userId)).toBe(-10000);
    // One more dollar is over the limit.
    expect((await refund(purchaseId, { amountCents: 100, reason: "requested_by_customer" }, cookie)).status).toBe(409);
    expect(await stripeRefunds(paymentIntent)).toHaveLength(1);
  });

  it("two refunds at once that each fit the $100 limit but not together: one is made, the other refused, Stripe asked once", async () => {
    const { cookie, item } = await creatorWithItem("cr-overdraft-race@example.com", "200");
    const userId = (await row<{ id: string }>("select id from users where email = ?", "cr-overdraft-race@example.com"))!
      .id;
    expect(
      (
        await postJson(
          "/api/payout/setup",
          { payoutMethod: "paypal", payoutEmail: "cr-overdraft-race-pp@example.com" },
          cookie,
        )
      ).status,
    ).toBe(200);
    const { paymentIntent, purchaseId } = await paidPurchase(item.id);
    // Made 10 days ago (past its hold) and paid out since: the share is gone from the balance.
    await age(purchaseId);
    const run = Date.now();
    await preparePage(payoutDeps(env as never), closingPeriod(run), run, "");
    expect(await balance(userId)).toBe(0);

    // $100 of the sale is $80 of the creator's share: each alone leaves -$80, both -$160.
    const [a, b] = await Promise.all([
      refund(purchaseId, { amountCents: 10000, reason: "requested_by_customer", requestKey: "dialog-a" }, cookie),
      refund(purchaseId, { amountCents: 10000, reason: "requested_by_customer", requestKey: "dialog-b" }, cookie),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const refused = a.status === 409 ? a : b;
    expect((await refused.json<{ message: string }>()).message).toMatch(
      /^This refund would leave your balance \$160\.00 below zero/,
    );
    expect(await stripeRefunds(paymentIntent)).toHaveLength(1);
    expect(await balance(userId)).toBe(-8000);
  });

  it("the dialog's key with another amount is refused (409) and refunds nothing more; with the same amount it is the same refund", async () => {
    const { cookie, item } = await creatorWithItem("cr-key-amount@example.com");
    const { paymentIntent, purchaseId } = await paidPurchase(item.id);
    const first = await refund(
      purchaseId,
      { amountCents: 250, reason: "requested_by_customer", requestKey: "dialog-key-1" },
      cookie,
    );
    expect(first.status).toBe(200);
    const other = await refund(
      purchaseId,
      { amountCents: 500, reason: "requested_by_customer", requestKey: "dialog-key-1" },
      cookie,
    );
    expect(other.status).toBe(409);
    expect((await other.json<{ message: string }>()).message).toBe(
      "This request was for $2.50: close the dialog and start again to refund another amount",
    );
    const same = await refund(
      purchaseId,
      { amountCents: 250, reason: "requested_by_customer", requestKey: "dialog-key-1" },
      cookie,
    );
    expect(same.status).toBe(200);
    expect((await same.json<RefundRequestResult>()).id).toBe((await first.json<RefundRequestResult>()).id);
    expect(await stripeRefunds(paymentIntent)).toMatchObject([{ amount: 250 }]);
  });

  it("a press repeated after Stripe made the refund but before it was recorded (a crash, or Stripe's 24-hour key memory gone) reads that refund and makes no second", async () => {
    const { cookie, item } = await creatorWithItem("cr-crash@example.com");
    const { paymentIntent, purchaseId } = await paidPurchase(item.id);
    const creatorId = (await row<{ id: string }>("select id from users where email = ?", "cr-crash@example.com"))!.id;
    await env.DB.prepare(
      "insert into refund_requests (id, purchase_id, creator_id, request_key, amount_cents, reason) values ('rr_crash', ?, ?, 'key:crash-key', 300, 'requested_by_customer')",
    )
      .bind(purchaseId, creatorId)
      .run();
    // Stripe made the Refund (under a key it no longer remembers); our row never heard.
    const made = await standin<{ id: string }>("POST", "/v1/refunds", {
      payment_intent: paymentIntent,
      amount: "300",
      "metadata[refundRequestId]": "rr_crash",
    });
    expect(made.status).toBe(200);
    const res = await refund(
      purchaseId,
      { amountCents: 300, reason: "requested_by_customer", requestKey: "crash-key" },
      cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.json<RefundRequestResult>()).toMatchObject({ id: "rr_crash", amount: 3, status: "succeeded" });
    expect(await stripeRefunds(paymentIntent)).toMatchObject([{ id: made.body.id, amount: 300 }]);
    expect(await net(purchaseId)).toEqual({ creator: 560, platform: 140 });
  });

  it("an open inquiry (no money withdrawn) does not stop a refund", async () => {
    const { cookie, item } = await creatorWithItem("cr-inquiry@example.com");
    const { paymentIntent, purchaseId } = await paidPurchase(item.id);
    const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
      .latest_charge;
    const inquiry = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`, { inquiry: "true" });
    expect(inquiry.status).toBe(200);
    const res = await refund(purchaseId, { reason: "requested_by_customer" }, cookie);
    expect(res.status).toBe(200);
    expect(await stripeRefunds(paymentIntent)).toMatchObject([{ amount: 1000 }]);
  });

  it("a refund after the money was paid out leaves a negative balance that the next payout nets", async () => {
    const { cookie, item } = await creatorWithItem("cr-negative@example.com", "100");
    const userId = (await row<{ id: string }>("select id from users where email = ?", "cr-negative@example.com"))!.id;
    expect(
      (
        await postJson(
          "/api/payout/setup",
          { payoutMethod: "paypal", payoutEmail: "cr-negative-pp@example.com" },
          cookie,
        )
      ).status,
    ).toBe(200);
    const first = await paidPurchase(item.id);
    const deps = payoutDeps(env as never);

    // The run after the hold pays the $80 share.
    const run1 = runAt(2);
    await preparePage(deps, closingPeriod(run1), run1, "");
    expect(await rows("select amount_cents from payouts where user_id = ?", userId)).toEqual([{ amount_cents: 8000 }]);
    expect(await balance(userId)).toBe(0);

    // Refunded in full afterwards: the $80 already paid is owed back.
    expect((await refund(first.purchaseId, { reason: "requested_by_customer" }, cookie)).status).toBe(200);
    expect(await balance(userId)).toBe(-8000);
    expect(await creatorBalance(createDb(env.DB), userId, run1 + DAY)).toMatchObject({
      availableCents: 0,
      carriedNegativeCents: 8000,
    });
    // The timeline shows the refund on its sale.
    const timeline = await (await call("/api/earnings/timeline", { cookie })).json<{
      items: { purchaseId: string; state: { kind: string }; refund: { amount: number } | null }[];
    }>();
    expect(timeline.items.find((i) => i.purchaseId === first.purchaseId)).toMatchObject({
      state: { kind: "reversed" },
      refund: { amount: -80 },
    });

    // A new $100 sale: the next run pays $80 minus the $80 owed, so nothing; a second one, $80.
    await paidPurchase(item.id);
    const run2 = runAt(3);
    await preparePage(deps, closingPeriod(run2), run2, "");
    expect(await rows("select amount_cents from payouts where user_id = ? order by created_at", userId)).toEqual([
      { amount_cents: 8000 },
    ]);
    await paidPurchase(item.id);
    const run3 = runAt(4);
    await preparePage(deps, closingPeriod(run3), run3, "");
    expect(await rows("select amount_cents from payouts where user_id = ? order by created_at", userId)).toEqual([
      { amount_cents: 8000 },
      { amount_cents: 8000 },
    ]);
    expect(await balance(userId)).toBe(0);
  });
});
