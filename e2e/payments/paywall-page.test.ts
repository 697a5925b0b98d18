// The paywall is finished in the HTML: readable with JavaScript off, and with it on, one small script
// brings it to life without moving anything or logging an error. (The flows that run through the
// paywall, owners, payment returns and previews are in access, buying, content and funnels tests.)
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, checkoutOpened, clientAddress, consoleErrors, launch, newPage } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("the paywall page with JavaScript off", () => {
  it("shows the title, creator, price and 'Unlock', and the tip field of a pay-what-you-want item", async () => {
    const context = await browser.newContext({
      baseURL: baseUrl(),
      javaScriptEnabled: false,
      extraHTTPHeaders: clientAddress(),
    });
    const page = await context.newPage();
    await page.goto("/p/demoFieldGuide01");
    expect(await page.getByRole("heading", { name: "The Ape Field Guide" }).isVisible()).toBe(true);
    expect(await page.getByText("by Demo").isVisible()).toBe(true);
    expect(await page.getByTestId("paywall-price").textContent()).toBe("$5.00");
    expect(await page.getByRole("button", { name: "Unlock" }).isVisible()).toBe(true);

    await page.goto("/paywall/demoJungleLink01");
    expect(await page.getByRole("heading", { name: "Jungle Beats Playlist" }).isVisible()).toBe(true);
    expect(await page.getByLabel("Name your price").isVisible()).toBe(true);
    expect(await page.getByText("Minimum $3.00. Pay more to support the creator.").isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: "Unlock" }).isVisible()).toBe(true);

    // The page's unfilled shell is the Worker's to read, not a page of its own.
    for (const path of ["/paywall-shell", "/paywall-shell.html"])
      expect((await fetch(`${baseUrl()}${path}`)).status).toBe(404);

    const missing = await page.goto("/p/notAnItem123");
    expect(missing?.status()).toBe(404);
    expect(await page.getByRole("heading", { name: "Content Not Found" }).isVisible()).toBe(true);
    await context.close();
  });
});

describe("the paywall page with JavaScript on", () => {
  it("loads one script before 'Unlock', shifts nothing, logs no error, and still checks the tip and starts checkout", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    const requests: string[] = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    await page.goto("/p/demoJungleLink01");
    await page.getByRole("button", { name: "Unlock" }).waitFor();
    await page.waitForLoadState("networkidle");
    const scripts = requests.filter((p) => p.endsWith(".js"));
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(/^\/assets\/paywall-[\w-]+\.js$/);
    expect(requests.filter((p) => p.endsWith(".css"))).toEqual([]);
    // The script reveals 'Lost your access?' in room kept for it: no layout shift at all.
    const shift = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
              if (!entry.hadRecentInput) total += entry.value;
          }).observe({ type: "layout-shift", buffered: true });
          setTimeout(() => resolve(total), 300);
        }),
    );
    expect(shift).toBe(0);
    await page.getByRole("button", { name: "Lost your access?" }).waitFor();
    // On a slow device the script runs after the first paint: the room kept for the button must be
    // exactly its height, or revealing it moves what follows (it was a 24 px line in 20 px of room).
    const room = await page.evaluate(() => {
      const button = document.querySelector<HTMLButtonElement>('[data-part="lost-access"] > button')!;
      const shown = button.parentElement!.getBoundingClientRect().height;
      button.hidden = true;
      const hidden = button.parentElement!.getBoundingClientRect().height;
      button.hidden = false;
      return { shown, hidden };
    });
    expect(room.shown).toBe(room.hidden);

    // Spec §5: below the minimum, the toast; nothing else happens.
    await page.getByLabel("Name your price").fill("1");
    await page.getByRole("button", { name: "Unlock" }).click();
    await page.getByText("Amount too low", { exact: true }).waitFor();
    // In the toast and beside the amount field.
    expect(await page.getByText("Minimum amount is $3.00", { exact: true }).first().isVisible()).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/p/demoJungleLink01");

    // Spec §4: 'Unlock' creates the payment and opens its form right here, no navigation:
    // only the checkout chunk and Stripe.js load.
    await page.getByLabel("Name your price").fill("4.5");
    const loaded: string[] = [];
    page.on("request", (r) => r.resourceType() === "script" && loaded.push(new URL(r.url()).pathname));
    await page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(page);
    expect(new URL(page.url()).pathname).toBe("/p/demoJungleLink01");
    expect(await page.getByTestId("checkout-total").textContent()).toBe("$4.50");
    expect(loaded.filter((s) => s.startsWith("/assets/")).every((s) => /\/assets\/checkout-[\w-]+\.js$/.test(s))).toBe(
      true,
    );
    expect(errors).toEqual([]);
    await context.close();
  });
});
