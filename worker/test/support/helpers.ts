// Test helpers: call the Worker as a browser would and sign in through the real emailed-link flow.
import { env, exports } from "cloudflare:workers";
import { vi } from "vitest";
import { checkAnswer } from "./openapi-check";

export const BASE = "http://127.0.0.1:8787";

export function call(path: string, init: RequestInit & { cookie?: string } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("cookie", init.cookie);
  // Browsers send Origin with every non-GET request; the CSRF guard expects it.
  if (init.method && !["GET", "HEAD"].includes(init.method) && !headers.has("origin")) headers.set("origin", BASE);
  const url = new URL(path, BASE);
  const method = (init.method ?? "GET").toUpperCase();
  return exports.default.fetch(new Request(url, { ...init, headers, redirect: "manual" })).then(async (res) => {
    // Every answer is checked against the OpenAPI document (./openapi-check.ts).
    await checkAnswer(method, url, res);
    return res;
  });
}

export const postJson = (path: string, body: unknown, cookie?: string) =>
  call(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

type OutboxMessage = { to: string; subject: string; text: string; html: string; links: string[] };

export async function outbox(): Promise<OutboxMessage[]> {
  return (await call("/dev/mail.json?limit=1000")).json();
}

/** Waits for the queue consumer to deliver a mail to `to` and returns the newest one. */
export async function waitForMail(to: string, since = 0): Promise<OutboxMessage> {
  return vi.waitUntil(
    async () => {
      const mails = (await outbox()).filter((m) => m.to === to);
      return mails.length > since ? mails[0] : undefined;
    },
    { timeout: 10_000, interval: 100 },
  );
}

export const cookieValue = (res: Response, name: string) => {
  for (const header of res.headers.getSetCookie()) {
    const [pair] = header.split(";");
    const [k, v] = pair.split("=");
    if (k.trim() === name) return v;
  }
  return undefined;
};

const SIGN_IN_SUBJECT = "Your ApeWall sign-in link";

/** Asks for a sign-in link as a browser would; returns the mailed link and that browser's aw_login cookie. */
export async function requestLink(
  email: string,
  returnTo?: string,
): Promise<{ link: URL; loginCookie: string; mail: OutboxMessage }> {
  // Only sign-in links count: a creator's "You made a sale" or Pro receipt may arrive meanwhile.
  const signInMails = async () =>
    (await outbox()).filter((m) => m.to === email.toLowerCase() && m.subject === SIGN_IN_SUBJECT);
  const before = (await signInMails()).length;
  const res = await postJson("/api/auth/email", { email, returnTo });
  if (res.status !== 202) throw new Error(`sign-in request failed: ${res.status}`);
  const mail = await vi.waitUntil(
    async () => {
      const mine = await signInMails();
      return mine.length > before ? mine[0] : undefined;
    },
    { timeout: 10_000, interval: 100 },
  );
  return { link: new URL(mail.links[0]), loginCookie: `aw_login=${cookieValue(res, "aw_login")}`, mail };
}

/** Requests a sign-in link for `email`, opens it in the same browser, and returns the session cookie header. */
export async function signIn(email: string): Promise<string> {
  const { link, loginCookie } = await requestLink(email);
  const callback = await call(link.pathname + link.search, { cookie: loginCookie });
  const token = cookieValue(callback, "aw_session");
  if (!token) throw new Error(`no session cookie, status ${callback.status}`);
  return `aw_session=${token}`;
}

export { env };

/** A 1×1 PNG. */
export const PNG_1X1 = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="),
  (ch) => ch.charCodeAt(0),
);

export function contentForm(fields: Record<string, string | Blob>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  return form;
}

export const postForm = (path: string, form: FormData, cookie?: string) =>
  call(path, { method: "POST", body: form, cookie });

/** Deterministic bytes: part `n` of a file is filled with `n`, so misplaced parts are visible. */
export const partBytes = (size: number, fill: number) => new Uint8Array(size).fill(fill);

// ---- buying through the Stripe stand-in ----
export const standinBase = () => (env as unknown as { STRIPE_API_BASE: string }).STRIPE_API_BASE;

export async function standin<T = Record<string, unknown>>(
  method: string,
  path: string,
  params?: Record<string, string>,
  key = "sk_test_worker",
): Promise<{ status: number; body: T }> {
  const body = params ? new URLSearchParams(params).toString() : undefined;
  const res = await fetch(`${standinBase()}${path}${method === "GET" && body ? `?${body}` : ""}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
    body: method === "GET" ? undefined : body,
  });
  return { status: res.status, body: (await res.json()) as T };
}

// threeDS (3155) asks its bank on-session, and off-session only until it is set up with authentication;
// alwaysAuthenticate (3184) asks on every payment, however it was set up (Stripe's test cards).
export const CARDS = {
  ok: "4242424242424242",
  declined: "4000000000000002",
  insufficient: "4000000000009995",
  threeDS: "4000002500003155",
  alwaysAuthenticate: "4000002760003184",
};

/** Confirms a PaymentIntent at the stand-in as Stripe.js would: publishable key, client secret, a card. */
export function confirmAsStripeJs(clientSecret: string, card: string = CARDS.ok, extra: Record<string, string> = {}) {
  return standin(
    "POST",
    `/v1/payment_intents/${clientSecret.split("_secret_")[0]}/confirm`,
    {
      client_secret: clientSecret,
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": card,
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 3),
      "payment_method_data[card][cvc]": "123",
      ...extra,
    },
    "pk_test_worker",
  );
}

/** Starts a checkout as a browser would and pays with `card` through the stand-in (as Stripe.js would). */
export async function checkout(
  contentId: string,
  opts: { customAmount?: number | string; card?: string; buyerCookie?: string; email?: string } = {},
) {
  const res = await postJson(
    "/api/create-payment-intent",
    { contentId, customAmount: opts.customAmount, buyerEmail: opts.email ?? "" },
    opts.buyerCookie,
  );
  if (res.status !== 200) throw new Error(`create-payment-intent ${res.status}: ${await res.text()}`);
  const { clientSecret } = await res.json<{ clientSecret: string }>();
  const buyerCookie = opts.buyerCookie ?? `aw_buyer=${cookieValue(res, "aw_buyer")}`;
  const paymentIntent = clientSecret.split("_secret_")[0];
  let confirmed: { status: number; body: Record<string, unknown> } | undefined;
  if (opts.card !== "none") {
    confirmed = await confirmAsStripeJs(clientSecret, opts.card ?? CARDS.ok, {
      receipt_email: opts.email ?? "buyer@example.com",
    });
  }
  return { clientSecret, paymentIntent, buyerCookie, confirmed };
}

type StandinEvent = {
  id: string;
  type: string;
  data: { object: { id: string; payment_intent?: string; charge?: string } };
};

/** The stand-in's event of `type` about `objectId` (or whose object belongs to PaymentIntent `objectId`). */
export async function eventFor(type: string, objectId: string): Promise<StandinEvent> {
  const { body } = await standin<{ data: StandinEvent[] }>("GET", "/v1/events", { type, limit: "100" });
  const event = body.data.find((e) =>
    [e.data.object.id, e.data.object.payment_intent, e.data.object.charge].includes(objectId),
  );
  if (!event) throw new Error(`no ${type} event for ${objectId}`);
  return event;
}

export async function signedWebhook(
  payload: string,
  secret = "whsec_worker_tests",
  timestamp = Math.floor(Date.now() / 1000),
) {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const sig = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${timestamp}.${payload}`)),
  );
  return `t=${timestamp},v1=${[...sig].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** Delivers a stand-in event to the app's webhook endpoint, signed as Stripe would. */
export async function deliver(event: StandinEvent, opts: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  return call("/api/stripe/webhook", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "stripe-signature": await signedWebhook(payload, opts.secret, opts.timestamp),
    },
    body: payload,
  });
}

export async function row<T>(sqlText: string, ...binds: unknown[]): Promise<T | null> {
  return env.DB.prepare(sqlText)
    .bind(...binds)
    .first<T>();
}
export async function rows<T>(sqlText: string, ...binds: unknown[]): Promise<T[]> {
  return (
    await env.DB.prepare(sqlText)
      .bind(...binds)
      .all<T>()
  ).results;
}

/**
 * A connected Express account on the stand-in that can receive transfers (onboarded through the
 * stand-in's control), with platform funds to pay it (as Stripe's 4000000000000077 card adds them).
 */
export async function connectedAccount(): Promise<string> {
  const { body } = await standin<{ id: string }>("POST", "/v1/accounts", {
    type: "express",
    "capabilities[transfers][requested]": "true",
  });
  await standin("POST", `/_standin/accounts/${body.id}/onboard`);
  await standin("POST", "/_standin/balance/top_up", { amount: "1000000" });
  return body.id;
}

/** Waits for a test clock to finish advancing, as code using Stripe's test clocks must (an advance answers `advancing`). */
export async function advanceDone(
  clockId: string,
): Promise<{ status: string; frozen_time: number; status_details: unknown }> {
  return vi.waitUntil(
    async () => {
      const { body } = await standin<{ status: string; frozen_time: number; status_details: unknown }>(
        "GET",
        `/v1/test_helpers/test_clocks/${clockId}`,
      );
      return body.status === "ready" ? body : undefined;
    },
    { timeout: 10_000, interval: 50 },
  );
}

/** Advances a test clock on the stand-in and waits until it is ready again. */
export async function advanceTestClock(clockId: string, to: number) {
  const res = await standin<{ status: string }>("POST", `/v1/test_helpers/test_clocks/${clockId}/advance`, {
    frozen_time: String(to),
  });
  if (res.status !== 200) throw new Error(`advance ${res.status}: ${JSON.stringify(res.body)}`);
  return advanceDone(clockId);
}

/**
 * Waits, when fewer than 12 s of the rate limiters' current minute remain, for the next one to begin.
 * The limiters count in fixed minutes (workerd's simple rate limit, like Cloudflare's), so a test that
 * counts requests up to a limit must not straddle two minutes (a busy machine once made one do so).
 */
export async function startOfLimitWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 12_000) await new Promise((r) => setTimeout(r, left + 50));
}
