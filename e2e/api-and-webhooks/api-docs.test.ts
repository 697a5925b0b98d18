// The API reference at /docs/api renders in a real browser from the generated document,
// with Scalar's script from this origin and no Content-Security-Policy violation; the Developers
// section of /settings links to it.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("the API reference", () => {
  it("shows every tag and the license check from /api/openapi.json, loading nothing from another origin", async () => {
    const { page, context } = await newPage(browser);
    const violations: string[] = [];
    const foreign: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) violations.push(m.text());
    });
    page.on("request", (r) => {
      if (
        !r.url().startsWith(new URL(page.url() === "about:blank" ? "http://127.0.0.1" : page.url()).origin) &&
        !r.url().startsWith("data:")
      )
        foreign.push(r.url());
    });
    await signIn(page, uniqueEmail("api-reader"));
    await page.goto("/settings");
    await page.getByRole("link", { name: "API reference" }).click();
    await page.waitForURL(/\/docs\/api$/);
    await page.getByRole("heading", { name: "ApeWall API", level: 1 }).waitFor({ timeout: 20_000 });
    for (const tag of ["Items", "Checkout and access", "License keys", "Developers"]) {
      await expect(page.getByText(tag, { exact: true }).first().isVisible()).resolves.toBe(true);
    }
    await page.screenshot({ path: screenshotPath("api-docs-1280") });
    await page.getByRole("button", { name: "License keys" }).first().click();
    await page.getByText("Verify a license key").first().waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: screenshotPath("api-docs-390") });
    expect(violations).toEqual([]);
    expect(foreign.filter((u) => !u.includes("127.0.0.1"))).toEqual([]);
    await context.close();
  });
});
