// Outgoing webhooks: deliveries written in the batch of the change that causes them, signed
// per Standard Webhooks (verified here with the `standardwebhooks` package), retried on a backoff for
// three days, the endpoint disabled (and its creator emailed) after three days of failures; SSRF
// refusal in production; owner-only. The delivery attempts run `deliverWebhook` with an injected
// fetch and clock (workerd tests cannot host a receiver); e2e/api-and-webhooks/webhooks.test.ts covers the network.
import { describe, expect, it, vi } from "vitest";
import { Webhook } from "standardwebhooks";
import type { WebhookDeliveryPage, WebhookEndpoint } from "../../../shared/webhooks";
import { webhookUrlProblem } from "../../../shared/webhooks";
import { app } from "../../app";
import { markPayoutPaid } from "../../services/payouts/admin";
import { failPayout } from "../../services/payouts/failure";
import { payoutDeps } from "../../deps";
import { secretBox } from "../../services/webhooks/secrets";
import {
  deliverWebhook,
  newWebhookSecret,
  sweepWebhooks,
  webhookStatements,
  WEBHOOK_RETRY_WINDOW_MS,
  type WebhookMessage,
} from "../../services/webhooks/delivery";
import { fakeQueue } from "../support/fake-webhook-queue";
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

// A closed local port: the real queue consumer's attempts fail fast and contact nothing.
const CLOSED = "http://127.0.0.1:9";

async function creator(email: string) {
  const cookie = await signIn(email);
  const userId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  return { cookie, userId };
}

async function addEndpoint(cookie: string, events: string[], path = "/hook"): Promise<WebhookEndpoint> {
  const res = await postJson(
    "/api/developer/webhooks",
    { url: `${CLOSED}${path}`, events, description: "test" },
    cookie,
  );
  if (res.status !== 201) throw new Error(`create endpoint ${res.status}: ${await res.text()}`);
  return res.json<WebhookEndpoint>();
}

async function itemOf(cookie: string) {
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Hook guide", price: "10", accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

async function paidSale(cookie: string, buyer: string) {
  const itemId = await itemOf(cookie);
  const { paymentIntent } = await checkout(itemId, { email: buyer });
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  return { itemId, paymentIntent };
}

/** A delivery written as a change's batch writes it, without a hand-over (the test drives attempts). */
async function writtenDelivery(userId: string, key: string, now = Date.now()) {
  await env.DB.batch(
    webhookStatements(
      env.DB,
      userId,
      "sale.completed",
      { purchaseId: key, amountCents: 1000, currency: "usd" },
      key,
      now,
    ),
  );
  return rows<{ id: string; endpoint_id: string; next_attempt_at: number }>(
    "select id, endpoint_id, next_attempt_at from webhook_deliveries where event_key = ? and user_id = ?",
    key,
    userId,
  );
}

describe("events are written in the batch of the change", () => {
  it("a sale makes one sale.completed delivery per subscribed endpoint; a repeated payment_intent.succeeded adds none", async () => {
    const { cookie, userId } = await creator("hooks-sale@example.com");
    const a = await addEndpoint(cookie, ["sale.completed"]);
    const b = await addEndpoint(cookie, ["sale.completed", "payout.paid"]);
    const c = await addEndpoint(cookie, ["payout.paid"]);
    const { itemId, paymentIntent } = await paidSale(cookie, "hooks-sale-buyer@example.com");
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);

    const written = await rows<{ endpoint_id: string; type: string; payload: string; id: string }>(
      "select endpoint_id, type, payload, id from webhook_deliveries where user_id = ? order by endpoint_id",
      userId,
    );
    expect(written.map((d) => d.endpoint_id).sort()).toEqual([a.id, b.id].sort());
    expect(written.every((d) => d.type === "sale.completed" && d.id.startsWith("msg_"))).toBe(true);
    expect(written.map((d) => d.endpoint_id)).not.toContain(c.id);
    const purchase = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ?",
      paymentIntent,
    ))!;
    expect(JSON.parse(written[0].payload)).toMatchObject({
      type: "sale.completed",
      timestamp: expect.any(String),
      data: {
        purchaseId: purchase.id,
        itemId,
        itemTitle: "Hook guide",
        amountCents: 1000,
        currency: "usd",
        netCents: 800,
        feeCents: 200,
        buyerEmail: "hooks-sale-buyer@example.com",
      },
    });
  });

  it("sale.refunded after a refund, once, with the refunded amount", async () => {
    const { cookie, userId } = await creator("hooks-refund@example.com");
    await addEndpoint(cookie, ["sale.refunded"]);
    const { paymentIntent } = await paidSale(cookie, "hooks-refund-buyer@example.com");
    expect((await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount: "400" })).status).toBe(200);
    const event = await eventFor("charge.refunded", paymentIntent);
    expect((await deliver(event)).status).toBe(200);
    expect((await deliver(event)).status).toBe(200);
    const written = await rows<{ type: string; payload: string }>(
      "select type, payload from webhook_deliveries where user_id = ?",
      userId,
    );
    expect(written.map((d) => d.type)).toEqual(["sale.refunded"]);
    expect(JSON.parse(written[0].payload).data).toMatchObject({
      refundedCents: 400,
      totalRefundedCents: 400,
      accessEnded: false,
      amountCents: 1000,
    });
  });

  it("payout.paid and payout.failed where the payout's status changes, once each", async () => {
    const userId = `hookpay${Math.random().toString(36).slice(2, 8)}`;
    const payout = (id: string, month: number) =>
      env.DB.prepare(
        "insert into payouts (id, user_id, amount_cents, method, email, status, period_year, period_month, created_at) values (?, ?, 2500, 'paypal', 'pp@example.com', 'pending', 2026, ?, ?)",
      ).bind(id, userId, month, Date.now());
    await env.DB.batch([
      env.DB.prepare("insert into users (id, email) values (?, ?)").bind(userId, `${userId}@example.com`),
      env.DB.prepare(
        "insert into webhook_endpoints (id, user_id, url, events, secret, created_at) values (?, ?, ?, ?, ?, ?)",
      ).bind(
        `ep_${userId}`,
        userId,
        `${CLOSED}/p`,
        JSON.stringify(["payout.paid", "payout.failed"]),
        newWebhookSecret(),
        Date.now(),
      ),
      payout(`po_${userId}_a`, 10),
      payout(`po_${userId}_b`, 9),
    ]);
    const deps = payoutDeps(env);
    const actor = { userId: null, email: "admin@apewall.test" };
    await markPayoutPaid(deps, actor, `po_${userId}_a`, "PP-1");
    await markPayoutPaid(deps, actor, `po_${userId}_a`, "PP-1");
    const failure = {
      reason: "PayPal refused it",
      code: "manual",
      detail: "",
      ledgerKey: `payout-reversal:po_${userId}_b`,
      cents: 2500,
      from: ["pending" as const],
    };
    await failPayout(deps, `po_${userId}_b`, failure, Date.now());
    await failPayout(deps, `po_${userId}_b`, failure, Date.now() + 1);
    const written = await rows<{ type: string; payload: string }>(
      "select type, payload from webhook_deliveries where user_id = ? order by type",
      userId,
    );
    expect(written.map((d) => d.type)).toEqual(["payout.failed", "payout.paid"]);
    expect(JSON.parse(written[0].payload).data).toMatchObject({
      payoutId: `po_${userId}_b`,
      amountCents: 2500,
      currency: "usd",
      period: "2026-09",
      failureReason: "PayPal refused it",
    });
    expect(JSON.parse(written[1].payload).data).toMatchObject({
      payoutId: `po_${userId}_a`,
      amountCents: 2500,
      kind: "monthly",
      method: "paypal",
    });
  });
});

describe("delivery", () => {
  it("signs per Standard Webhooks: the receiver verifies it with the endpoint's secret; a 500 is retried after a minute under the same webhook-id", async () => {
    const { cookie, userId } = await creator("hooks-sign@example.com");
    const endpoint = await addEndpoint(cookie, ["sale.completed"]);
    const { secret } = await (await call(`/api/developer/webhooks/${endpoint.id}/secret`, { cookie })).json<{
      secret: string;
    }>();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const t0 = Date.now();
    const [delivery] = await writtenDelivery(userId, "sign-1", t0);
    const seen: { id: string | null; verified: unknown }[] = [];
    const receiver = (status: number) =>
      (async (_url: string, init: RequestInit) => {
        const headers = Object.fromEntries(new Headers(init.headers).entries());
        seen.push({ id: headers["webhook-id"], verified: new Webhook(secret).verify(String(init.body), headers) });
        expect(init.redirect).toBe("manual");
        return new Response(status === 200 ? "ok" : "boom", { status });
      }) as unknown as typeof fetch;
    const { queue, sent } = fakeQueue();
    const deps = {
      d1: env.DB,
      queue,
      emails: env.EMAILS,
      appUrl: "http://127.0.0.1:8787",
      appEnv: env.APP_ENV,
      secrets: secretBox(env),
    };

    expect(await deliverWebhook({ ...deps, fetch: receiver(500), now: t0 }, { id: delivery.id, due: t0 })).toBe(
      "retry",
    );
    expect(sent).toEqual([{ body: { id: delivery.id, due: expect.any(Number) }, delaySeconds: 60 }]);
    // A duplicate message before the retry is due attempts nothing.
    expect(await deliverWebhook({ ...deps, fetch: receiver(200), now: t0 + 1000 }, { id: delivery.id, due: t0 })).toBe(
      "not-due",
    );
    expect(await deliverWebhook({ ...deps, fetch: receiver(200), now: sent[0].body.due }, sent[0].body)).toBe(
      "delivered",
    );

    expect(seen.map((s) => s.id)).toEqual([delivery.id, delivery.id]);
    expect(seen[1].verified).toMatchObject({ type: "sale.completed", data: { purchaseId: "sign-1" } });
    const page = await (
      await call(`/api/developer/webhooks/${endpoint.id}/deliveries`, { cookie })
    ).json<WebhookDeliveryPage>();
    expect(page.deliveries[0]).toMatchObject({ id: delivery.id, status: "delivered", attempts: 2, lastStatus: 200 });
    expect(page.deliveries[0].log.map((a) => [a.status, a.responseExcerpt])).toEqual([
      [200, "ok"],
      [500, "boom"],
    ]);
  });

  it("a delivery whose hand-over was lost is handed over again by the sweep, 5 minutes past due", async () => {
    const { cookie, userId } = await creator("hooks-sweep@example.com");
    await addEndpoint(cookie, ["sale.completed"]);
    const t0 = Date.now() - 60 * 60 * 1000;
    const [delivery] = await writtenDelivery(userId, "sweep-1", t0);
    const { queue, sent } = fakeQueue();
    await sweepWebhooks(env.DB, queue, t0 + 4 * 60 * 1000);
    expect(sent.filter((m) => m.body.id === delivery.id)).toEqual([]);
    await sweepWebhooks(env.DB, queue, t0 + 6 * 60 * 1000);
    expect(sent.filter((m) => m.body.id === delivery.id)).toEqual([{ body: { id: delivery.id, due: t0 } }]);
  });

  it("resend: a new attempt of the same delivery, under the same webhook-id", async () => {
    const { cookie, userId } = await creator("hooks-resend@example.com");
    const endpoint = await addEndpoint(cookie, ["sale.completed"]);
    const t0 = Date.now();
    const [delivery] = await writtenDelivery(userId, "resend-1", t0);
    const { queue } = fakeQueue();
    const ok = (async () => new Response("ok", { status: 200 })) as unknown as typeof fetch;
    await deliverWebhook(
      {
        d1: env.DB,
        queue,
        emails: env.EMAILS,
        appUrl: "x",
        appEnv: env.APP_ENV,
        secrets: secretBox(env),
        fetch: ok,
        now: t0,
      },
      { id: delivery.id, due: t0 },
    );

    const res = await call(`/api/developer/webhooks/${endpoint.id}/deliveries/${delivery.id}/resend`, {
      method: "POST",
      cookie,
    });
    expect(res.status).toBe(202);
    // The real queue brings it to the consumer, which tries the (closed) endpoint: a second attempt.
    await vi.waitUntil(
      async () =>
        (await row<{ n: number }>("select count(*) as n from webhook_attempts where delivery_id = ?", delivery.id))!
          .n === 2,
      { timeout: 10_000, interval: 100 },
    );
    const page = await (
      await call(`/api/developer/webhooks/${endpoint.id}/deliveries`, { cookie })
    ).json<WebhookDeliveryPage>();
    expect(page.deliveries).toHaveLength(1);
    expect(page.deliveries[0]).toMatchObject({ id: delivery.id, attempts: 2 });
    expect(page.deliveries[0].log[0]).toMatchObject({ status: null, error: expect.any(String) });
    expect(page.deliveries[0].log[1]).toMatchObject({ status: 200 });
  });

  it("non-2xx for three days: retried on the backoff, then failed, the endpoint disabled and its creator emailed", async () => {
    const { cookie, userId } = await creator("hooks-disable@example.com");
    const endpoint = await addEndpoint(cookie, ["sale.completed"]);
    const t0 = Date.now();
    const [delivery] = await writtenDelivery(userId, "disable-1", t0);
    const [other] = await writtenDelivery(userId, "disable-2", t0);
    const { queue, sent } = fakeQueue();
    const down = (async () => new Response("Service Unavailable", { status: 503 })) as unknown as typeof fetch;
    const deps = {
      d1: env.DB,
      queue,
      emails: env.EMAILS,
      appUrl: "http://127.0.0.1:8787",
      appEnv: env.APP_ENV,
      secrets: secretBox(env),
      fetch: down,
    };

    let message: WebhookMessage = { id: delivery.id, due: t0 };
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const outcome = await deliverWebhook({ ...deps, now: message.due }, message);
      outcomes.push(outcome);
      if (outcome !== "retry") break;
      message = sent[sent.length - 1].body;
    }
    expect(outcomes.at(-1)).toBe("failed");
    expect(sent.map((s) => s.delaySeconds)).toEqual([
      60,
      300,
      1800,
      7200,
      18000,
      36000,
      43200,
      43200,
      43200,
      43200,
      expect.any(Number),
    ]);
    expect(message.due).toBe(t0 + WEBHOOK_RETRY_WINDOW_MS);
    expect(await row("select status, attempts from webhook_deliveries where id = ?", delivery.id)).toEqual({
      status: "failed",
      attempts: 12,
    });
    expect(
      await row("select count(*) as n from webhook_attempts where delivery_id = ? and status = 503", delivery.id),
    ).toEqual({ n: 12 });

    const list = await (await call("/api/developer/webhooks", { cookie })).json<{ endpoints: WebhookEndpoint[] }>();
    expect(list.endpoints[0]).toMatchObject({
      id: endpoint.id,
      status: "disabled",
      disabledReason: expect.stringMatching(/failed for 3 days/),
    });
    // The endpoint's other pending delivery stops with it.
    expect(await row("select status from webhook_deliveries where id = ?", other.id)).toEqual({ status: "disabled" });
    const mail = await waitForMail("hooks-disable@example.com", 1);
    expect(mail.subject).toBe("A webhook endpoint was disabled");
    expect(mail.text).toContain(`${CLOSED}/hook`);

    // Enable again: active, streak cleared.
    const enabled = await call(`/api/developer/webhooks/${endpoint.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ status: "active" }),
      cookie,
    });
    expect(await enabled.json()).toMatchObject({ status: "active", disabledReason: null, failingSince: null });
  });
});

describe("endpoints", () => {
  it("SSRF: production refuses http, IP literals, localhost and private names; development allows http://127.0.0.1", async () => {
    for (const url of [
      "http://example.com/hook",
      "https://127.0.0.1/hook",
      "https://10.1.2.3/hook",
      "https://169.254.169.254/latest",
      "https://[::1]/hook",
      "https://localhost/hook",
      "https://box.local/x",
      "https://db.internal/x",
      "https://2130706433/x",
      "https://0x7f.1/x",
      "https://100.64.0.1/x",
      "https://[fd00::1]/x",
      "https://[::ffff:10.0.0.1]/x",
      "https://user:pw@example.com/x",
    ]) {
      expect([url, webhookUrlProblem(url, true)]).toEqual([url, expect.any(String)]);
    }
    expect(webhookUrlProblem("https://hooks.example.com/apewall", true)).toBeNull();
    expect(webhookUrlProblem("http://127.0.0.1:4000/hook", false)).toBeNull();

    // The route, as production runs it.
    const { cookie } = await creator("hooks-ssrf@example.com");
    const prodEnv = { ...env, APP_ENV: "production" };
    for (const url of ["https://169.254.169.254/latest/meta-data", "http://example.com/hook", "https://localhost/x"]) {
      const res = await app.request(
        "http://127.0.0.1:8787/api/developer/webhooks",
        {
          method: "POST",
          headers: { cookie, origin: "http://127.0.0.1:8787", "content-type": "application/json" },
          body: JSON.stringify({ url, events: ["sale.completed"] }),
        },
        prodEnv,
      );
      expect([url, res.status]).toEqual([url, 400]);
      expect((await res.json<{ message: string }>()).message).toMatch(/^url: /);
    }
  });

  it("someone else's endpoint or delivery is 404; at most 10 endpoints", async () => {
    const owner = await creator("hooks-owner@example.com");
    const endpoint = await addEndpoint(owner.cookie, ["sale.completed"]);
    const [delivery] = await writtenDelivery(owner.userId, "owned-1");
    const other = await creator("hooks-other@example.com");
    const json = { "content-type": "application/json" };
    const tries = [
      call(`/api/developer/webhooks/${endpoint.id}`, {
        method: "PATCH",
        headers: json,
        body: JSON.stringify({ description: "mine" }),
        cookie: other.cookie,
      }),
      call(`/api/developer/webhooks/${endpoint.id}`, { method: "DELETE", cookie: other.cookie }),
      call(`/api/developer/webhooks/${endpoint.id}/secret`, { cookie: other.cookie }),
      call(`/api/developer/webhooks/${endpoint.id}/secret`, { method: "POST", cookie: other.cookie }),
      call(`/api/developer/webhooks/${endpoint.id}/test`, { method: "POST", cookie: other.cookie }),
      call(`/api/developer/webhooks/${endpoint.id}/deliveries`, { cookie: other.cookie }),
      call(`/api/developer/webhooks/${endpoint.id}/deliveries/${delivery.id}/resend`, {
        method: "POST",
        cookie: other.cookie,
      }),
    ];
    for (const res of await Promise.all(tries)) expect(res.status).toBe(404);
    expect(
      (await (await call("/api/developer/webhooks", { cookie: other.cookie })).json<{ endpoints: unknown[] }>())
        .endpoints,
    ).toEqual([]);

    for (let i = 1; i < 10; i++) await addEndpoint(owner.cookie, ["payout.paid"], `/h${i}`);
    const eleventh = await postJson(
      "/api/developer/webhooks",
      { url: `${CLOSED}/h11`, events: ["payout.paid"] },
      owner.cookie,
    );
    expect(eleventh.status).toBe(409);
  });

  it("the delivery log pages newest first, also through deliveries written in the same millisecond", async () => {
    const { cookie, userId } = await creator("hooks-pages@example.com");
    const endpoint = await addEndpoint(cookie, ["sale.completed"]);
    const now = Date.now();
    for (const key of ["page-1", "page-2", "page-3"]) await writtenDelivery(userId, key, now);
    const page = async (q: string) =>
      (await call(`/api/developer/webhooks/${endpoint.id}/deliveries${q}`, { cookie })).json<WebhookDeliveryPage>();
    const first = await page("?limit=2");
    expect(first.deliveries).toHaveLength(2);
    const second = await page(`?limit=2&before=${encodeURIComponent(first.nextBefore!)}`);
    expect(second.nextBefore).toBeNull();
    expect(
      [...first.deliveries, ...second.deliveries]
        .map((d) => (d.payload as { data: { purchaseId: string } }).data.purchaseId)
        .sort(),
    ).toEqual(["page-1", "page-2", "page-3"]);
    expect((await call(`/api/developer/webhooks/${endpoint.id}/deliveries?before=x`, { cookie })).status).toBe(400);
  });

  it("an API key with webhooks:write manages endpoints only for events its read scopes cover; one without it is refused", async () => {
    const { cookie } = await creator("hooks-key@example.com");
    const make = async (scopes: string[]) =>
      (await (await postJson("/api/developer/keys", { name: "k", scopes }, cookie)).json<{ key: string }>()).key;
    const withScope = await make(["webhooks:write", "payouts:read"]);
    const without = await make(["sales:read"]);
    const writeOnly = await make(["webhooks:write"]);
    const asKey = (key: string, init: RequestInit = {}, path = "/api/developer/webhooks") =>
      call(path, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}`, origin: "" },
      });
    const subscribe = (key: string, events: string[]) =>
      asKey(key, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: `${CLOSED}/k`, events }),
      });
    const created = await subscribe(withScope, ["payout.failed"]);
    expect(created.status).toBe(201);
    expect((await asKey(without)).status).toBe(403);
    // webhooks:write alone never yields what the events carry: buyers' emails and amounts, payouts.
    const sales = await subscribe(writeOnly, ["sale.completed"]);
    expect(sales.status).toBe(403);
    expect((await sales.json<{ message: string }>()).message).toBe(
      "This API key needs the sales:read scope for sale.completed events",
    );
    expect((await subscribe(withScope, ["sale.completed"])).status).toBe(403);
    const endpointId = (await created.json<{ id: string }>()).id;
    expect((await asKey(writeOnly, {}, `/api/developer/webhooks/${endpointId}/deliveries`)).status).toBe(403);
    expect((await asKey(writeOnly, {}, `/api/developer/webhooks/${endpointId}/secret`)).status).toBe(403);
    expect((await asKey(withScope, {}, `/api/developer/webhooks/${endpointId}/deliveries`)).status).toBe(200);
    expect(
      (await call("/api/developer/keys", { headers: { authorization: `Bearer ${withScope}`, origin: "" } })).status,
    ).toBe(403);
  });
});
