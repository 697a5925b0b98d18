// Events and their delivery, as a Stripe account sends them: every change is an event in the log
// (GET /v1/events), handed to the other resource modules' listeners and posted, signed, to the
// webhook endpoints. See docs/payments.md.
//
// Endpoints: `webhookUrls` are "Your account" endpoints, sent the events about the platform's own
// objects and signed with `webhookSecret`; `connectWebhookUrls` are "Connected accounts" endpoints,
// sent only the events about a connected account (`account` set) and signed with
// `connectWebhookSecret`. An endpoint never gets the other kind, so every delivery verifies with the
// one secret its endpoint has (the app points both at one path).
import { createHmac } from "node:crypto";
import { missing } from "./errors.mjs";
import { API_VERSION, list, now, publicJson, rid } from "./wire.mjs";

export function createWebhooks({ db, webhookUrls, connectWebhookUrls, webhookSecret, connectWebhookSecret, log }) {
  const endpoints = [
    ...webhookUrls.map((url) => ({ url, secret: webhookSecret, connect: false })),
    ...connectWebhookUrls.map((url) => ({ url, secret: connectWebhookSecret, connect: true })),
  ];
  const deliveries = [];
  // Resource modules (catalog.mjs and the like) react to events here, as Stripe's own services do.
  const listeners = [];
  let closed = false;

  function emit(type, object) {
    // An event about a connected account names it in `account` (Stripe sends those to Connect endpoints).
    const account = type.startsWith("account.")
      ? object.object === "account"
        ? object.id
        : object.account
      : undefined;
    const to = endpoints.filter((e) => e.connect === (typeof account === "string"));
    const event = {
      id: rid("evt"),
      object: "event",
      api_version: API_VERSION,
      created: now(),
      data: { object: JSON.parse(publicJson(object)) },
      livemode: false,
      pending_webhooks: to.length,
      request: { id: null, idempotency_key: null },
      type,
    };
    if (typeof account === "string") event.account = account;
    db.events.unshift(event);
    for (const listener of listeners) listener(event);
    for (const endpoint of to) deliveries.push(deliver(endpoint, event));
    return event;
  }

  /** Signs and posts an event like Stripe: `Stripe-Signature: t=…,v1=HMAC(endpoint secret, "t.body")`; retries with backoff. */
  async function deliver({ url, secret }, event, attempt = 0) {
    const payload = publicJson(event, 2);
    const t = now();
    const v1 = createHmac("sha256", secret).update(`${t}.${payload}`).digest("hex");
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json; charset=utf-8", "stripe-signature": `t=${t},v1=${v1}` },
        body: payload,
      });
      log(`webhook ${event.type} ${event.id} -> ${res.status}`);
      if (res.ok) return;
    } catch (err) {
      log(`webhook ${event.type} ${event.id} failed: ${err.message}`);
    }
    if (attempt < 5 && !closed) {
      // Unref'd: a pending retry never keeps a finished test run (or npm start) alive.
      await new Promise((r) => setTimeout(r, 500 * 2 ** attempt).unref());
      if (!closed) return deliver({ url, secret }, event, attempt + 1);
    }
  }

  const routes = [
    [
      "GET",
      /^\/v1\/events\/(evt_\w+)$/,
      "secret",
      (_p, m) => {
        const e = db.events.find((ev) => ev.id === m[1]);
        if (!e) throw missing("event", m[1]);
        return e;
      },
    ],
    [
      "GET",
      /^\/v1\/events$/,
      "secret",
      (p) =>
        list(
          db.events.filter((e) => !p.type || e.type === p.type),
          p,
          "/v1/events",
        ),
    ],
  ];

  return {
    emit,
    on: (fn) => listeners.push(fn),
    routes,
    /** Resolves once every webhook sent so far was delivered (or gave up). */
    async flush() {
      while (deliveries.length) await Promise.allSettled(deliveries.splice(0));
    },
    /** No retry starts after this. */
    stop() {
      closed = true;
    },
  };
}
