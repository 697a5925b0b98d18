import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi, afterEach } from "vitest";
import worker from "../../index";
import { call, cookieValue, env, outbox, postJson, requestLink, signIn } from "../support/helpers";

afterEach(() => vi.restoreAllMocks());

describe("sign-in by emailed link", () => {
  it("mails a one-time link that opens a session with safe cookie flags", async () => {
    const { link, loginCookie, mail } = await requestLink("Creator@Example.com", "/upload");
    expect(mail.subject).toContain("sign-in link");
    expect(mail.html).toContain("Sign in");
    expect(link.origin).toBe("http://127.0.0.1:8787");

    const callback = await call(link.pathname + link.search, { cookie: loginCookie });
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe("/upload");
    const setCookie = callback.headers.getSetCookie().find((h) => h.startsWith("aw_session="))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    // Plain-http localhost is the one place the cookie may go without Secure.
    expect(setCookie).not.toMatch(/Secure/i);

    const token = cookieValue(callback, "aw_session")!;
    const me = await call("/api/auth/user", { cookie: `aw_session=${token}` });
    expect(me.status).toBe(200);
    const user = await me.json<{ email: string; isAdmin: boolean; payoutEnabled: boolean }>();
    expect(user).toMatchObject({ email: "creator@example.com", isAdmin: false, payoutEnabled: false });

    // KV holds the session under a hash of the token, never the token itself.
    const keys = (await env.SESSIONS.list({ prefix: "session:" })).keys.map((k) => k.name);
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.some((k) => k.includes(token))).toBe(false);
  });

  it("marks the cookie Secure on https", async () => {
    const { link, loginCookie } = await requestLink("secure@example.com");
    const { exports } = await import("cloudflare:workers");
    const res = await exports.default.fetch(
      new Request(`https://apewall.example.com${link.pathname}${link.search}`, {
        redirect: "manual",
        headers: { cookie: loginCookie },
      }),
    );
    expect(res.status).toBe(302);
    expect(res.headers.getSetCookie().find((h) => h.startsWith("aw_session="))).toMatch(/Secure/i);
  });

  it("refuses a link used twice", async () => {
    const { link, loginCookie } = await requestLink("twice@example.com");
    const first = await call(link.pathname + link.search, { cookie: loginCookie });
    expect(cookieValue(first, "aw_session")).toBeTruthy();
    const second = await call(link.pathname + link.search, { cookie: loginCookie });
    expect(second.status).toBe(302);
    expect(second.headers.get("location")).toBe("/sign-in?error=link-invalid");
    expect(cookieValue(second, "aw_session")).toBeUndefined();
  });

  it("refuses concurrent uses of one link but one", async () => {
    const { link, loginCookie } = await requestLink("race@example.com");
    const results = await Promise.all(
      Array.from({ length: 5 }, () => call(link.pathname + link.search, { cookie: loginCookie })),
    );
    expect(results.filter((r) => cookieValue(r, "aw_session")).length).toBe(1);
  });

  it("refuses an expired link", async () => {
    const { link, loginCookie } = await requestLink("late@example.com");
    await env.DB.prepare("update login_tokens set expires_at = ? where email = ?")
      .bind(Date.now() - 1000, "late@example.com")
      .run();
    const res = await call(link.pathname + link.search, { cookie: loginCookie });
    expect(res.headers.get("location")).toBe("/sign-in?error=link-invalid");
    expect(cookieValue(res, "aw_session")).toBeUndefined();
  });

  it("a link opened in another browser asks to confirm, and a GET uses nothing up", async () => {
    const { link } = await requestLink("elsewhere@example.com", "/funnels");
    for (let i = 0; i < 2; i++) {
      // A mail scanner or another device fetching the link: a confirm page, no session, token intact.
      const page = await call(link.pathname + link.search);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("Continue as <strong>elsewhere@example.com</strong>");
      expect(html).toContain('<form method="post" action="/api/auth/email/callback">');
      expect(cookieValue(page, "aw_session")).toBeUndefined();
    }
    const token = link.searchParams.get("token")!;
    const crossSite = await call("/api/auth/email/callback", {
      method: "POST",
      body: new URLSearchParams({ token }),
      headers: { origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    const confirmed = await call("/api/auth/email/callback", { method: "POST", body: new URLSearchParams({ token }) });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")).toBe("/funnels");
    expect(cookieValue(confirmed, "aw_session")).toBeTruthy();
    expect((await call(link.pathname + link.search)).headers.get("location")).toBe("/sign-in?error=link-invalid");
  });

  it("refuses a made-up token", async () => {
    const res = await call("/api/auth/email/callback?token=not-a-real-token");
    expect(res.headers.get("location")).toBe("/sign-in?error=link-invalid");
  });

  it("validates the email and writes nothing on bad input", async () => {
    const res = await postJson("/api/auth/email", { email: "not-an-email" });
    expect(res.status).toBe(400);
    expect((await res.json<{ message: string }>()).message).toMatch(/email/);
    const rows = await env.DB.prepare("select count(*) as n from login_tokens").first<{ n: number }>();
    const mails = await outbox();
    expect(mails.some((m) => m.to === "not-an-email")).toBe(false);
    expect(rows?.n).toBeGreaterThanOrEqual(0);
  });

  it("limits how many links one mailbox gets", async () => {
    for (let i = 0; i < 7; i++)
      expect((await postJson("/api/auth/email", { email: "flood@example.com" })).status).toBe(202);
    const rows = await env.DB.prepare("select count(*) as n from login_tokens where email = ?")
      .bind("flood@example.com")
      .first<{ n: number }>();
    expect(rows?.n).toBe(5);
  });

  it("keeps a return path that is not on this site out of the link", async () => {
    for (const bad of ["https://evil.example/", "//evil.example/x", "/\\evil.example"]) {
      const res = await postJson("/api/auth/email", { email: "redirect@example.com", returnTo: bad });
      expect(res.status).toBe(400);
    }
  });
});

describe("/api/login and /api/logout", () => {
  it("sends a signed-out visitor to the sign-in screen with a same-site return path", async () => {
    const res = await call("/api/login", { headers: { referer: "http://127.0.0.1:8787/pricing" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/sign-in?returnTo=%2Fpricing");
  });

  it("refuses open-redirect attempts at the door, and ignores a foreign Referer", async () => {
    for (const returnTo of ["https://evil.example", "//evil.example", "/\\evil.example", "javascript:alert(1)"]) {
      const res = await call(`/api/login?returnTo=${encodeURIComponent(returnTo)}`, {
        headers: { referer: "https://evil.example/page" },
      });
      expect(res.status).toBe(400);
    }
    const res = await call("/api/login", { headers: { referer: "https://evil.example/page" } });
    expect(res.headers.get("location")).toBe("/sign-in?returnTo=%2F");
  });

  it("sends a signed-in user straight back", async () => {
    const cookie = await signIn("back@example.com");
    const res = await call("/api/login?returnTo=/upload", { cookie });
    expect(res.headers.get("location")).toBe("/upload");
  });

  it("logs out: the session is deleted and the cookie cleared", async () => {
    const cookie = await signIn("bye@example.com");
    expect((await call("/api/auth/user", { cookie })).status).toBe(200);
    const res = await call("/api/logout", { method: "POST", cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    expect(res.headers.getSetCookie().find((h) => h.startsWith("aw_session="))).toMatch(/Max-Age=0/i);
    expect((await call("/api/auth/user", { cookie })).status).toBe(401);
  });

  it("answers 401 with Unauthorized when signed out", async () => {
    const res = await call("/api/auth/user");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: "Unauthorized" });
  });

  it("gives a new session at every sign-in", async () => {
    const a = await signIn("again@example.com");
    const b = await signIn("again@example.com");
    expect(a).not.toBe(b);
    expect((await call("/api/auth/user", { cookie: a })).status).toBe(200);
    expect((await call("/api/auth/user", { cookie: b })).status).toBe(200);
  });
});

describe("OAuth", () => {
  it("lists the configured providers", async () => {
    expect(await (await call("/api/auth/providers")).json()).toEqual({
      email: true,
      google: true,
      github: true,
      devOutbox: true,
    });
  });

  async function startGithub() {
    const start = await call("/api/auth/oauth/github?returnTo=/funnels");
    expect(start.status).toBe(302);
    const location = new URL(start.headers.get("location")!);
    expect(location.origin).toBe("https://github.com");
    const state = location.searchParams.get("state")!;
    const cookies = start.headers
      .getSetCookie()
      .map((h) => h.split(";")[0])
      .join("; ");
    return { state, cookies };
  }

  function mockGithub(email: { email: string; primary: boolean; verified: boolean }, githubUserId = 4242) {
    return vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.href === "https://github.com/login/oauth/access_token") {
        return Response.json({ access_token: "gho_test", token_type: "bearer", scope: "read:user,user:email" });
      }
      if (url.href === "https://api.github.com/user")
        return Response.json({ id: githubUserId, login: "octo", name: "Octo Cat" });
      if (url.href === "https://api.github.com/user/emails") return Response.json([email]);
      throw new Error(`unexpected fetch ${url}`);
    });
  }

  it("signs in through GitHub's callback and returns to where the user was", async () => {
    const { state, cookies } = await startGithub();
    const fetchSpy = mockGithub({ email: "octo@example.com", primary: true, verified: true });
    const res = await call(`/api/auth/oauth/github/callback?code=abc&state=${state}`, { cookie: cookies });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/funnels");
    expect(fetchSpy).toHaveBeenCalled();
    const session = cookieValue(res, "aw_session");
    const me = await (await call("/api/auth/user", { cookie: `aw_session=${session}` })).json<{
      email: string;
      firstName: string;
    }>();
    expect(me).toMatchObject({ email: "octo@example.com", firstName: "Octo" });
  });

  it("refuses a state that does not match the cookie", async () => {
    const { cookies } = await startGithub();
    const fetchSpy = mockGithub({ email: "octo@example.com", primary: true, verified: true });
    const res = await call(`/api/auth/oauth/github/callback?code=abc&state=forged`, { cookie: cookies });
    expect(res.headers.get("location")).toBe("/sign-in?error=state-mismatch");
    expect(cookieValue(res, "aw_session")).toBeUndefined();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("refuses a callback without the state cookie", async () => {
    const { state } = await startGithub();
    const res = await call(`/api/auth/oauth/github/callback?code=abc&state=${state}`);
    expect(res.headers.get("location")).toBe("/sign-in?error=state-mismatch");
  });

  it("will not sign in by an unverified email", async () => {
    const { state, cookies } = await startGithub();
    mockGithub({ email: "victim@example.com", primary: true, verified: false }, 9999);
    const res = await call(`/api/auth/oauth/github/callback?code=abc&state=${state}`, { cookie: cookies });
    expect(res.headers.get("location")).toBe("/sign-in?error=email-unverified");
    expect(cookieValue(res, "aw_session")).toBeUndefined();
  });

  it("answers 404 for a provider that is not configured", async () => {
    expect((await call("/api/auth/oauth/myspace")).status).toBe(404);
  });
});

// Return paths that are not one same-origin path: a NUL byte (the header then cannot be written),
// a protocol-relative host, a backslash (browsers read it as a slash), CR/LF (header splitting),
// a tab inside '//' (URL parsers drop it), a lone surrogate (encodeURIComponent throws).
const BAD_RETURN_PATHS = [
  "/a\u0000b",
  "//evil.com",
  "/\\evil.com",
  "/x\r\nSet-Cookie: a=b",
  "/\t/evil.com",
  "/caf\ud800",
  "/a//evil.com",
];

describe("return paths under bad input", () => {
  it("the sign-in request refuses each bad return path with 400 and stores no link", async () => {
    for (const returnTo of BAD_RETURN_PATHS) {
      const res = await postJson("/api/auth/email", { email: "nul-return@example.com", returnTo });
      expect(res.status, JSON.stringify(returnTo)).toBe(400);
      expect((await res.json<{ message: string }>()).message).toMatch(/returnTo/);
    }
    expect(
      await env.DB.prepare("select count(*) as n from login_tokens where email = ?")
        .bind("nul-return@example.com")
        .first(),
    ).toEqual({ n: 0 });
  });

  it("/api/login and the OAuth start refuse each bad return path with 400", async () => {
    // A lone surrogate cannot be percent-encoded (it is not UTF-8): that case is the JSON request's.
    for (const returnTo of BAD_RETURN_PATHS.filter((p) => !p.includes("\ud800"))) {
      const login = await call(`/api/login?returnTo=${encodeURIComponent(returnTo)}`);
      expect(login.status, JSON.stringify(returnTo)).toBe(400);
      const oauth = await call(`/api/auth/oauth/github?returnTo=${encodeURIComponent(returnTo)}`);
      expect(oauth.status, JSON.stringify(returnTo)).toBe(400);
      expect(oauth.headers.getSetCookie().some((h) => h.startsWith("oauth_return="))).toBe(false);
    }
  });

  it("a link stored with a NUL return path (before this check) signs in and goes home, never 500", async () => {
    const { link, loginCookie } = await requestLink("stored-nul@example.com", "/upload");
    await env.DB.prepare("update login_tokens set return_to = ? where email = ?")
      .bind("/a\u0000b", "stored-nul@example.com")
      .run();
    const res = await call(link.pathname + link.search, { cookie: loginCookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
    expect(cookieValue(res, "aw_session")).toBeTruthy();
  });

  it("an OAuth return cookie with a NUL byte or a foreign host returns home, never 500", async () => {
    const start = await call("/api/auth/oauth/github?returnTo=/funnels");
    const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
    const cookies = start.headers
      .getSetCookie()
      .map((h) => h.split(";")[0])
      .filter((c) => !c.startsWith("oauth_return="));
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.href === "https://github.com/login/oauth/access_token")
        return Response.json({ access_token: "gho_test", token_type: "bearer", scope: "user:email" });
      if (url.href === "https://api.github.com/user") return Response.json({ id: 777, login: "nul", name: "Nul Byte" });
      return Response.json([{ email: "oauth-nul@example.com", primary: true, verified: true }]);
    });
    const res = await call(`/api/auth/oauth/github/callback?code=abc&state=${state}`, {
      cookie: [...cookies, "oauth_return=/a%00b"].join("; "),
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/");
  });
});

describe("the links-per-mailbox limit under concurrency", () => {
  it("20 concurrent sign-in requests for one mailbox store and mail at most 5 links", async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => postJson("/api/auth/email", { email: "burst@example.com" })),
    );
    expect(answers.every((r) => r.status === 202)).toBe(true);
    const stored = await env.DB.prepare("select count(*) as n from login_tokens where email = ?")
      .bind("burst@example.com")
      .first<{ n: number }>();
    expect(stored?.n).toBe(5);
    await vi.waitUntil(async () => (await outbox()).filter((m) => m.to === "burst@example.com").length >= 5, {
      timeout: 10_000,
    });
    await new Promise((r) => setTimeout(r, 1000));
    expect((await outbox()).filter((m) => m.to === "burst@example.com")).toHaveLength(5);
  });

  it("a queue that refuses the sign-in mail: 503 with a message, and the link neither stored nor counted", async () => {
    const refusing = {
      send: async () => Promise.reject(new Error("queue unavailable")),
      sendBatch: async () => Promise.reject(new Error("queue unavailable")),
    };
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("http://127.0.0.1:8787/api/auth/email", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://127.0.0.1:8787" },
        body: JSON.stringify({ email: "queue-down@example.com" }),
      }),
      { ...env, EMAILS: refusing } as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(503);
    expect((await res.json<{ message: string }>()).message).toMatch(/try again/);
    expect(
      await env.DB.prepare("select count(*) as n from login_tokens where email = ?")
        .bind("queue-down@example.com")
        .first(),
    ).toEqual({ n: 0 });
  });
});
