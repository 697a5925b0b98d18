// The public pages (docs/pages.md) draw once: their islands never move what the Worker drew
// (no layout shift at 1280 or 390 px, signed out and signed in), and nothing pushes them sideways.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { consoleErrors, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** The page's layout shifts from the first paint until it is idle (the island ran, /api/auth/me answered). */
async function shiftsOf(page: Page, path: string): Promise<number> {
  await page.addInitScript(() => {
    (window as unknown as { shift: number }).shift = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
        if (!e.hadRecentInput) (window as unknown as { shift: number }).shift += e.value;
    }).observe({ type: "layout-shift", buffered: true });
  });
  await page.goto(path);
  await page.waitForLoadState("networkidle");
  await page.waitForTimeout(300);
  return page.evaluate(() => (window as unknown as { shift: number }).shift);
}

for (const signedIn of [false, true])
  it(`no layout shift on /sign-in, /feedback and /library (${signedIn ? "a signed-in creator" : "signed out"})`, async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    if (signedIn) await signIn(page, uniqueEmail("layout-shift-creator"));
    for (const width of [1280, 390])
      for (const path of signedIn ? ["/feedback", "/library"] : ["/sign-in", "/feedback", "/library"]) {
        await page.setViewportSize({ width, height: 860 });
        const shift = await shiftsOf(page, path);
        // Exactly none: 'Dashboard' in the 'Sign In' slot moved the nav by a fraction of a pixel.
        expect(shift, `${path} at ${width} px`).toBe(0);
        const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, innerWidth]);
        expect(scroll, `${path} at ${width} px`).toBeLessThanOrEqual(inner);
        if (width === 390 && path === "/feedback")
          await page.screenshot({ path: screenshotPath(`review-pages-topbar-${signedIn ? "in" : "out"}-390`) });
      }
    expect(errors).toEqual([]);
    await context.close();
  });
