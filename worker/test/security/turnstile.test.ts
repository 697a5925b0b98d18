// Bot protection (docs/security.md, "Bot protection"): every protected form's token is checked with
// siteverify at the Turnstile stand-in (Cloudflare's test keys); a refused token changes nothing; no
// token, or a siteverify that cannot answer, goes on under the strict per-address limit.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { HUMAN_CHECK_HEADER, HUMAN_CHECK_REFUSED } from "../../../shared/human-check";
import { app } from "../../app";
import { newToken, sha256Hex } from "../../lib/ids";
import { creatorWithItem, purchaseOf } from "../payments/payment-fixtures";
import { checkAnswer } from "../support/openapi-check";
import { BASE, call, checkout, deliver, env, eventFor, row, startOfLimitWindow } from "../support/helpers";

const DUMMY_TOKEN = "XXXX.DUMMY.TOKEN.XXXX";
const SECRETS = {
  pass: "1x0000000000000000000000000000000AA",
  fail: "2x0000000000000000000000000000000AA",
  spent: "3x0000000000000000000000000000000AA",
};
const settings = env as unknown as { TURNSTILE_VERIFY_URL: string; TURNSTILE_SCRIPT_URL: string };
const standin = () => new URL(settings.TURNSTILE_VERIFY_URL).origin;

type Overrides = Partial<Record<"TURNSTILE_SECRET_KEY" | "TURNSTILE_VERIFY_URL", string>>;

/** One request to a protected form: where, what, and the cookie of the browser sending it. */
type Sent = { path: string; body: unknown; cookie?: string };

/** Posts `sent` as a browser would, with the Worker's settings changed by `overrides`. */
async function post(sent: Sent, opts: { token?: string; ip?: string; env?: Overrides } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", origin: BASE };
  if (opts.token !== undefined) headers[HUMAN_CHECK_HEADER] = opts.token;
  if (opts.ip) headers["cf-connecting-ip"] = opts.ip;
  if (sent.cookie) headers.cookie = sent.cookie;
  const url = new URL(sent.path, BASE);
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(url, { method: "POST", headers, body: JSON.stringify(sent.body) }),
    { ...(env as object), ...opts.env } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  await checkAnswer("POST", url, res.clone());
  return res;
}

let ipCount = 0;
const newIp = () => `198.51.100.${++ipCount}`;
let n = 0;
const unique = (tag: string) => `${tag}-${++n}-${Math.floor(Math.random() * 1e6)}`;
const count = async (sql: string, value: string) => (await row<{ n: number }>(sql, value))!.n;

/** Each protected form: a fresh valid request, its success status, and how many rows it wrote. */
type Form = { name: string; ok: number; next: () => Promise<Sent>; made: (sent: Sent) => Promise<number> };
const bodyOf = <T>(sent: Sent) => sent.body as T;
let contentId = "";
let emailChangeItem = "";
const FORMS: Form[] = [
  {
    name: "checkout start",
    ok: 200,
    next: async () => ({
      path: "/api/create-payment-intent",
      body: { contentId, buyerEmail: `${unique("buyer")}@example.com` },
    }),
    made: (s) =>
      count("select count(*) n from purchases where buyer_email = ?", bodyOf<{ buyerEmail: string }>(s).buyerEmail),
  },
  {
    name: "sign-in email",
    ok: 202,
    next: async () => ({ path: "/api/auth/email", body: { email: `${unique("creator")}@example.com` } }),
    made: (s) => count("select count(*) n from login_tokens where email = ?", bodyOf<{ email: string }>(s).email),
  },
  {
    name: "library link",
    ok: 202,
    next: async () => ({ path: "/api/library/link", body: { email: `${unique("reader")}@example.com` } }),
    made: (s) => count("select count(*) n from library_tokens where email = ?", bodyOf<{ email: string }>(s).email),
  },
  {
    // A paid purchase of its own each time (an order's email changes at most 3 times), changed from
    // the library signed in as its email.
    name: "purchase email change",
    ok: 200,
    next: async () => {
      const email = `${unique("payer")}@example.com`;
      const { paymentIntent } = await checkout(emailChangeItem, { email });
      expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
      const purchase = (await purchaseOf(paymentIntent))!;
      const session = newToken();
      await env.SESSIONS.put(`library:${await sha256Hex(session)}`, JSON.stringify({ email, createdAt: Date.now() }));
      return {
        path: `/api/purchases/${purchase.id}/email`,
        body: { email: `${unique("moved")}@example.com` },
        cookie: `aw_library=${session}`,
      };
    },
    made: (s) => count("select count(*) n from purchases where buyer_email = ?", bodyOf<{ email: string }>(s).email),
  },
  {
    name: "feedback",
    ok: 201,
    next: async () => ({
      path: "/api/feedback",
      body: { type: "general", subject: unique("subject"), message: "Hello" },
    }),
    made: (s) => count("select count(*) n from feedback where subject = ?", bodyOf<{ subject: string }>(s).subject),
  },
];

beforeAll(async () => {
  contentId = (await creatorWithItem("turnstile-creator@example.com")).item.id;
  emailChangeItem = (await creatorWithItem("turnstile-email-creator@example.com")).item.id;
});

const message = async (res: Response) => (await res.json<{ message: string }>()).message;

it("GET /api/human-check tells a form the sitekey and where the script loads from", async () => {
  const res = await call("/api/human-check");
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ siteKey: "1x00000000000000000000BB", scriptUrl: settings.TURNSTILE_SCRIPT_URL });
});

describe.each(FORMS)("$name", (form) => {
  it("goes through with a token siteverify passes", async () => {
    const sent = await form.next();
    const res = await post(sent, { token: DUMMY_TOKEN, ip: newIp() });
    expect(res.status).toBe(form.ok);
    expect(await form.made(sent)).toBe(1);
  });

  it("is refused with the message, changing nothing, when siteverify fails the token", async () => {
    const sent = await form.next();
    const res = await post(sent, { token: DUMMY_TOKEN, env: { TURNSTILE_SECRET_KEY: SECRETS.fail } });
    expect(res.status).toBe(403);
    expect(await message(res)).toBe(HUMAN_CHECK_REFUSED);
    expect(await form.made(sent)).toBe(0);
  });

  it("is refused when the token was already spent, and when it is forged", async () => {
    const sent = await form.next();
    const spent = await post(sent, { token: DUMMY_TOKEN, env: { TURNSTILE_SECRET_KEY: SECRETS.spent } });
    expect(spent.status).toBe(403);
    expect(await message(spent)).toBe(HUMAN_CHECK_REFUSED);
    // The test secret accepts only the dummy token: anything else is what a forger sends.
    const forged = await post(sent, { token: "made.up.token" });
    expect(forged.status).toBe(403);
    expect(await form.made(sent)).toBe(0);
  });

  it("goes on when the widget was unavailable, until the strict limit refuses that address", async () => {
    await startOfLimitWindow();
    const ip = newIp();
    for (let i = 0; i < 5; i++) {
      const sent = await form.next();
      expect((await post(sent, { token: "unavailable", ip })).status).toBe(form.ok);
      expect(await form.made(sent)).toBe(1);
    }
    const sent = await form.next();
    const limited = await post(sent, { token: "unavailable", ip });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await form.made(sent)).toBe(0);
    // No header at all counts the same; a passed check and another address are not held back.
    expect((await post(await form.next(), { ip })).status).toBe(429);
    expect((await post(await form.next(), { token: DUMMY_TOKEN, ip })).status).toBe(form.ok);
    expect((await post(await form.next(), { token: "unavailable", ip: newIp() })).status).toBe(form.ok);
  });

  it("goes on under the strict limit when siteverify answers 500", async () => {
    await startOfLimitWindow();
    const down = { TURNSTILE_VERIFY_URL: `${standin()}/_standin/status/500/turnstile/v0/siteverify` };
    const ip = newIp();
    for (let i = 0; i < 5; i++)
      expect((await post(await form.next(), { token: DUMMY_TOKEN, ip, env: down })).status).toBe(form.ok);
    expect((await post(await form.next(), { token: DUMMY_TOKEN, ip, env: down })).status).toBe(429);
  });
});

describe("siteverify out of reach", () => {
  const [checkout] = FORMS;

  it("unreachable: the checkout starts", async () => {
    const sent = await checkout.next();
    const res = await post(sent, {
      token: DUMMY_TOKEN,
      env: { TURNSTILE_VERIFY_URL: "http://127.0.0.1:9/turnstile/v0/siteverify" },
    });
    expect(res.status).toBe(200);
    expect(await checkout.made(sent)).toBe(1);
  });

  it("silent: the checkout starts after a short wait, not the buyer's patience", async () => {
    const sent = await checkout.next();
    const started = Date.now();
    const res = await post(sent, {
      token: DUMMY_TOKEN,
      env: { TURNSTILE_VERIFY_URL: `${standin()}/_standin/hang/turnstile/v0/siteverify` },
    });
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("no secret configured: every request is held to the strict limit", async () => {
    await startOfLimitWindow();
    const ip = newIp();
    const none = { TURNSTILE_SECRET_KEY: "" };
    for (let i = 0; i < 5; i++)
      expect((await post(await checkout.next(), { token: DUMMY_TOKEN, ip, env: none })).status).toBe(200);
    expect((await post(await checkout.next(), { token: DUMMY_TOKEN, ip, env: none })).status).toBe(429);
  });
});

describe("what the check refuses before asking", () => {
  const [checkout] = FORMS;

  it("a token longer than Turnstile makes (2,048 characters) is refused", async () => {
    const res = await post(await checkout.next(), { token: "x".repeat(2049) });
    expect(res.status).toBe(403);
  });

  it("a bad body is a 400 before any check (no token is spent on it)", async () => {
    const res = await post(
      { path: "/api/create-payment-intent", body: { contentId: 5 } },
      { token: DUMMY_TOKEN, env: { TURNSTILE_SECRET_KEY: SECRETS.fail } },
    );
    expect(res.status).toBe(400);
  });
});
