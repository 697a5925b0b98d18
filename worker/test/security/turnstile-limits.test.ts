// Bot protection's limits (docs/security.md, "Bot protection"): an IPv6 client
// counts as its /64 however it writes its address; unverified requests from all addresses share a
// budget per form in production; a request without an address shares the `noip` bucket there; each
// unverified request is logged with its reason; a missing sitekey is logged once.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { HUMAN_CHECK_HEADER } from "../../../shared/human-check";
import { app } from "../../app";
import { creatorWithItem } from "../payments/payment-fixtures";
import { BASE, env, startOfLimitWindow } from "../support/helpers";

const DUMMY_TOKEN = "XXXX.DUMMY.TOKEN.XXXX";

/** A request to the Worker with its settings changed by `overrides`. */
async function send(path: string, init: { body?: unknown; token?: string; ip?: string; env?: object } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json", origin: BASE };
  if (init.token !== undefined) headers[HUMAN_CHECK_HEADER] = init.token;
  if (init.ip) headers["cf-connecting-ip"] = init.ip;
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(new URL(path, BASE), {
      method: init.body === undefined ? "GET" : "POST",
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    { ...(env as object), ...init.env } as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

let contentId = "";
let n = 0;
const start = () => ({ contentId, buyerEmail: `limits-${++n}-${Math.floor(Math.random() * 1e6)}@example.com` });
const checkoutStart = (opts: { token?: string; ip?: string; env?: object } = {}) =>
  send("/api/create-payment-intent", { body: start(), ...opts }).then((res) => res.status);

/** A stand-in for a Rate Limiting binding that records its keys and answers `success`. */
const limiter = (success: boolean) => {
  const keys: string[] = [];
  const limit = async ({ key }: { key: string }) => {
    keys.push(key);
    return { success };
  };
  return { keys, limit };
};

beforeAll(async () => {
  contentId = (await creatorWithItem("turnstile-limits@example.com")).item.id;
});
afterEach(() => vi.restoreAllMocks());

describe("an IPv6 client is one /64", () => {
  it("addresses of one /64, written any way, share the strict limit; the next /64 does not", async () => {
    await startOfLimitWindow();
    const sameNetwork = [
      "2001:db8:0:7::1",
      "2001:DB8:0:7:ffff:1:2:3",
      "2001:0db8:0000:0007:0000:0000:0000:0009",
      "2001:db8::7:a:b:c:d",
      "2001:db8:0:7:1::",
    ];
    for (const ip of sameNetwork) expect(await checkoutStart({ token: "unavailable", ip })).toBe(200);
    expect(await checkoutStart({ token: "unavailable", ip: "2001:db8:0:7:dead:beef:0:1" })).toBe(429);
    expect(await checkoutStart({ token: "unavailable", ip: "2001:db8:0:8::1" })).toBe(200);
  });

  it("the route's own limit counts the /64 too (10 sign-in emails a minute)", async () => {
    await startOfLimitWindow();
    const status = (i: number) =>
      send("/api/auth/email", {
        body: { email: `v6-${i}-${Math.random()}@example.com` },
        token: DUMMY_TOKEN,
        ip: `2001:db8:1:2:${i.toString(16)}::${i}`,
      }).then((res) => res.status);
    for (let i = 1; i <= 10; i++) expect(await status(i)).toBe(202);
    expect(await status(11)).toBe(429);
  });

  it("an IPv4 address is counted whole, and its IPv4-mapped IPv6 form is the same client", async () => {
    await startOfLimitWindow();
    for (let i = 0; i < 5; i++) expect(await checkoutStart({ token: "unavailable", ip: "203.0.113.77" })).toBe(200);
    expect(await checkoutStart({ token: "unavailable", ip: "::ffff:203.0.113.77" })).toBe(429);
    expect(await checkoutStart({ token: "unavailable", ip: "203.0.113.78" })).toBe(200);
  });
});

describe("in production", () => {
  const production = { APP_ENV: "production" };

  it("unverified requests from every address share the form's site-wide budget", async () => {
    await startOfLimitWindow();
    const open = limiter(true);
    expect(
      await checkoutStart({
        token: "unavailable",
        ip: "192.0.2.10",
        env: { ...production, UNVERIFIED_SITE_LIMITER: open },
      }),
    ).toBe(200);
    expect(open.keys).toEqual(["checkout:all-unverified"]);
    // Spent: every address is held back, whatever it is; a passed check is not counted at all.
    const spent = limiter(false);
    const over = { ...production, UNVERIFIED_SITE_LIMITER: spent };
    const res = await send("/api/create-payment-intent", {
      body: start(),
      token: "unavailable",
      ip: "192.0.2.11",
      env: over,
    });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("60");
    expect(await checkoutStart({ ip: "192.0.2.12", env: over })).toBe(429);
    expect(await checkoutStart({ token: DUMMY_TOKEN, ip: "192.0.2.13", env: over })).toBe(200);
    expect(spent.keys).toEqual(["checkout:all-unverified", "checkout:all-unverified"]);
  });

  it("a request without CF-Connecting-IP is limited in the shared `noip` bucket, not skipped", async () => {
    await startOfLimitWindow();
    for (let i = 0; i < 5; i++) expect(await checkoutStart({ token: "unavailable", env: production })).toBe(200);
    expect(await checkoutStart({ token: "unavailable", env: production })).toBe(429);
    // Locally (the tests' development settings) it is not limited by address.
    expect(await checkoutStart({ token: "unavailable" })).toBe(200);
  });

  it("a missing sitekey is logged as an error once, and the form is told there is none", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const none = { ...production, TURNSTILE_SITE_KEY: "" };
    for (let i = 0; i < 2; i++) {
      const res = await send("/api/human-check", { env: none });
      expect((await res.json<{ siteKey: string | null }>()).siteKey).toBeNull();
    }
    const logged = errors.mock.calls.filter(([text]) => String(text).includes("TURNSTILE_SITE_KEY is not set"));
    expect(logged).toHaveLength(1);
  });
});

it("each unverified request is logged with its reason", async () => {
  const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
  const down = {
    TURNSTILE_VERIFY_URL: `${new URL(env.TURNSTILE_VERIFY_URL).origin}/_standin/status/503/turnstile/v0/siteverify`,
  };
  await checkoutStart({ ip: "192.0.2.40" });
  await checkoutStart({ token: "unavailable", ip: "192.0.2.41" });
  await checkoutStart({ token: DUMMY_TOKEN, ip: "192.0.2.42", env: down });
  await checkoutStart({ token: DUMMY_TOKEN, ip: "192.0.2.43" });
  const lines = warnings.mock.calls.map(([text]) => String(text)).filter((t) => t.startsWith("bot check unverified"));
  expect(lines).toEqual([
    "bot check unverified (checkout, 192.0.2.40): no token",
    "bot check unverified (checkout, 192.0.2.41): widget unavailable",
    "bot check unverified (checkout, 192.0.2.42): siteverify answered 503",
  ]);
});
