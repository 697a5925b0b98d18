// Outgoing webhooks fail closed: loopback/private targets only where APP_ENV is "development" (at
// save time and again at delivery time), test and resend rate-limited per creator, signing secrets
// encrypted at rest (old plaintext rows keep working and are sealed when read), deliveries purged
// after 30 days by the daily sweep.
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { WEBHOOK_MANUAL_SENDS_PER_MINUTE, WEBHOOK_MESSAGES, type WebhookEndpoint } from "../../../shared/webhooks";
import { app } from "../../app";
import { dailySweep } from "../../cron";
import { deliverWebhook, newWebhookSecret, webhookStatements } from "../../services/webhooks/delivery";
import { secretBox } from "../../services/webhooks/secrets";
import { call, env, postJson, row, rows, signIn } from "../support/helpers";
import { fakeQueue } from "../support/fake-webhook-queue";

const CLOSED = "http://127.0.0.1:9";
const DAY = 24 * 3600 * 1000;

async function creator(email: string) {
  const cookie = await signIn(email);
  const userId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  return { cookie, userId };
}

async function addEndpoint(
  cookie: string,
  events: string[] = ["sale.completed"],
  path = "/hook",
): Promise<WebhookEndpoint> {
  const res = await postJson(
    "/api/developer/webhooks",
    { url: `${CLOSED}${path}`, events, description: "test" },
    cookie,
  );
  if (res.status !== 201) throw new Error(`create endpoint ${res.status}: ${await res.text()}`);
  return res.json<WebhookEndpoint>();
}

async function writtenDelivery(userId: string, key: string, now = Date.now()) {
  await env.DB.batch(
    webhookStatements(env.DB, userId, "sale.completed", { purchaseId: key, buyerEmail: "buyer@example.com" }, key, now),
  );
  return rows<{ id: string; endpoint_id: string }>(
    "select id, endpoint_id from webhook_deliveries where event_key = ? and user_id = ?",
    key,
    userId,
  );
}

const asApp = (path: string, init: RequestInit & { cookie: string }, appEnv: string | undefined) => {
  const headers = new Headers(init.headers);
  headers.set("cookie", init.cookie);
  headers.set("origin", "http://127.0.0.1:8787");
  const bindings = { ...env } as Record<string, unknown>;
  if (appEnv === undefined) delete bindings.APP_ENV;
  else bindings.APP_ENV = appEnv;
  return app.request(`http://127.0.0.1:8787${path}`, { ...init, headers }, bindings);
};

const depsFor = (appEnv: string | undefined, fetcher: typeof fetch) => {
  const { queue, sent } = fakeQueue();
  return {
    deps: {
      d1: env.DB,
      queue,
      emails: env.EMAILS,
      appUrl: "http://127.0.0.1:8787",
      appEnv,
      secrets: secretBox(env),
      fetch: fetcher,
    },
    sent,
  };
};

describe("the address check fails closed", () => {
  it("only APP_ENV=development allows http://127.0.0.1: a missing, unknown or staging APP_ENV refuses it like production", async () => {
    const { cookie } = await creator("protect-ssrf@example.com");
    const body = JSON.stringify({ url: `${CLOSED}/local`, events: ["sale.completed"] });
    for (const appEnv of [undefined, "", "staging", "Development", "production"]) {
      const res = await asApp(
        "/api/developer/webhooks",
        { method: "POST", cookie, headers: { "content-type": "application/json" }, body },
        appEnv,
      );
      expect([appEnv, res.status]).toEqual([appEnv, 400]);
      expect((await res.json<{ message: string }>()).message).toBe(`url: ${WEBHOOK_MESSAGES.https}`);
    }
    const endpoint = await addEndpoint(cookie);
    const edit = await asApp(
      `/api/developer/webhooks/${endpoint.id}`,
      {
        method: "PATCH",
        cookie,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ url: "https://10.0.0.1/x" }),
      },
      "staging",
    );
    expect(edit.status).toBe(400);
    expect(
      (await row<{ n: number }>("select count(*) as n from webhook_endpoints where url like ?", "%10.0.0.1%"))!.n,
    ).toBe(0);
  });

  it("at delivery time too: an endpoint saved with a loopback address is never contacted outside development", async () => {
    const { cookie, userId } = await creator("protect-deliver@example.com");
    await addEndpoint(cookie);
    const [delivery] = await writtenDelivery(userId, "deliver-1");
    let contacted = 0;
    const receiver = (async () => {
      contacted++;
      return new Response("ok", { status: 200 });
    }) as unknown as typeof fetch;

    const { deps } = depsFor(undefined, receiver);
    expect(await deliverWebhook({ ...deps, now: Date.now() + 1000 }, { id: delivery.id, due: 0 })).toBe("failed");
    expect(contacted).toBe(0);
    expect(await row("select status, attempts from webhook_deliveries where id = ?", delivery.id)).toEqual({
      status: "failed",
      attempts: 1,
    });
    expect(await row("select status, error from webhook_attempts where delivery_id = ?", delivery.id)).toEqual({
      status: null,
      error: `Not sent: ${WEBHOOK_MESSAGES.https}`,
    });

    const [local] = await writtenDelivery(userId, "deliver-2");
    const dev = depsFor("development", receiver);
    expect(await deliverWebhook({ ...dev.deps, now: Date.now() + 1000 }, { id: local.id, due: 0 })).toBe("delivered");
    expect(contacted).toBe(1);
  });
});

describe("test and resend are rate-limited per creator", () => {
  it(`after ${WEBHOOK_MANUAL_SENDS_PER_MINUTE} test events and resends in a minute the next is 429 with a message; another creator is not affected`, async () => {
    const { cookie, userId } = await creator("protect-limit@example.com");
    const endpoint = await addEndpoint(cookie);
    const [delivery] = await writtenDelivery(userId, "limit-1");
    for (let i = 0; i < WEBHOOK_MANUAL_SENDS_PER_MINUTE; i++) {
      const res =
        i % 2
          ? await call(`/api/developer/webhooks/${endpoint.id}/deliveries/${delivery.id}/resend`, {
              method: "POST",
              cookie,
            })
          : await call(`/api/developer/webhooks/${endpoint.id}/test`, { method: "POST", cookie });
      expect(res.status).toBeLessThan(300);
    }
    const tests = (await row<{ n: number }>(
      "select count(*) as n from webhook_deliveries where user_id = ? and type = 'test.event'",
      userId,
    ))!.n;
    for (const res of [
      await call(`/api/developer/webhooks/${endpoint.id}/test`, { method: "POST", cookie }),
      await call(`/api/developer/webhooks/${endpoint.id}/deliveries/${delivery.id}/resend`, { method: "POST", cookie }),
    ]) {
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toBe("60");
      expect((await res.json<{ message: string }>()).message).toBe(WEBHOOK_MESSAGES.tooManySends);
    }
    expect(
      (await row<{ n: number }>(
        "select count(*) as n from webhook_deliveries where user_id = ? and type = 'test.event'",
        userId,
      ))!.n,
    ).toBe(tests);

    const other = await creator("protect-limit-other@example.com");
    const theirs = await addEndpoint(other.cookie);
    expect(
      (await call(`/api/developer/webhooks/${theirs.id}/test`, { method: "POST", cookie: other.cookie })).status,
    ).toBe(201);
  });
});

describe("test and resend limit under concurrency", () => {
  it("presses at the same instant cannot pass one count: of 15 at once, exactly the allowance goes through", async () => {
    const { cookie, userId } = await creator("protect-limit-race@example.com");
    const endpoint = await addEndpoint(cookie);
    const answers = await Promise.all(
      Array.from({ length: 15 }, () => call(`/api/developer/webhooks/${endpoint.id}/test`, { method: "POST", cookie })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(WEBHOOK_MANUAL_SENDS_PER_MINUTE);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15 - WEBHOOK_MANUAL_SENDS_PER_MINUTE);
    expect(
      (await row<{ n: number }>(
        "select count(*) as n from webhook_deliveries where user_id = ? and type = 'test.event'",
        userId,
      ))!.n,
    ).toBe(WEBHOOK_MANUAL_SENDS_PER_MINUTE);
  });
});

describe("signing secrets are encrypted at rest", () => {
  it("the database holds no secret in the clear; the owner reads and rotates it, and deliveries verify with it", async () => {
    const { cookie, userId } = await creator("protect-seal@example.com");
    const endpoint = await addEndpoint(cookie);
    const { secret } = await (await call(`/api/developer/webhooks/${endpoint.id}/secret`, { cookie })).json<{
      secret: string;
    }>();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const stored = (await row<{ secret: string }>("select secret from webhook_endpoints where id = ?", endpoint.id))!
      .secret;
    expect(stored).not.toContain(secret.slice(6, 20));
    expect(stored).not.toMatch(/^whsec_/);

    const rotated = await (
      await call(`/api/developer/webhooks/${endpoint.id}/secret`, { method: "POST", cookie })
    ).json<{ secret: string }>();
    expect(rotated.secret).not.toBe(secret);
    expect(
      (await row<{ secret: string }>("select secret from webhook_endpoints where id = ?", endpoint.id))!.secret,
    ).not.toContain(rotated.secret.slice(6, 20));

    const [delivery] = await writtenDelivery(userId, "seal-1");
    let verified: unknown = null;
    const receiver = (async (_url: string, init: RequestInit) => {
      verified = new Webhook(rotated.secret).verify(
        String(init.body),
        Object.fromEntries(new Headers(init.headers).entries()),
      );
      return new Response("ok");
    }) as unknown as typeof fetch;
    const { deps } = depsFor("development", receiver);
    expect(await deliverWebhook({ ...deps, now: Date.now() + 1000 }, { id: delivery.id, due: 0 })).toBe("delivered");
    expect(verified).toMatchObject({ type: "sale.completed" });
  });

  it("a secret stored in the clear before keeps working and is sealed the first time it is read", async () => {
    const { cookie, userId } = await creator("protect-legacy@example.com");
    const plain = newWebhookSecret();
    const id = `ep_legacy_${userId}`;
    await env.DB.prepare(
      "insert into webhook_endpoints (id, user_id, url, events, secret, created_at) values (?, ?, ?, ?, ?, ?)",
    )
      .bind(id, userId, `${CLOSED}/legacy`, JSON.stringify(["sale.completed"]), plain, Date.now())
      .run();
    const [delivery] = await writtenDelivery(userId, "legacy-1");
    let verified: unknown = null;
    const receiver = (async (_url: string, init: RequestInit) => {
      verified = new Webhook(plain).verify(String(init.body), Object.fromEntries(new Headers(init.headers).entries()));
      return new Response("ok");
    }) as unknown as typeof fetch;
    const { deps } = depsFor("development", receiver);
    expect(await deliverWebhook({ ...deps, now: Date.now() + 1000 }, { id: delivery.id, due: 0 })).toBe("delivered");
    expect(verified).toMatchObject({ type: "sale.completed" });
    expect((await row<{ secret: string }>("select secret from webhook_endpoints where id = ?", id))!.secret).not.toBe(
      plain,
    );
    expect(
      (await (await call(`/api/developer/webhooks/${id}/secret`, { cookie })).json<{ secret: string }>()).secret,
    ).toBe(plain);
  });

  it("the daily sweep seals every secret still stored in the clear", async () => {
    const userId = `legacy${Math.random().toString(36).slice(2, 8)}`;
    const plain = newWebhookSecret();
    await env.DB.batch([
      env.DB.prepare("insert into users (id, email) values (?, ?)").bind(userId, `${userId}@example.com`),
      env.DB.prepare(
        "insert into webhook_endpoints (id, user_id, url, events, secret, created_at) values (?, ?, ?, ?, ?, ?)",
      ).bind(`ep_${userId}`, userId, `${CLOSED}/s`, JSON.stringify(["sale.completed"]), plain, Date.now()),
    ]);
    await dailySweep(env, Date.now());
    const stored = (await row<{ secret: string }>("select secret from webhook_endpoints where id = ?", `ep_${userId}`))!
      .secret;
    expect(stored).not.toBe(plain);
    expect(await secretBox(env).open(stored, `ep_${userId}`)).toBe(plain);
  });
});

describe("the secrets key", () => {
  it("without WEBHOOK_SECRETS_KEY only APP_ENV=development works (on a fixed local key); a sealed secret opens only for its own endpoint", async () => {
    await expect(secretBox({ APP_ENV: "production" }).seal("whsec_x", "ep_1")).rejects.toThrow(
      /WEBHOOK_SECRETS_KEY is not set/,
    );
    await expect(secretBox({}).seal("whsec_x", "ep_1")).rejects.toThrow(/WEBHOOK_SECRETS_KEY is not set/);
    const local = secretBox({ APP_ENV: "development" });
    expect(await local.open(await local.seal("whsec_local", "ep_1"), "ep_1")).toBe("whsec_local");

    const box = secretBox(env);
    const sealed = await box.seal("whsec_mine", "ep_mine");
    await expect(box.open(sealed, "ep_other")).rejects.toThrow();
    await expect(
      secretBox({ APP_ENV: "production", WEBHOOK_SECRETS_KEY: "another-key" }).open(sealed, "ep_mine"),
    ).rejects.toThrow();
  });
});

describe("deliveries are kept 30 days", () => {
  it("the daily sweep deletes deliveries (with their attempts and buyers' emails) older than 30 days and keeps newer ones", async () => {
    const { cookie, userId } = await creator("protect-purge@example.com");
    await addEndpoint(cookie);
    const now = Date.now();
    const [old] = await writtenDelivery(userId, "purge-old", now - 31 * DAY);
    const [recent] = await writtenDelivery(userId, "purge-recent", now - 29 * DAY);
    for (const d of [old, recent]) {
      await env.DB.prepare(
        "insert into webhook_attempts (id, delivery_id, status, error, response_excerpt, duration_ms, at) values (?, ?, 200, null, 'ok', 5, ?)",
      )
        .bind(`att_${d.id}`, d.id, now - 29 * DAY)
        .run();
    }
    await dailySweep(env, now);
    const left = await rows<{ id: string }>("select id from webhook_deliveries where user_id = ?", userId);
    expect(left.map((d) => d.id)).toEqual([recent.id]);
    expect(await rows("select id from webhook_attempts where delivery_id = ?", old.id)).toEqual([]);
    expect(await rows("select id from webhook_attempts where delivery_id = ?", recent.id)).toHaveLength(1);
    expect(JSON.stringify(await rows("select payload from webhook_deliveries where user_id = ?", userId))).toContain(
      "buyer@example.com",
    );
  });
});
