// A failed webhook attempt is recorded with its cause in words, and the delivery log answers it:
// workerd's own fetch() to a closed port and to a name that does not resolve (what the runtime
// throws is mapped, never shown), a timeout, Cloudflare's 530/1016 for an unresolvable name, a
// status answered, and an attempt recorded before causes were. docs/api-and-webhooks.md ("Webhooks").
import { describe, expect, it } from "vitest";
import type { WebhookDeliveryPage, WebhookEndpoint } from "../../../shared/webhooks";
import { deliverWebhook, webhookStatements } from "../../services/webhooks/delivery";
import { secretBox } from "../../services/webhooks/secrets";
import { fakeQueue } from "../support/fake-webhook-queue";
import { call, env, postJson, row, signIn } from "../support/helpers";

async function endpointAt(email: string, url: string) {
  const cookie = await signIn(email);
  const userId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  const res = await postJson("/api/developer/webhooks", { url, events: ["sale.completed"], description: "" }, cookie);
  if (res.status !== 201) throw new Error(`create endpoint ${res.status}: ${await res.text()}`);
  const endpoint = await res.json<WebhookEndpoint>();
  const now = Date.now();
  await env.DB.batch(
    webhookStatements(env.DB, userId, "sale.completed", { purchaseId: "p1", amountCents: 1000 }, "cause-1", now),
  );
  const delivery = (await row<{ id: string }>(
    "select id from webhook_deliveries where endpoint_id = ? and event_key = 'cause-1'",
    endpoint.id,
  ))!;
  return { cookie, endpoint, delivery, now };
}

/** One attempt with `fetcher` (workerd's own fetch when undefined), then the log as the API answers it. */
async function attemptAndLog(email: string, url: string, fetcher?: typeof fetch) {
  const { cookie, endpoint, delivery, now } = await endpointAt(email, url);
  const { queue } = fakeQueue();
  const outcome = await deliverWebhook(
    {
      d1: env.DB,
      queue,
      emails: env.EMAILS,
      appUrl: "http://127.0.0.1:8787",
      appEnv: env.APP_ENV,
      secrets: secretBox(env),
      fetch: fetcher,
      now,
    },
    { id: delivery.id, due: now },
  );
  const res = await call(`/api/developer/webhooks/${endpoint.id}/deliveries`, { cookie });
  expect(res.status).toBe(200);
  const text = await res.text();
  const page = JSON.parse(text) as WebhookDeliveryPage;
  return { outcome, attempt: page.deliveries[0].log[0], text, delivery };
}

const answering = (status: number, body: string) =>
  (async () => new Response(body, { status })) as unknown as typeof fetch;

describe("a failed delivery names its cause", () => {
  it("workerd's fetch to a closed port: 'Connection refused or closed', not the runtime's message", async () => {
    const { outcome, attempt, text } = await attemptAndLog("cause-refused@example.com", "http://127.0.0.1:9/hook");
    expect(outcome).toBe("retry");
    expect(attempt).toMatchObject({
      status: null,
      error: "Connection refused or closed",
      cause: "Connection refused or closed",
    });
    expect(text).not.toMatch(/Network connection lost/i);
  });

  it("workerd's fetch to a name that does not resolve throws an opaque internal error: 'Could not connect', no reference leaked", async () => {
    const { attempt, text } = await attemptAndLog("cause-nxdomain@example.com", "http://no-such-host.invalid/hook");
    expect(attempt).toMatchObject({ status: null, cause: "Could not connect" });
    expect(text).not.toMatch(/internal error|reference/i);
  });

  it("Cloudflare's 530 with error 1016 (the name does not resolve): 'Could not resolve host'", async () => {
    const { attempt } = await attemptAndLog(
      "cause-1016@example.com",
      "http://127.0.0.1:9/edge",
      answering(530, "error code: 1016"),
    );
    expect(attempt).toMatchObject({
      status: 530,
      error: "Could not resolve host",
      cause: "Could not resolve host",
      responseExcerpt: "error code: 1016",
    });
  });

  it("no answer within 10 s: 'Timed out after 10 s'", async () => {
    const timedOut = (async () => {
      throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
    }) as unknown as typeof fetch;
    const { attempt } = await attemptAndLog("cause-timeout@example.com", "http://127.0.0.1:9/slow", timedOut);
    expect(attempt).toMatchObject({ status: null, cause: "Timed out after 10 s" });
  });

  it("an answer is named by its status: 'Answered 500', 'Answered 200'; any other thrown error is 'Could not connect'", async () => {
    const failed = await attemptAndLog("cause-500@example.com", "http://127.0.0.1:9/a", answering(500, "boom"));
    expect(failed.attempt).toMatchObject({ status: 500, error: null, cause: "Answered 500", responseExcerpt: "boom" });
    const ok = await attemptAndLog("cause-200@example.com", "http://127.0.0.1:9/b", answering(200, "ok"));
    expect(ok.outcome).toBe("delivered");
    expect(ok.attempt).toMatchObject({ status: 200, cause: "Answered 200" });
    const odd = (async () => {
      throw new TypeError("kj/async-io.c++:123: something internal at 0xdeadbeef");
    }) as unknown as typeof fetch;
    const other = await attemptAndLog("cause-other@example.com", "http://127.0.0.1:9/c", odd);
    expect(other.attempt).toMatchObject({ status: null, error: "Could not connect", cause: "Could not connect" });
    expect(other.text).not.toContain("0xdeadbeef");
  });

  it("an attempt recorded before causes were (the runtime's raw message) is shown in words", async () => {
    const {
      attempt: first,
      text: before,
      delivery,
    } = await attemptAndLog("cause-legacy@example.com", "http://127.0.0.1:9/old", answering(200, "ok"));
    expect(before).toContain('"status":200');
    await env.DB.batch([
      env.DB.prepare("update webhook_attempts set status = null, error = ? where delivery_id = ?").bind(
        "internal error; reference = x1y2z3",
        delivery.id,
      ),
      env.DB.prepare("update webhook_deliveries set last_status = null, last_response_excerpt = ? where id = ?").bind(
        "internal error; reference = x1y2z3",
        delivery.id,
      ),
    ]);
    const endpointId = (await row<{ endpoint_id: string }>(
      "select endpoint_id from webhook_deliveries where id = ?",
      delivery.id,
    ))!.endpoint_id;
    const cookie = await signIn("cause-legacy@example.com");
    const text = await (await call(`/api/developer/webhooks/${endpointId}/deliveries`, { cookie })).text();
    const page = JSON.parse(text) as WebhookDeliveryPage;
    expect(page.deliveries[0].lastResponseExcerpt).toBe("Could not connect");
    expect(page.deliveries[0].log[0]).toMatchObject({
      id: first.id,
      error: "Could not connect",
      cause: "Could not connect",
    });
    expect(text).not.toContain("reference");
  });
});
