// /pricing as the Worker renders it (docs/pages.md): the spec's texts in the HTML, the policy, one
// page for everyone from the edge cache, odd queries change nothing.
import { describe, expect, it } from "vitest";
import { CREATOR_FEATURES, PRICING_TEXT } from "../../../shared/pricing-page";
import { call, signIn } from "../support/helpers";

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

describe("pricing", () => {
  it("has the plans, the blurbs, the FAQ and the sign-in button, the same for everyone, from the cache the second time", async () => {
    const res = await call("/pricing");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await text(res);
    for (const words of [
      PRICING_TEXT.headline,
      PRICING_TEXT.creator,
      PRICING_TEXT.creatorFee,
      ...CREATOR_FEATURES,
      PRICING_TEXT.proTerms,
      "Start in seconds",
      "Earn more per buyer",
      "Safe for buyers",
      PRICING_TEXT.faq,
      "How much does it cost?",
      "When do I get paid?",
      "What can I sell?",
    ]) {
      expect(html, words).toContain(words);
    }
    expect(html).toMatch(/<a href="\/api\/login"[^>]*>Get Started Free<\/a>/);
    expect(html).toMatch(/<a href="\/subscribe" data-spa[^>]*>Upgrade to Pro<\/a>/);
    const signedIn = await untilCached("/pricing", await signIn("pricing-visitor@example.com"));
    expect(await text(signedIn)).toBe(html);
    // A query changes nothing (4xx never 5xx on bad input; here the one page).
    const odd = await call("/pricing?%ZZ=1&plan=<script>");
    expect(odd.status).toBe(200);
    expect(await text(odd)).toBe(html);
  });
});
