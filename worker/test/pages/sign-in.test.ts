// /sign-in as the Worker renders it (docs/pages.md): the texts, the providers, `?error=`, the policy,
// never kept by a shared cache; a signed-in visitor goes on; the form posted without JavaScript sends
// the same link as the API, only from this site, and says what went wrong in the page.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SIGN_IN_ERRORS, SIGN_IN_TEXT } from "../../../shared/sign-in";
import { app } from "../../app";
import { TOO_MANY_REQUESTS } from "../../lib/rate-limit";
import { BASE, call, cookieValue, env, outbox, signIn, waitForMail } from "../support/helpers";

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  call("/sign-in", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
  });

/** The page's text as a reader sees it: tags dropped, entities for quotes read back. */
const textOf = async (res: Response) =>
  (await res.text())
    .replace(/<[^>]+>/g, "")
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

describe("GET /sign-in", () => {
  it("is the whole form in the HTML, with the configured providers, its policy and no shared caching", async () => {
    const res = await call("/sign-in?returnTo=%2Fupload");
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(res.headers.get("x-page-cache")).toBeNull();
    const policy = res.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/style-src 'self' 'sha256-/);
    expect(policy).toContain("frame-ancestors 'none'");
    const html = await res.clone().text();
    const text = await textOf(res);
    for (const words of [SIGN_IN_TEXT.title, SIGN_IN_TEXT.lead, SIGN_IN_TEXT.send, SIGN_IN_TEXT.home])
      expect(text).toContain(words);
    expect(html).toContain('action="/sign-in"');
    expect(html).toContain('name="returnTo" value="/upload"');
    // The test settings configure both providers; their links keep the return path.
    expect(html).toContain('href="/api/auth/oauth/google?returnTo=%2Fupload"');
    expect(html).toContain('href="/api/auth/oauth/github?returnTo=%2Fupload"');
    expect(text).toContain(SIGN_IN_TEXT.google);
    expect(text).toContain(SIGN_IN_TEXT.github);
    // The island, from the page's own shell.
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/shell-sign-in-[\w-]+\.js">/);
  });

  it("shows each known ?error= in words and ignores an unknown one", async () => {
    for (const [code, message] of Object.entries(SIGN_IN_ERRORS)) {
      const text = await textOf(await call(`/sign-in?error=${code}`));
      expect(text).toContain(message);
    }
    const res = await call("/sign-in?error=%3Cscript%3Ealert(1)%3C%2Fscript%3E");
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain('role="alert" class="flex gap-2');
  });

  it("answers bad query input with the page, never a 5xx: a foreign or odd returnTo becomes home", async () => {
    for (const query of [
      "returnTo=https%3A%2F%2Fevil.example",
      "returnTo=%2F%2Fevil.example",
      "returnTo=%2F%5Cevil",
      "returnTo=%ZZ",
      `returnTo=%2F${"a".repeat(5000)}`,
      "returnTo=a&returnTo=b&error=x&error=y",
      "error[]=1",
    ]) {
      const res = await call(`/sign-in?${query}`);
      expect(res.status, query).toBe(200);
      expect(await res.text(), query).toContain('name="returnTo" value="/"');
    }
  });

  it("sends a signed-in visitor on to returnTo, as /api/login does", async () => {
    const cookie = await signIn(`signin-page-${crypto.randomUUID()}@example.com`);
    const res = await call("/sign-in?returnTo=%2Fsettings%23developers", { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/settings#developers");
    const home = await call("/sign-in?returnTo=%2F%2Fevil.example", { cookie });
    expect(home.headers.get("location")).toBe("/");
  });
});

describe("POST /sign-in (the form without JavaScript)", () => {
  it("emails the link with the return path and shows 'Check your email' with the address", async () => {
    const email = `signin-form-${crypto.randomUUID()}@example.com`;
    const res = await form({ email: ` ${email.toUpperCase()} `, returnTo: "/upload" });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    // This browser's key, as the API sets it: the link opened here signs in at once.
    const browserKey = cookieValue(res, "aw_login");
    expect(browserKey).toBeTruthy();
    const text = await textOf(res);
    expect(text).toContain(SIGN_IN_TEXT.sentTitle);
    expect(text).toContain(`${SIGN_IN_TEXT.sentBefore}${email}${SIGN_IN_TEXT.sentAfterNoScript}`);
    const mail = await waitForMail(email);
    const link = new URL(mail.links[0]);
    const opened = await call(link.pathname + link.search, { cookie: `aw_login=${browserKey}` });
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe("/upload");
    expect(cookieValue(opened, "aw_session")).toBeTruthy();
  });

  it("a bad address: 400, the page again with the field's message and what was typed; no mail", async () => {
    const before = (await outbox()).length;
    const res = await form({ email: "not-an-address", returnTo: "/upload" });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(SIGN_IN_TEXT.emailInvalid);
    expect(html).toContain('value="not-an-address"');
    expect(html).toContain('aria-invalid="true"');
    expect(html).toContain('name="returnTo" value="/upload"');
    expect((await outbox()).length).toBe(before);
  });

  it("refuses a cross-site post and a forged return path goes home", async () => {
    const email = `signin-cross-${crypto.randomUUID()}@example.com`;
    const cross = await form({ email }, { origin: "https://evil.example" });
    expect(cross.status).toBe(403);
    expect((await outbox()).some((m) => m.to === email)).toBe(false);
    const forged = await form({ email, returnTo: "//evil.example" });
    expect(forged.status).toBe(200);
    expect(await forged.text()).toContain('name="returnTo" value="/"');
  });

  it("a body too large or not a form is answered with the page, never a 5xx", async () => {
    const big = await form({ email: "a@example.com", pad: "x".repeat(40_000) });
    expect(big.status).toBe(413);
    const json = await call("/sign-in", {
      method: "POST",
      headers: { "content-type": "application/json", origin: BASE },
      body: JSON.stringify({ email: "a@example.com" }),
    });
    expect(json.status).toBe(400);
  });
});

describe("POST /sign-in is held to the bot check's strict limit (it carries no token)", () => {
  it("counts against UNVERIFIED_LIMITER by address, and says its 429 in the page; no mail", async () => {
    const keys: string[] = [];
    const refusing = {
      limit: async ({ key }: { key: string }) => {
        keys.push(key);
        return { success: false };
      },
    };
    const email = `signin-limit-${crypto.randomUUID()}@example.com`;
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`${BASE}/sign-in`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: BASE,
          "cf-connecting-ip": "203.0.113.7",
        },
        body: new URLSearchParams({ email, returnTo: "/" }).toString(),
      }),
      { ...(env as object), UNVERIFIED_LIMITER: refusing } as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(429);
    expect(keys).toEqual(["sign-in:203.0.113.7"]);
    const html = await res.text();
    expect(html).toContain(TOO_MANY_REQUESTS);
    expect(html).toContain(`value="${email}"`);
    expect((await outbox()).some((m) => m.to === email)).toBe(false);
  });
});
