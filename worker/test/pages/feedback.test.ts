// /feedback as the Worker renders it (docs/pages.md): the same page for everyone, kept by the edge
// cache; the form posted without JavaScript stores the same row as POST /api/feedback, only from
// this site, and answers a missing field with the spec's words in the page.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { FEEDBACK_TEXT, FEEDBACK_TYPE_LABELS } from "../../../shared/feedback-page";
import { app } from "../../app";
import { TOO_MANY_REQUESTS } from "../../lib/rate-limit";
import { BASE, call, env, row, signIn } from "../support/helpers";

const form = (fields: Record<string, string>, headers: Record<string, string> = {}, cookie?: string) =>
  call("/feedback", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString(),
    cookie,
  });

const textOf = async (res: Response) =>
  (await res.text())
    .replace(/<[^>]+>/g, "")
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&amp;/g, "&");

describe("GET /feedback", () => {
  it("is the whole form in the HTML, kept by the edge cache, with the site's policy", async () => {
    const first = await call("/feedback");
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    const policy = first.headers.get("content-security-policy") ?? "";
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/style-src 'self' 'sha256-/);
    const html = await first.clone().text();
    const text = await textOf(first);
    for (const words of [
      FEEDBACK_TEXT.title,
      FEEDBACK_TEXT.lead,
      FEEDBACK_TEXT.cardTitle,
      FEEDBACK_TEXT.type,
      FEEDBACK_TEXT.priority,
      FEEDBACK_TEXT.subject,
      FEEDBACK_TEXT.message,
      FEEDBACK_TEXT.submit,
      ...Object.values(FEEDBACK_TYPE_LABELS),
    ])
      expect(text).toContain(words);
    expect(html).toContain('action="/feedback"');
    expect(html).toMatch(/<option value="medium" selected/);
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/shell-feedback-[\w-]+\.js">/);

    const second = await call("/feedback");
    expect(second.headers.get("x-page-cache")).toBe("HIT");
    expect(await second.text()).toBe(html);
  });

  it("is the same page signed in (the island fills in the address) and with any query", async () => {
    const cookie = await signIn(`feedback-page-${crypto.randomUUID()}@example.com`);
    const res = await call("/feedback?room=%3Cb%3E&type=bug", { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-page-cache")).toBe("HIT");
    expect(await res.text()).not.toContain("@example.com");
  });
});

describe("POST /feedback (the form without JavaScript)", () => {
  it("stores the message with the signed-in creator and shows the thanks, never cached", async () => {
    const email = `feedback-form-${crypto.randomUUID()}@example.com`;
    const cookie = await signIn(email);
    const subject = `Dark mode ${crypto.randomUUID()}`;
    const res = await form(
      { type: "feature", priority: "high", subject: ` ${subject} `, message: "Please.", email },
      {},
      cookie,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    const text = await textOf(res);
    expect(text).toContain(FEEDBACK_TEXT.thanks);
    expect(text).toContain(FEEDBACK_TEXT.thanksLead);
    const stored = await row<{ type: string; priority: string; email: string; user_id: string | null }>(
      "SELECT type, priority, email, user_id FROM feedback WHERE subject = ?",
      subject,
    );
    expect(stored).toMatchObject({ type: "feature", priority: "high", email });
    expect(stored?.user_id).toBeTruthy();
  });

  it("missing fields: 400, the spec's words, each field's message, what was typed kept; nothing stored", async () => {
    const subject = `Half ${crypto.randomUUID()}`;
    const res = await form({ type: "", priority: "low", subject, message: " ", email: "" });
    expect(res.status).toBe(400);
    const html = await res.clone().text();
    const text = await textOf(res);
    expect(text).toContain(FEEDBACK_TEXT.missingTitle);
    expect(text).toContain(FEEDBACK_TEXT.missing);
    expect(text).toContain("Type is required");
    expect(text).toContain("Message is required");
    expect(html).toContain(`value="${subject}"`);
    expect(html).toMatch(/<option value="low" selected/);
    expect(await row("SELECT id FROM feedback WHERE subject = ?", subject)).toBeNull();
  });

  it("refuses a cross-site post, a wrong type and a bad address, never with a 5xx", async () => {
    const subject = `Cross ${crypto.randomUUID()}`;
    const fields = { type: "bug", subject, message: "m" };
    expect((await form(fields, { origin: "https://evil.example" })).status).toBe(403);
    expect(await row("SELECT id FROM feedback WHERE subject = ?", subject)).toBeNull();
    const wrongType = await form({ ...fields, type: "praise" });
    expect(wrongType.status).toBe(400);
    expect(await wrongType.text()).toContain("Type must be one of bug, feature, improvement, general");
    const badEmail = await form({ ...fields, email: "nope" });
    expect(badEmail.status).toBe(400);
    expect(await textOf(badEmail)).toContain("Enter a valid email address");
    expect((await form({ ...fields, pad: "x".repeat(40_000) })).status).toBe(413);
    expect(await row("SELECT id FROM feedback WHERE subject = ?", subject)).toBeNull();
  });
});

describe("POST /feedback is held to the bot check's strict limit (it carries no token)", () => {
  it("counts against UNVERIFIED_LIMITER by address, and says its 429 in the page; nothing stored", async () => {
    const keys: string[] = [];
    const refusing = {
      limit: async ({ key }: { key: string }) => {
        keys.push(key);
        return { success: false };
      },
    };
    const subject = `Limited ${crypto.randomUUID()}`;
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`${BASE}/feedback`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: BASE,
          "cf-connecting-ip": "203.0.113.8",
        },
        body: new URLSearchParams({ type: "bug", subject, message: "m" }).toString(),
      }),
      { ...(env as object), UNVERIFIED_LIMITER: refusing } as never,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(429);
    expect(keys).toEqual(["feedback:203.0.113.8"]);
    expect(await res.text()).toContain(TOO_MANY_REQUESTS);
    expect(await row("SELECT id FROM feedback WHERE subject = ?", subject)).toBeNull();
  });
});
