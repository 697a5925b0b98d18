// The landing the Worker renders (docs/pages.md): the spec's texts in the HTML, the policy, the edge
// cache, and `/` for a visitor with a valid session (the SPA) or without (the landing).
import { describe, expect, it } from "vitest";
import { DROP_ZONE_TEXT, LANDING_FEATURES, LANDING_TEXT } from "../../../shared/landing";
import { call, signIn } from "../support/helpers";

/** The HTML as a browser reads it: entities decoded, so texts compare word for word. */
const text = async (res: Response) =>
  (await res.text())
    .replace(/&amp;/g, "&")
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');

async function untilCached(path: string, cookie?: string): Promise<Response> {
  for (let i = 0; i < 10; i++) {
    const res = await call(path, { cookie });
    if (res.headers.get("x-page-cache") === "HIT") return res;
    await res.text();
  }
  throw new Error(`${path} never came from the cache`);
}

describe("the landing", () => {
  it("has every spec text of the signed-out landing, a strict policy, and comes from the cache the second time", async () => {
    const res = await call("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toMatch(/style-src 'self' 'sha256-/);
    expect(csp).not.toContain("unsafe-inline");
    expect(res.headers.get("cache-control")).toBe("public, max-age=0, must-revalidate");
    const html = await text(res);
    for (const words of [
      "View Pricing",
      "Sign In",
      DROP_ZONE_TEXT.title,
      DROP_ZONE_TEXT.hint,
      "Maximum file size: 5 GB",
      "Images",
      "Videos",
      "Documents",
      DROP_ZONE_TEXT.apeIt,
      LANDING_TEXT.linkTitle,
      LANDING_TEXT.linkPlaceholder,
      LANDING_TEXT.textTitle,
      LANDING_TEXT.create,
      ...LANDING_FEATURES.map((f) => f.title),
    ]) {
      expect(html, words).toContain(words);
    }
    expect(html).toMatch(/<textarea rows="3"/);
    expect(html).toContain('href="/feedback"');
    expect(html).toContain('href="/api/login"');
    // No React and no app bundle: the landing's own island only.
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/shell-landing-[\w-]+\.js">/);
    expect(html).not.toContain('id="root"');

    const again = await untilCached("/");
    expect(await text(again)).toBe(html);
  });

  it("/dashboard signed out is the same landing; a stale or forged cookie gets it too", async () => {
    const dashboard = await call("/dashboard");
    expect(dashboard.status).toBe(200);
    expect(await text(dashboard)).toContain(DROP_ZONE_TEXT.title);
    const forged = await call("/", { cookie: "aw_session=not-a-session" });
    expect(forged.status).toBe(200);
    expect(await text(forged)).toContain(DROP_ZONE_TEXT.title);
    const huge = await call("/dashboard?x=%ZZ", { cookie: `aw_session=${"a".repeat(500)}` });
    expect(huge.status).toBe(200);
    expect(await text(huge)).toContain(DROP_ZONE_TEXT.title);
  });

  it("a signed-in creator gets the SPA at / and /dashboard, never the cached landing", async () => {
    await untilCached("/");
    const cookie = await signIn("landing-creator@example.com");
    for (const path of ["/", "/dashboard"]) {
      const res = await call(path, { cookie });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(res.headers.get("x-page-cache")).toBeNull();
      const html = await res.text();
      expect(html).toContain('id="root"');
      expect(html).not.toContain(DROP_ZONE_TEXT.title);
    }
    // HEAD as GET, without a body.
    const head = await call("/", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });
});
