import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../index";
import { stripeClient } from "../../services/stripe";
import {
  call,
  CARDS,
  checkout,
  deliver,
  env,
  eventFor,
  outbox,
  postJson,
  row,
  signIn,
  standin,
  waitForMail,
} from "../support/helpers";
import { creatorWithItem, purchaseOf, ledgerOf } from "./payment-fixtures";

describe("prices come from the server", () => {
  it("a fixed price ignores the client's amount", async () => {
    const { item } = await creatorWithItem("fixed@example.com");
    const { paymentIntent } = await checkout(item.id, { customAmount: 0.5, card: "none" });
    const { body } = await standin<{
      amount: number;
      currency: string;
      metadata: Record<string, string>;
      setup_future_usage: string;
      customer: string;
    }>("GET", `/v1/payment_intents/${paymentIntent}`);
    // Not in a live funnel: no card is saved (worker/test/funnels/funnels-editor.test.ts covers the funnel case).
    expect(body).toMatchObject({ amount: 1000, currency: "usd", setup_future_usage: null, customer: null });
    const purchase = await purchaseOf(paymentIntent);
    expect(purchase).toMatchObject({ status: "pending", amount_cents: 1000 });
    expect(body.metadata).toMatchObject({ purchaseId: purchase!.id, contentId: item.id });
  });

  it("pay-what-you-want: at or above the minimum, never below, never malformed", async () => {
    const { item } = await creatorWithItem("pwyw@example.com", {
      pricingModel: "pay_what_you_want",
      minimumPrice: "3",
      price: "3",
    });
    const before = await row<{ n: number }>("select count(*) as n from purchases");
    for (const [amount, message] of [
      [2.99, "Minimum amount is $3.00"],
      ["1e3", "at most two decimals"],
      [-5, "at most two decimals"],
      [50000, "Maximum amount is $10,000"],
    ] as const) {
      const res = await postJson("/api/create-payment-intent", { contentId: item.id, customAmount: amount });
      expect(res.status).toBe(400);
      expect((await res.json<{ message: string }>()).message).toContain(message);
    }
    expect((await row<{ n: number }>("select count(*) as n from purchases"))?.n).toBe(before?.n);
    const { paymentIntent } = await checkout(item.id, { customAmount: 12.34, card: "none" });
    expect((await purchaseOf(paymentIntent))?.amount_cents).toBe(1234);
    const { paymentIntent: atMinimum } = await checkout(item.id, { card: "none" });
    expect((await purchaseOf(atMinimum))?.amount_cents).toBe(300);
  });

  it("refuses a deleted or unknown item", async () => {
    const { cookie, item } = await creatorWithItem("gone@example.com");
    await call(`/api/content/${item.id}`, { method: "DELETE", cookie });
    expect((await postJson("/api/create-payment-intent", { contentId: item.id })).status).toBe(404);
    expect((await postJson("/api/create-payment-intent", { contentId: "nope" })).status).toBe(404);
  });
});

describe("webhooks", () => {
  it("bad and stale signatures write nothing", async () => {
    const { item } = await creatorWithItem("sig@example.com");
    const { paymentIntent } = await checkout(item.id);
    const event = await eventFor("payment_intent.succeeded", paymentIntent);
    const eventsBefore = await row<{ n: number }>("select count(*) as n from webhook_events");
    expect((await deliver(event, { secret: "whsec_wrong" })).status).toBe(400);
    expect((await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 600 })).status).toBe(400);
    const unsigned = await call("/api/stripe/webhook", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(event),
    });
    expect(unsigned.status).toBe(400);
    // A body changed after signing fails too.
    const payload = JSON.stringify(event);
    const { signedWebhook } = await import("../support/helpers");
    const tampered = await call("/api/stripe/webhook", {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": await signedWebhook(payload) },
      body: payload.replace(paymentIntent, "pi_forged"),
    });
    expect(tampered.status).toBe(400);
    expect((await row<{ n: number }>("select count(*) as n from webhook_events"))?.n).toBe(eventsBefore?.n);
    expect((await purchaseOf(paymentIntent))?.status).toBe("pending");
  });

  it("the same payment_intent.succeeded 20 times, several at once: one purchase, one set of ledger rows, one email", async () => {
    const { item, creatorId } = await creatorWithItem("twenty@example.com");
    const { paymentIntent } = await checkout(item.id, { email: "twenty-buyer@example.com" });
    const event = await eventFor("payment_intent.succeeded", paymentIntent);
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(event)));
    for (let i = 0; i < 10; i++) answers.push(await deliver(event));
    expect(answers.every((r) => r.status === 200)).toBe(true);

    const purchase = await purchaseOf(paymentIntent);
    expect(purchase).toMatchObject({ status: "paid", buyer_email: "twenty-buyer@example.com" });
    const ledger = await ledgerOf(purchase!.id);
    expect(ledger.map((l) => [l.account, l.kind, l.amount_cents])).toEqual([
      ["creator", "sale", 800],
      ["platform", "platform_fee", 200],
    ]);
    const stats = await (await call("/api/earnings/stats", { cookie: await signIn("twenty@example.com") })).json();
    // A fresh sale is held (SALE_HOLD_DAYS) before it is available.
    expect(stats).toMatchObject({ availableBalance: 0, onHold: 8, totalEarnings: 8, totalUnlocks: 1 });
    await waitForMail("twenty-buyer@example.com");
    // Give any duplicate a chance to arrive before counting.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await outbox()).filter((m) => m.to === "twenty-buyer@example.com")).toHaveLength(1);
    expect(creatorId).toBeTruthy();
  });

  it("a Pro creator keeps 100%", async () => {
    const { item, creatorId } = await creatorWithItem("pro@example.com");
    // A paid Pro period covering now (what invoice.paid records; see subscriptions.test.ts).
    await env.DB.prepare(
      "insert into pro_periods (invoice_id, user_id, subscription_id, starts_at, ends_at) values (?, ?, 'sub_test', ?, ?)",
    )
      .bind(`in_${creatorId}`, creatorId, Date.now() - 60_000, Date.now() + 30 * 86_400_000)
      .run();
    const { paymentIntent } = await checkout(item.id);
    await deliver(await eventFor("payment_intent.succeeded", paymentIntent));
    const ledger = await ledgerOf((await purchaseOf(paymentIntent))!.id);
    expect(ledger.map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", 1000],
      ["platform", 0],
    ]);
  });

  it("a refund that arrives before the payment's event still nets to zero, and the late event changes nothing", async () => {
    const { item } = await creatorWithItem("order@example.com");
    const { paymentIntent } = await checkout(item.id);
    expect((await standin("POST", "/v1/refunds", { payment_intent: paymentIntent })).status).toBe(200);
    const refunded = await eventFor("charge.refunded", paymentIntent);
    expect((await deliver(refunded)).status).toBe(200);
    const purchase = await purchaseOf(paymentIntent);
    expect(purchase?.status).toBe("refunded");
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    expect((await purchaseOf(paymentIntent))?.status).toBe("refunded");
    const ledger = await ledgerOf(purchase!.id);
    expect(ledger).toHaveLength(4);
    const sum = (account: string) =>
      ledger.filter((l) => l.account === account).reduce((a, l) => a + l.amount_cents, 0);
    expect(sum("creator")).toBe(0);
    expect(sum("platform")).toBe(0);
  });

  it("a declined card leaves the purchase pending and grants nothing", async () => {
    const { item } = await creatorWithItem("declined@example.com");
    const { paymentIntent, confirmed, buyerCookie } = await checkout(item.id, { card: CARDS.declined });
    expect(confirmed?.status).toBe(402);
    expect(confirmed?.body).toMatchObject({ error: { code: "card_declined", message: "Your card was declined." } });
    await deliver(await eventFor("payment_intent.payment_failed", paymentIntent));
    expect((await purchaseOf(paymentIntent))?.status).toBe("pending");
    const verify = await call(`/api/purchase/verify?payment_intent=${paymentIntent}&content_id=${item.id}`, {
      cookie: buyerCookie,
    });
    expect(verify.status).toBe(409);
  });
});

describe("configuration", () => {
  it("refuses to send a live key anywhere but Stripe", () => {
    expect(() =>
      stripeClient({ ...env, STRIPE_SECRET_KEY: "sk_live_123", STRIPE_API_BASE: "http://127.0.0.1:1" } as never),
    ).toThrow(/sk_test_/);
  });

  it("the stand-in itself refuses live keys", async () => {
    const res = await standin("GET", "/v1/customers", undefined, "sk_live_123");
    expect(res.status).toBe(401);
  });
});

describe("the receipt survives a queue that fails", () => {
  // The EMAILS queue refusing every message, as when Queues is unavailable for a moment.
  const failingQueue = {
    send: async () => {
      throw new Error("queue unavailable");
    },
    sendBatch: async () => {
      throw new Error("queue unavailable");
    },
  };

  it("the queue send fails after the purchase commits: the sweep delivers the receipt once, and a redelivered webhook sends nothing twice", async () => {
    const { item } = await creatorWithItem("lost-receipt@example.com");
    const { paymentIntent } = await checkout(item.id, { email: "lost-receipt-buyer@example.com" });
    const event = await eventFor("payment_intent.succeeded", paymentIntent);
    const payload = JSON.stringify(event);
    const { signedWebhook } = await import("../support/helpers");
    const request = async () =>
      new Request("http://127.0.0.1:8787/api/stripe/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "stripe-signature": await signedWebhook(payload) },
        body: payload,
      });
    const ctx = createExecutionContext();
    const first = await worker.fetch(await request(), { ...env, EMAILS: failingQueue } as never, ctx);
    await waitOnExecutionContext(ctx);
    // The purchase committed and the webhook is answered: the receipt waits in the outbox.
    expect((await purchaseOf(paymentIntent))?.status).toBe("paid");
    expect(first.status).toBe(200);
    // Stripe redelivers: the purchase is already fulfilled.
    expect((await deliver(event)).status).toBe(200);

    // The sweep (every 5 minutes) finds the receipt that never reached the queue.
    const sweep = async (minutesLater: number) => {
      const c = createExecutionContext();
      await worker.scheduled(
        createScheduledController({ cron: "*/5 * * * *", scheduledTime: Date.now() + minutesLater * 60_000 }),
        env as never,
        c,
      );
      await waitOnExecutionContext(c);
    };
    await sweep(10);
    const mail = await waitForMail("lost-receipt-buyer@example.com");
    expect(mail.subject).toBe("Your access to Beats");
    const purchaseId = (await purchaseOf(paymentIntent))!.id;
    await vi.waitUntil(
      async () =>
        (
          await row<{ sent_at: number | null }>(
            "select sent_at from outbox_emails where id = ?",
            `purchase-access:${purchaseId}`,
          )
        )?.sent_at,
      { timeout: 10_000 },
    );

    // Another sweep and another redelivery send nothing more.
    await sweep(20);
    expect((await deliver(event)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await outbox()).filter((m) => m.to === "lost-receipt-buyer@example.com")).toHaveLength(1);
  });

  it("'Lost your access?' while the queue refuses: answered 202 as always, and the sweep sends the links", async () => {
    const { item } = await creatorWithItem("lost-recovery@example.com");
    const { paymentIntent } = await checkout(item.id, { email: "lost-recovery-buyer@example.com" });
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    await waitForMail("lost-recovery-buyer@example.com"); // the receipt

    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://127.0.0.1:8787/api/purchase/recover", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://127.0.0.1:8787" },
        body: JSON.stringify({ email: "lost-recovery-buyer@example.com" }),
      }),
      { ...env, EMAILS: failingQueue } as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(202);

    const sweep = createExecutionContext();
    await worker.scheduled(
      createScheduledController({ cron: "*/5 * * * *", scheduledTime: Date.now() + 10 * 60_000 }),
      env as never,
      sweep,
    );
    await waitOnExecutionContext(sweep);
    const mail = await waitForMail("lost-recovery-buyer@example.com", 1);
    expect(mail.subject).toBe("Your ApeWall access links");
  });
});
