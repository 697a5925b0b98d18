// API keys: created on a recent sign-in, shown once, stored hashed, scoped, revocable,
// rate-limited per key, audited; a key never reaches admin, money or key routes.
import { describe, expect, it } from "vitest";
import type { ApiKeySummary, CreatedApiKey, DeveloperOverview } from "../../../shared/developer";
import { sha256Hex } from "../../lib/ids";
import { call, contentForm, env, postJson, row, rows, signIn } from "../support/helpers";

const bearer = (key: string, init: RequestInit = {}) => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${key}` },
});

async function createKey(cookie: string, scopes: string[], name = "CI deploy"): Promise<CreatedApiKey> {
  const res = await postJson("/api/developer/keys", { name, scopes }, cookie);
  if (res.status !== 201) throw new Error(`create key ${res.status}: ${await res.text()}`);
  return res.json<CreatedApiKey>();
}

/** Makes the session behind `cookie` look signed in `minutesAgo` (as if the creator had stayed signed in). */
async function ageSession(cookie: string, minutesAgo: number) {
  const kvKey = `session:${await sha256Hex(cookie.split("=")[1])}`;
  const record = await env.SESSIONS.get<{ userId: string; createdAt: number }>(kvKey, "json");
  await env.SESSIONS.put(kvKey, JSON.stringify({ ...record, createdAt: Date.now() - minutesAgo * 60_000 }));
}

/** A server-side client: no cookie, no Origin, no Sec-Fetch-Site. */
const api = (path: string, key: string, init: RequestInit = {}) =>
  call(path, bearer(key, { ...init, headers: { ...(init.headers as Record<string, string>), origin: "" } }));

describe("creating API keys", () => {
  it("needs a sign-in from the last 10 minutes: an older session is refused with a message to sign in again", async () => {
    const cookie = await signIn("keys-recent@example.com");
    await ageSession(cookie, 11);
    const old = await postJson("/api/developer/keys", { name: "Old session", scopes: ["content:read"] }, cookie);
    expect(old.status).toBe(403);
    expect((await old.json<{ message: string }>()).message).toMatch(/sign in again/i);
    expect(
      await row(
        "select count(*) as n from api_keys where user_id = (select id from users where email = ?)",
        "keys-recent@example.com",
      ),
    ).toMatchObject({ n: 0 });

    const fresh = await signIn("keys-recent@example.com");
    const created = await postJson("/api/developer/keys", { name: "Fresh session", scopes: ["content:read"] }, fresh);
    expect(created.status).toBe(201);
  });

  it("shows the secret once: the list has no secret and the database keeps only its SHA-256", async () => {
    const cookie = await signIn("keys-once@example.com");
    const created = await createKey(cookie, ["content:read", "sales:read"]);
    expect(created.key).toMatch(/^aw_test_[A-Za-z0-9_-]{43}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    expect(created.scopes).toEqual(["content:read", "sales:read"]);

    const list = await call("/api/developer/keys", { cookie });
    const text = await list.text();
    expect(text).not.toContain(created.key);
    const overview = JSON.parse(text) as DeveloperOverview;
    expect(overview.keys).toEqual([
      expect.objectContaining({
        id: created.id,
        name: "CI deploy",
        prefix: created.prefix,
        lastUsedAt: null,
        revokedAt: null,
      }),
    ]);
    expect(overview.keys[0]).not.toHaveProperty("key");
    expect(overview.events.map((e) => e.action)).toEqual(["created"]);

    const stored = await rows<Record<string, unknown>>("select * from api_keys where id = ?", created.id);
    expect(JSON.stringify(stored)).not.toContain(created.key.slice(12));
    expect(stored[0].hash).toBe(await sha256Hex(created.key));
  });

  it("refuses bad input with the field's message and more than 20 active keys", async () => {
    const cookie = await signIn("keys-many@example.com");
    const bad = await postJson("/api/developer/keys", { name: "", scopes: ["content:delete"] }, cookie);
    expect(bad.status).toBe(400);
    expect((await bad.json<{ message: string }>()).message).toMatch(/name/i);
    const none = await postJson("/api/developer/keys", { name: "x", scopes: [] }, cookie);
    expect(none.status).toBe(400);

    await Promise.all(
      Array.from({ length: 22 }, (_, i) =>
        postJson("/api/developer/keys", { name: `k${i}`, scopes: ["content:read"] }, cookie),
      ),
    );
    expect(
      await row(
        "select count(*) as n from api_keys where revoked_at is null and user_id = (select id from users where email = ?)",
        "keys-many@example.com",
      ),
    ).toMatchObject({ n: 20 });
    const over = await postJson("/api/developer/keys", { name: "one more", scopes: ["content:read"] }, cookie);
    expect(over.status).toBe(409);
    expect((await over.json<{ message: string }>()).message).toMatch(/at most 20/);
  });
});

describe("calling the API with a key", () => {
  it("reads content with content:read, and is refused (403 naming the scope) without it", async () => {
    const cookie = await signIn("keys-read@example.com");
    const reader = await createKey(cookie, ["content:read"]);
    const sales = await createKey(cookie, ["sales:read"]);

    const ok = await api("/api/content", reader.key);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual([]);

    const refused = await api("/api/content", sales.key);
    expect(refused.status).toBe(403);
    expect((await refused.json<{ message: string }>()).message).toContain("content:read");
    expect(
      await row("select action, detail from api_key_events where key_id = ? and action = 'used_denied'", sales.id),
    ).toMatchObject({ detail: expect.stringContaining("GET /api/content") });

    expect((await api("/api/creator/sales", sales.key)).status).toBe(200);
  });

  it("writes content with content:write from a server (no Origin), and a read-only key cannot write", async () => {
    const cookie = await signIn("keys-write@example.com");
    const writer = await createKey(cookie, ["content:read", "content:write"]);
    const reader = await createKey(cookie, ["content:read"]);
    const fields = {
      title: "API item",
      description: "Made by a script",
      price: "5",
      pricingModel: "fixed",
      category: "other",
      accessType: "link",
      linkUrl: "https://example.com/file",
    };

    const refused = await api("/api/content", reader.key, { method: "POST", body: contentForm(fields) });
    expect(refused.status).toBe(403);
    expect((await refused.json<{ message: string }>()).message).toContain("content:write");

    const made = await api("/api/content", writer.key, { method: "POST", body: contentForm(fields) });
    expect(made.status).toBe(201);
    const item = await made.json<{ id: string }>();
    expect((await api(`/api/content/${item.id}`, reader.key, { method: "DELETE" })).status).toBe(403);
    expect((await api(`/api/content/${item.id}`, writer.key, { method: "DELETE" })).status).toBe(204);
  });

  it("never reaches admin, money-moving, sign-out or key routes, even with every scope", async () => {
    const admin = await signIn("admin@apewall.test");
    const key = await createKey(admin, [
      "content:read",
      "content:write",
      "sales:read",
      "payouts:read",
      "webhooks:write",
    ]);
    const cases: [string, RequestInit][] = [
      ["/api/admin/payout-summary", {}],
      ["/api/developer/keys", {}],
      [
        "/api/developer/keys",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "minted", scopes: ["content:read"] }),
        },
      ],
      [`/api/developer/keys/${key.id}`, { method: "DELETE" }],
      ["/api/payout/withdraw", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
      [
        "/api/payout/setup",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ payoutMethod: "paypal", payoutEmail: "x@example.com" }),
        },
      ],
      ["/api/create-subscription", { method: "POST" }],
      [
        "/api/profile",
        {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ displayName: "Key", bio: "", supportEmail: "" }),
        },
      ],
      ["/api/logout", { method: "POST" }],
    ];
    for (const [path, init] of cases) {
      const res = await api(path, key.key, init);
      expect(res.status, `${init.method ?? "GET"} ${path}`).toBe(403);
      expect((await res.json<{ message: string }>()).message).toMatch(
        /not available to API keys|cannot manage API keys/,
      );
    }
    expect(
      await row(
        "select count(*) as n from api_keys where user_id = (select user_id from api_keys where id = ?)",
        key.id,
      ),
    ).toMatchObject({ n: 1 });
    expect(await row("select revoked_at from api_keys where id = ?", key.id)).toMatchObject({ revoked_at: null });
  });

  it("a revoked key is 401; revoking twice is one audit row; the key's owner alone can revoke it (404 for others)", async () => {
    const cookie = await signIn("keys-revoke@example.com");
    const other = await signIn("keys-other@example.com");
    const key = await createKey(cookie, ["content:read"]);
    expect((await api("/api/content", key.key)).status).toBe(200);

    const notTheirs = await call(`/api/developer/keys/${key.id}`, { method: "DELETE", cookie: other });
    expect(notTheirs.status).toBe(404);
    expect((await api("/api/content", key.key)).status).toBe(200);

    const revoked = await call(`/api/developer/keys/${key.id}`, { method: "DELETE", cookie });
    expect(revoked.status).toBe(200);
    expect((await revoked.json<ApiKeySummary>()).revokedAt).not.toBeNull();
    expect((await call(`/api/developer/keys/${key.id}`, { method: "DELETE", cookie })).status).toBe(200);

    const after = await api("/api/content", key.key);
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ message: "Invalid or revoked API key" });
    expect(await rows("select action from api_key_events where key_id = ? order by at", key.id)).toEqual([
      { action: "created" },
      { action: "revoked" },
    ]);
    expect((await api("/api/content", "aw_test_not-a-real-key")).status).toBe(401);
  });

  it("a cookie plus a bogus Bearer header is judged by the key alone (401), also cross-site", async () => {
    const cookie = await signIn("keys-csrf@example.com");
    const withCookie = await call("/api/content", { cookie, headers: { authorization: "Bearer aw_test_bogus" } });
    expect(withCookie.status).toBe(401);
    const crossSite = await call("/api/content", {
      method: "POST",
      cookie,
      headers: { authorization: "Bearer aw_test_bogus", origin: "https://evil.example" },
      body: contentForm({ title: "Forged", price: "5", accessType: "link", linkUrl: "https://example.com" }),
    });
    expect(crossSite.status).toBe(401);
    expect(await row("select count(*) as n from content where title = 'Forged'")).toMatchObject({ n: 0 });
    // Without a Bearer header the cookie still counts and the cross-site guard still stands.
    expect((await call("/api/content", { cookie })).status).toBe(200);
    const forged = await call("/api/content", {
      method: "POST",
      cookie,
      headers: { origin: "https://evil.example" },
      body: contentForm({ title: "Forged" }),
    });
    expect(forged.status).toBe(403);
  });

  it("records last use at most once a minute", async () => {
    const cookie = await signIn("keys-used@example.com");
    const key = await createKey(cookie, ["payouts:read"]);
    expect((await api("/api/payout/history", key.key)).status).toBe(200);
    const first = await row<{ last_used_at: number }>("select last_used_at from api_keys where id = ?", key.id);
    expect(first?.last_used_at).toBeGreaterThan(0);
    expect((await api("/api/payout/next", key.key)).status).toBe(200);
    expect(await row("select last_used_at from api_keys where id = ?", key.id)).toEqual(first);

    await env.DB.prepare("update api_keys set last_used_at = ? where id = ?")
      .bind(Date.now() - 61_000, key.id)
      .run();
    expect((await api("/api/payout/next", key.key)).status).toBe(200);
    const moved = await row<{ last_used_at: number }>("select last_used_at from api_keys where id = ?", key.id);
    expect(moved!.last_used_at).toBeGreaterThan(Date.now() - 5_000);
    const listed = await (await call("/api/developer/keys", { cookie })).json<DeveloperOverview>();
    expect(listed.keys[0].lastUsedAt).toBe(new Date(moved!.last_used_at).toISOString());
  });

  it("limits each key to 60 calls a minute: then 429 with Retry-After, other keys unaffected", async () => {
    const cookie = await signIn("keys-limit@example.com");
    const key = await createKey(cookie, ["content:read"]);
    const spare = await createKey(cookie, ["content:read"]);
    // The limiter counts per clock minute: a run that crosses a minute's edge may pass up to 120.
    let ok = 0;
    let limited: Response | undefined;
    while (!limited && ok < 130) {
      const res = await api("/api/content", key.key);
      if (res.status === 429) limited = res;
      else {
        expect(res.status).toBe(200);
        ok++;
      }
    }
    expect(limited?.status).toBe(429);
    expect(ok).toBeGreaterThanOrEqual(60);
    expect(limited!.headers.get("retry-after")).toBe("60");
    expect((await limited!.json<{ message: string }>()).message).toMatch(/Too many requests/);
    expect((await api("/api/content", spare.key)).status).toBe(200);
  });

  it("audits every change a key makes (not its reads), and a refused call at most once a minute per route", async () => {
    const cookie = await signIn("keys-audit@example.com");
    const writer = await createKey(cookie, ["content:read", "content:write"]);
    const fields = {
      title: "Audited item",
      description: "",
      price: "5",
      pricingModel: "fixed",
      category: "other",
      accessType: "link",
      linkUrl: "https://example.com/a",
    };
    const made = await api("/api/content", writer.key, { method: "POST", body: contentForm(fields) });
    expect(made.status).toBe(201);
    const item = await made.json<{ id: string }>();
    expect((await api("/api/content", writer.key)).status).toBe(200);
    expect((await api(`/api/content/${item.id}`, writer.key, { method: "DELETE" })).status).toBe(204);
    // A refused write changes nothing and is not a "used" row.
    expect(
      (
        await api("/api/funnels", writer.key, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        })
      ).status,
    ).toBe(400);
    const used = await rows<{ detail: string }>(
      "select detail from api_key_events where key_id = ? and action = 'used' order by at",
      writer.id,
    );
    expect(used.map((u) => u.detail)).toEqual(["POST /api/content → 201", `DELETE /api/content/${item.id} → 204`]);
    const overview = await (await call("/api/developer/keys", { cookie })).json<DeveloperOverview>();
    expect(overview.events.filter((e) => e.action === "used")).toHaveLength(2);

    // A key hammering a route it may not call: one audit row for the minute, not one per call.
    for (let i = 0; i < 5; i++) expect((await api("/api/payout/history", writer.key)).status).toBe(403);
    const denied = await row<{ n: number }>(
      "select count(*) as n from api_key_events where key_id = ? and action = 'used_denied'",
      writer.id,
    );
    expect(denied?.n).toBeLessThanOrEqual(2); // 1, or 2 when the five calls straddle a minute's edge
  });

  it("limits an address to 600 Bearer calls a minute before any lookup, so made-up keys cannot be tried without end", async () => {
    const from = { "cf-connecting-ip": "203.0.113.77" };
    const made = () => `aw_test_${crypto.randomUUID().replace(/-/g, "")}${"x".repeat(11)}`;
    let unauthorized = 0;
    let limited: Response | undefined;
    for (let batch = 0; batch < 14 && !limited; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, () => api("/api/content", made(), { headers: from })),
      );
      for (const res of answers) {
        if (res.status === 429) limited ??= res;
        else {
          expect(res.status).toBe(401);
          unauthorized++;
        }
      }
    }
    expect(limited?.status).toBe(429);
    expect(unauthorized).toBeGreaterThanOrEqual(600);
    expect(unauthorized).toBeLessThanOrEqual(1200); // the limiter counts per clock minute
    // Another address is not affected.
    expect((await api("/api/content", made(), { headers: { "cf-connecting-ip": "203.0.113.78" } })).status).toBe(401);
  });
});
