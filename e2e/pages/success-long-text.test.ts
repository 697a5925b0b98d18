// The success page (docs/pages.md) with a creator's longest unbroken words: a title, a description
// holding a long link, a long file name. On a 390 px phone nothing may push the page sideways,
// and the island moves nothing the Worker drew (no layout shift).
import { randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  baseUrl,
  checkoutOpened,
  consoleErrors,
  launch,
  newPage,
  payWith,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
let itemId: string;
const LONG_LINK = `https://example.com/d?file=${"0123456789abcdef".repeat(10)}`;

beforeAll(async () => {
  browser = await launch();
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail("success-long-seller"));
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: {
      title: `Loops${"X".repeat(90)}`,
      description: `Everything is explained at ${LONG_LINK} before you start.`,
      price: "6",
      category: "music",
      accessType: "download",
      file: { name: `${"tape-loops-".repeat(12)}.zip`, mimeType: "application/zip", buffer: randomBytes(512) },
    },
  });
  expect(res.status()).toBe(201);
  itemId = ((await res.json()) as { id: string }).id;
  await context.close();
});
afterAll(async () => {
  await browser?.close();
});

it("a long title, description link and file name stay inside a 390 px screen", async () => {
  const { page, context } = await newPage(browser);
  const errors = consoleErrors(page);
  await page.setViewportSize({ width: 390, height: 860 });
  await page.goto(`/p/${itemId}`);
  const paywall = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
  expect(paywall[0], "the paywall at 390 px").toBeLessThanOrEqual(paywall[1]);
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto(`/p/${itemId}`);
  await page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(page);
  await payWith(page, "4242 4242 4242 4242", uniqueEmail("success-long-buyer"));
  await page.waitForURL(/\/success\?/);
  await page.getByRole("heading", { name: "Payment Successful!" }).waitFor();
  await page.waitForURL(/access=/);
  // The island never moves what the Worker drew.
  await page.addInitScript(() => {
    const w = window as unknown as { shift: number };
    w.shift = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
        if (!e.hadRecentInput) w.shift += e.value;
    }).observe({ type: "layout-shift", buffered: true });
  });
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 860 });
    await page.reload();
    await page.getByText(LONG_LINK).waitFor();
    await page.waitForLoadState("networkidle");
    const shift = await page.evaluate(() => (window as unknown as { shift: number }).shift);
    expect(shift, `layout shift at ${width} px`).toBe(0);
    const widths = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
    expect(widths[0], `at ${width} px`).toBeLessThanOrEqual(widths[1]);
  }
  await page.setViewportSize({ width: 390, height: 860 });
  await page.screenshot({ path: screenshotPath("review-pages-success-long-390"), fullPage: true });
  expect(errors).toEqual([]);
  await context.close();
});
