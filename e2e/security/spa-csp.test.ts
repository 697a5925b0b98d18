// The SPA runs under its Content-Security-Policy (worker/routes/spa.ts) with nothing refused: the
// creator's main screens (a select's scroll lock adds a <style> with the page's nonce), the admin's,
// and a buyer's checkout with Stripe.js (here the stand-in's, from STRIPE_JS_URL) through to success.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, checkoutOpened, launch, newPage, payWith, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * Every refusal of the policy on this page (where, which directive, the start of what was refused),
 * and every 5xx answer (assets now pass through the Worker too).
 */
function cspViolations(page: Page): string[] {
  const seen: string[] = [];
  void page.exposeFunction("__reportCsp", (v: string) => void seen.push(v));
  void page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      (window as unknown as { __reportCsp: (v: string) => void }).__reportCsp(
        `${location.pathname}: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${e.sample}`,
      ),
    );
  });
  page.on("response", (r) => void (r.status() >= 500 && seen.push(`${r.status()} ${r.url()}`)));
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) seen.push(`${page.url()}: ${m.text().slice(0, 160)}`);
  });
  return seen;
}

describe("the SPA under its Content-Security-Policy", () => {
  it("the creator's and the admin's screens and a checkout with Stripe.js run with nothing refused", async () => {
    const { page, context } = await newPage(browser);
    const violations = cspViolations(page);
    await signIn(page, uniqueEmail("csp-creator"));
    // An item to buy, published through the API as the upload screen does.
    const res = await page.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: { title: "CSP zine", price: "3", accessType: "link", linkUrl: "https://example.com/zine" },
    });
    expect(res.status()).toBe(201);
    const item = (await res.json()) as { id: string };
    const doc = await page.goto("/");
    expect(doc?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByText("Content & Uploads").waitFor();
    // A select opens with a scroll lock: a <style> element that needs the page's nonce.
    await page.getByRole("button", { name: "Filters" }).click();
    await page.getByRole("combobox", { name: "Sort" }).click();
    await page.getByRole("listbox").waitFor();
    await page.keyboard.press("Escape");
    for (const [path, text] of [
      ["/upload", "Drag & drop your file here, or click to upload"],
      ["/settings", "Payout"],
      ["/funnels", "Funnels"],
      ["/pricing", "Pro"],
      ["/feedback", "Feedback"],
    ]) {
      await page.goto(path);
      await page.getByText(text).first().waitFor();
    }
    await context.close();

    const buyer = await newPage(browser);
    const buyerViolations = cspViolations(buyer.page);
    await buyer.page.goto(`/p/${item.id}`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    await buyer.page.getByLabel("Card number").waitFor();
    await payWith(buyer.page, "4242 4242 4242 4242", uniqueEmail("csp-buyer"));
    await buyer.page.waitForURL(/\/success\?/);
    await buyer.page.getByText("Payment Successful!").waitFor();
    await buyer.context.close();

    const admin = await newPage(browser);
    const adminViolations = cspViolations(admin.page);
    await signIn(admin.page, "admin@apewall.test");
    await admin.page.goto("/admin");
    await admin.page.getByText("Admin Dashboard").waitFor();
    await admin.context.close();

    expect([...violations, ...buyerViolations, ...adminViolations]).toEqual([]);
  });
});
