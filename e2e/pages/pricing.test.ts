// /pricing as the Worker renders it (docs/pages.md): complete with JavaScript off; with it on, the
// button to sign in for a signed-out visitor and to the dashboard for a signed-in one, 'Upgrade to
// Pro' into the app's /subscribe. (A Pro creator's card: e2e/security/forms.test.ts.) At 1280 and
// 390 px, no sideways scroll, no console error.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  clientAddress,
  consoleErrors,
  launch,
  newPage,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const SPEC_TEXTS = [
  "Simple, creator-first pricing",
  "Creator",
  "+ 20% platform fee",
  "Unlimited paywalled files, links and text",
  "Monthly payouts from $25",
  "/month · zero commission",
  "Keep 100% of every sale",
  "Start in seconds",
  "Earn more per buyer",
  "Safe for buyers",
  "Frequently asked questions",
  "How much does it cost?",
  "Who pays card processing and dispute fees?",
  "When do I get paid?",
  "Do buyers need an account?",
  "Can I cancel Pro?",
  "What can I sell?",
];

async function bothWidths(page: Page, name: string) {
  for (const [width, height] of [
    [1280, 860],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
      `${name} @${width}`,
    ).toBe(true);
    await page.screenshot({ path: screenshotPath(`${name}-${width}`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe("pricing with JavaScript off", () => {
  it("shows the plans, the blurbs and the FAQ, whose answers open without script", async () => {
    const context = await browser.newContext({
      baseURL: baseUrl(),
      javaScriptEnabled: false,
      extraHTTPHeaders: clientAddress(),
    });
    const page = await context.newPage();
    await page.goto("/pricing");
    for (const text of SPEC_TEXTS) {
      expect(await page.getByText(text, { exact: true }).first().isVisible(), text).toBe(true);
    }
    expect(await page.getByRole("link", { name: "Get Started Free" }).getAttribute("href")).toBe("/api/login");
    expect(await page.getByRole("link", { name: "Upgrade to Pro" }).getAttribute("href")).toBe("/subscribe");
    await page.getByText("When do I get paid?").click();
    await page.getByTestId("payout-schedule").waitFor();
    await bothWidths(page, "pricing-no-js");
    await context.close();
  });
});

describe("pricing with JavaScript on", () => {
  it("signed out: 'Get Started Free' goes to sign-in", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    await page.goto("/pricing");
    // What the island changes for a Pro creator (web/site/pricing.ts) moves nothing: the badge and
    // the renewal line have their room in the HTML.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      const moved = await page.evaluate(() => {
        const at = () =>
          [
            ...document.querySelectorAll(
              '[data-testid="pro-plan-card"] :not([data-part]):not([data-part] *), [data-testid="pro-plan-card"], main > section',
            ),
          ].map((e) => JSON.stringify(e.getBoundingClientRect()));
        const before = at();
        const badge = document.querySelector('[data-part="on-pro"]') as HTMLElement;
        badge.textContent = "You're on Pro";
        badge.hidden = false;
        (document.querySelector('[data-part="renewal"]') as HTMLElement).textContent = "Renews on Dec 27, 2026.";
        (document.querySelector('[data-part="pro-action"]') as HTMLElement).textContent = "Manage subscription";
        const after = at();
        badge.hidden = true;
        (document.querySelector('[data-part="renewal"]') as HTMLElement).textContent = "";
        (document.querySelector('[data-part="pro-action"]') as HTMLElement).textContent = "Upgrade to Pro";
        return before.filter((r, i) => r !== after[i]).length;
      });
      expect(moved, `@${width}`).toBe(0);
    }
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole("link", { name: "Get Started Free" }).click();
    await page.waitForURL(/\/sign-in\?returnTo=/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("signed in: 'Go to Dashboard' and 'Dashboard' go to /, 'Upgrade to Pro' opens the app's /subscribe", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    await signIn(page, uniqueEmail("pricing-creator"));
    await page.goto("/pricing");
    const start = page.getByRole("link", { name: "Go to Dashboard" });
    await start.waitFor();
    expect(await start.getAttribute("href")).toBe("/");
    expect(await page.getByRole("banner").getByRole("link", { name: "Dashboard" }).getAttribute("href")).toBe("/");
    expect(await page.getByRole("link", { name: "Get Started Free" }).count()).toBe(0);
    // Not on Pro: the offer stays, and the renewal line is empty.
    expect(await page.getByTestId("pro-plan-card").getByText("You're on Pro").count()).toBe(0);
    await bothWidths(page, "pricing-signed-in");
    await page.getByRole("link", { name: "Upgrade to Pro" }).click();
    await page.waitForURL(/\/subscribe$/);
    await page.getByText("ApeWall Pro").first().waitFor();
    await page.getByRole("link", { name: "Back to pricing" }).click();
    await page.waitForURL(/\/pricing$/);
    await start.click();
    await page.getByText("Content & Uploads").waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
