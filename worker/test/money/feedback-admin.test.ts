import { describe, expect, it } from "vitest";
import { call, env, postJson, signIn } from "../support/helpers";

describe("feedback", () => {
  it("stores feedback from a signed-out visitor", async () => {
    const res = await postJson("/api/feedback", {
      type: "bug",
      subject: "Broken",
      message: "It broke",
      email: "v@example.com",
    });
    expect(res.status).toBe(201);
    const { id } = await res.json<{ id: string }>();
    const row = await env.DB.prepare("select * from feedback where id = ?").bind(id).first();
    expect(row).toMatchObject({
      type: "bug",
      subject: "Broken",
      message: "It broke",
      email: "v@example.com",
      priority: "medium",
      user_id: null,
    });
  });

  it("ties feedback to the signed-in user", async () => {
    const cookie = await signIn("fb@example.com");
    const res = await postJson(
      "/api/feedback",
      { type: "feature", subject: "More", message: "Please", priority: "high" },
      cookie,
    );
    const { id } = await res.json<{ id: string }>();
    const row = await env.DB.prepare(
      "select f.priority, u.email from feedback f join users u on u.id = f.user_id where f.id = ?",
    )
      .bind(id)
      .first();
    expect(row).toEqual({ priority: "high", email: "fb@example.com" });
  });

  it("refuses missing fields and unknown values, writing nothing", async () => {
    const before = await env.DB.prepare("select count(*) as n from feedback").first<{ n: number }>();
    const cases: [unknown, RegExp][] = [
      [{ type: "bug", subject: " ", message: "x" }, /subject is required/],
      [{ type: "bug", subject: "x" }, /message/],
      [{ type: "rant", subject: "x", message: "y" }, /type must be one of/],
      [{ type: "bug", subject: "x", message: "y", priority: "asap" }, /priority must be one of/],
      [{ type: "bug", subject: "x", message: "y", email: "nope" }, /valid email/],
    ];
    for (const [body, message] of cases) {
      const res = await postJson("/api/feedback", body);
      expect(res.status).toBe(400);
      expect((await res.json<{ message: string }>()).message).toMatch(message);
    }
    const after = await env.DB.prepare("select count(*) as n from feedback").first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
  });

  it("refuses a body that is not JSON", async () => {
    const res = await call("/api/feedback", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(res.status).toBe(400);
  });
});

describe("admin guard", () => {
  it("answers 401 signed out, 403 for a creator, 200 for the admin", async () => {
    expect((await call("/api/admin/payout-summary")).status).toBe(401);
    const creator = await signIn("someone@example.com");
    const forbidden = await call("/api/admin/payout-summary", { cookie: creator });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ message: "Forbidden" });

    const admin = await signIn("admin@apewall.test");
    const me = await (await call("/api/auth/user", { cookie: admin })).json<{ isAdmin: boolean }>();
    expect(me.isAdmin).toBe(true);
    const ok = await call("/api/admin/payout-summary", { cookie: admin });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      totalRevenue: 0,
      platformCommission: 0,
      totalPayouts: 0,
      creatorCount: 0,
      pendingPayouts: 0,
    });
  });
});

describe("rate limits", () => {
  it("an address gets ten feedback posts a minute, then 429 with Retry-After; others are unaffected", async () => {
    const post = (ip: string) =>
      call("/api/feedback", {
        method: "POST",
        // Each post with a passed bot check (Turnstile's test token): this is the route's own limit.
        headers: {
          "content-type": "application/json",
          "cf-connecting-ip": ip,
          "cf-turnstile-response": "XXXX.DUMMY.TOKEN.XXXX",
        },
        body: JSON.stringify({ type: "general", subject: "Hi", message: "Hello" }),
      });
    for (let i = 0; i < 10; i++) expect((await post("203.0.113.7")).status).toBe(201);
    const limited = await post("203.0.113.7");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect((await limited.json<{ message: string }>()).message).toContain("Too many requests");
    expect((await post("198.51.100.9")).status).toBe(201);
  });
});

describe("CSRF", () => {
  it("refuses a cross-site form post", async () => {
    const form = new FormData();
    form.append("type", "bug");
    const res = await call("/api/feedback", {
      method: "POST",
      body: form,
      headers: { origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
  });
});

describe("unknown API paths", () => {
  it("answer 404 with a message", async () => {
    const res = await call("/api/nope");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Not found" });
  });
});
