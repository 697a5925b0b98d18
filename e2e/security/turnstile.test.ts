// Bot protection in a real browser (docs/security.md, "Bot protection"): the Turnstile stand-in's
// invisible test key passes without a puzzle; a blocked script or check chunk still lets the buyer
// start checkout; a stale token is never sent; a failing secret (a second app server) is retried once,
// then shows the message and leaves 'Unlock' usable; the rate limit says so in its own words.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { HUMAN_CHECK_REFUSED } from "../../shared/human-check";
import { prepareData, startTestStack } from "../../dev/local-app.mjs";
import {
  baseUrl,
  checkoutOpened,
  clientAddress,
  consoleErrors,
  launch,
  newPage,
  payWith,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

const TOKEN = "XXXX.DUMMY.TOKEN.XXXX";
const FAIL_SECRET = "2x0000000000000000000000000000000AA";
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let itemId: string;

beforeAll(async () => {
  browser = await launch();
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail("turnstile-seller"));
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: {
      title: "Field Notes",
      price: "7",
      category: "other",
      accessType: "link",
      linkUrl: "https://example.com/n",
    },
  });
  expect(res.status()).toBe(201);
  itemId = (await res.json()).id;
  await context.close();
});
afterAll(async () => {
  await browser?.close();
});

/** The bot-check header of the next checkout start this page sends. */
const nextCheckoutStart = (page: Page) =>
  page
    .waitForRequest((r: Request) => r.url().endsWith("/api/create-payment-intent") && r.method() === "POST")
    .then((r) => r.headers()["cf-turnstile-response"]);

const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);

describe("the passing test key", () => {
  it("a buyer pays without seeing a puzzle, at 1280 and 390 px", async () => {
    for (const viewport of [null, PHONE]) {
      const { page, context } = await newPage(browser);
      if (viewport) await page.setViewportSize(viewport);
      const errors = consoleErrors(page);
      await page.goto(`/p/${itemId}`);
      const sent = nextCheckoutStart(page);
      await page.getByRole("button", { name: "Unlock" }).click();
      expect(await sent).toBe(TOKEN);
      await checkoutOpened(page);
      // The widget stayed out of sight: no click asked for, no room taken.
      expect(await page.getByText("Verify you are human").count()).toBe(0);
      expect(await page.getByTestId("human-check").evaluate((el) => el.getBoundingClientRect().height)).toBe(0);
      expect(await noSideScroll(page)).toBe(true);
      await page.screenshot({ path: screenshotPath(`turnstile-checkout-${viewport ? 390 : 1280}`), fullPage: true });
      await payWith(page, "4242 4242 4242 4242", uniqueEmail("turnstile-buyer"));
      await page.waitForURL(/\/success\?/);
      await page.getByText("Payment Successful!").waitFor();
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it("the sign-in form sends its link with the check passed", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/sign-in");
    await page.getByLabel("Email").fill(uniqueEmail("turnstile-signin"));
    const sent = page
      .waitForRequest((r) => r.url().endsWith("/api/auth/email"))
      .then((r) => r.headers()["cf-turnstile-response"]);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByText("Check your email").waitFor();
    expect(await sent).toBe(TOKEN);
    await context.close();
  });
});

describe("Turnstile's script blocked", () => {
  it("the buyer still starts checkout (the server holds it to the strict limit instead)", async () => {
    const { page, context } = await newPage(browser);
    await context.route(`${inject("turnstileUrl")}/**`, (route) => route.abort());
    await page.goto(`/p/${itemId}`);
    const sent = nextCheckoutStart(page);
    await page.getByRole("button", { name: "Unlock" }).click();
    expect(await sent).toBe("unavailable");
    await checkoutOpened(page);
    await context.close();
  });

  it("the check's own code never arrives: 'Unlock' goes on without a token after 5 s", async () => {
    const { page, context } = await newPage(browser);
    // The chunk's request is held, never answered.
    await context.route("**/assets/human-check-*.js", () => {});
    await page.goto(`/p/${itemId}`);
    const sent = nextCheckoutStart(page);
    const started = Date.now();
    await page.getByRole("button", { name: "Unlock" }).click();
    expect(await sent).toBe("unavailable");
    expect(Date.now() - started).toBeGreaterThanOrEqual(4500);
    await checkoutOpened(page);
    await context.close();
  });

  it("past the strict limit, the toast says what the server said, and 'Unlock' stays usable", async () => {
    const { page, context } = await newPage(browser);
    await context.route(`${inject("turnstileUrl")}/**`, (route) => route.abort());
    await page.goto(`/p/${itemId}`);
    // This address spends its 5 unverified checkout starts of this minute (the limiter's window may
    // turn over meanwhile: until one is refused), just before the press.
    let status = 200;
    for (let i = 0; i < 12 && status === 200; i++) {
      const res = await page.request.post("/api/create-payment-intent", {
        headers: { origin: baseUrl(), "cf-turnstile-response": "unavailable" },
        data: { contentId: itemId, buyerEmail: uniqueEmail("turnstile-limit") },
      });
      status = res.status();
    }
    expect(status).toBe(429);
    const unlock = page.getByRole("button", { name: "Unlock" });
    await unlock.click();
    await page.getByText("Too many requests. Please wait a minute and try again.").waitFor();
    await expect.poll(() => unlock.isEnabled()).toBe(true);
    await context.close();
  });
});

describe("the SPA's reminder checkout", () => {
  it("a refused check is retried once, then says so with 'Try again', which tries again (1280, 390)", async () => {
    for (const viewport of [null, PHONE]) {
      const { page, context } = await newPage(browser);
      if (viewport) await page.setViewportSize(viewport);
      // The server's answers to the reminder's checkout start: refused twice, then the rate limit.
      const answers = [
        { status: 403, json: { message: HUMAN_CHECK_REFUSED } },
        { status: 403, json: { message: HUMAN_CHECK_REFUSED } },
        { status: 429, json: { message: "Too many requests. Please wait a minute and try again." } },
      ];
      const tokens: (string | undefined)[] = [];
      await page.route("**/api/create-payment-intent", (route) => {
        tokens.push(route.request().headers()["cf-turnstile-response"]);
        return route.fulfill(answers[Math.min(tokens.length - 1, answers.length - 1)]);
      });
      await page.goto(`/checkout/${itemId}?recover=reminder-token`);
      await page.getByText(HUMAN_CHECK_REFUSED).waitFor();
      expect(tokens).toEqual([TOKEN, TOKEN]);
      const again = page.getByRole("button", { name: "Try again" });
      expect(await noSideScroll(page)).toBe(true);
      await page.screenshot({ path: screenshotPath(`turnstile-reminder-refused-${viewport ? 390 : 1280}`) });
      await again.click();
      await page.getByText("Too many requests. Please wait a minute and try again.").waitFor();
      expect(tokens).toEqual([TOKEN, TOKEN, TOKEN]);
      expect(await again.isVisible()).toBe(true);
      await context.close();
    }
  });
});

describe("a token left too long", () => {
  it("a page left open past the token's life (no expired-callback heard) sends a fresh token", async () => {
    const { page, context } = await newPage(browser);
    await page.clock.install();
    await page.goto(`/p/${itemId}`);
    // Heading for the form draws the widget; its token arrives.
    await page.getByRole("button", { name: "Unlock" }).hover();
    await page.waitForFunction(() => !!(window as { turnstile?: { getResponse(): unknown } }).turnstile?.getResponse());
    await page.evaluate(() => {
      const w = window as unknown as { turnstile: { reset(id: string): void }; resets: number };
      const reset = w.turnstile.reset;
      w.resets = 0;
      w.turnstile.reset = (id) => {
        w.resets++;
        reset(id);
      };
    });
    // 280 s later by the page's clock, without any timer firing (a laptop's lid closed and opened).
    await page.clock.setSystemTime(Date.now() + 280_000);
    const sent = nextCheckoutStart(page);
    await page.getByRole("button", { name: "Unlock" }).click();
    expect(await sent).toBe(TOKEN);
    // Reset once for the stale token (a fresh one was waited for), once after the fresh one was used.
    expect(await page.evaluate(() => (window as unknown as { resets: number }).resets)).toBe(2);
    await context.close();
  });
});

/** The page is given another of Cloudflare's test sitekeys (the server's secret still passes the token). */
const withSitekey = (page: Page, siteKey: string) =>
  page.route("**/api/human-check", (route) =>
    route.fulfill({ json: { siteKey, scriptUrl: `${inject("turnstileUrl")}/turnstile/v0/api.js` } }),
  );

describe("other test sitekeys", () => {
  it("when Turnstile asks for a click (3x…FF), the widget shows by the button and checkout starts after it", async () => {
    const { page, context } = await newPage(browser);
    await page.setViewportSize(PHONE);
    await withSitekey(page, "3x00000000000000000000FF");
    await page.goto(`/p/${itemId}`);
    const sent = nextCheckoutStart(page);
    await page.getByRole("button", { name: "Unlock" }).click();
    const ask = page.getByLabel("Verify you are human");
    await ask.waitFor();
    expect(await noSideScroll(page)).toBe(true);
    await page.screenshot({ path: screenshotPath("turnstile-interactive-390"), fullPage: true });
    // The visitor takes longer than the usual 5 s wait; the token comes after the click, in its own callback.
    await page.waitForTimeout(5500);
    await ask.click();
    expect(await sent).toBe(TOKEN);
    await checkoutOpened(page);
    await context.close();
  });

  it("a widget that fails (2x…BB) sends 'unavailable' and checkout starts", async () => {
    const { page, context } = await newPage(browser);
    await withSitekey(page, "2x00000000000000000000BB");
    await page.goto(`/p/${itemId}`);
    const sent = nextCheckoutStart(page);
    await page.getByRole("button", { name: "Unlock" }).click();
    expect(await sent).toBe("unavailable");
    await checkoutOpened(page);
    await context.close();
  });
});

describe("a secret that always fails", () => {
  let stack: Awaited<ReturnType<typeof startTestStack>>;
  let state: string;
  beforeAll(async () => {
    state = mkdtempSync(join(tmpdir(), "apewall-e2e-turnstile-"));
    prepareData(state);
    stack = await startTestStack({
      port: 9400 + Math.floor(Math.random() * 500),
      persistTo: state,
      label: "e2e-turnstile",
      vars: { TURNSTILE_SECRET_KEY: FAIL_SECRET },
    });
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
    if (state) rmSync(state, { recursive: true, force: true });
  });

  it("the buyer sees the message, 'Unlock' works again and sends a fresh token; the sign-in and feedback forms say so too", async () => {
    for (const viewport of [{ width: 1280, height: 860 }, PHONE]) {
      const context = await browser.newContext({ baseURL: stack.url, viewport, extraHTTPHeaders: clientAddress() });
      const page = await context.newPage();
      // The demo item of the seeded data.
      await page.goto("/p/demoFieldGuide01");
      const unlock = page.getByRole("button", { name: "Unlock" });
      const tokens: (string | undefined)[] = [];
      page.on("request", (r) => {
        if (r.url().endsWith("/api/create-payment-intent")) tokens.push(r.headers()["cf-turnstile-response"]);
      });
      for (let attempt = 0; attempt < 2; attempt++) {
        await unlock.click();
        await page.getByText(HUMAN_CHECK_REFUSED).first().waitFor();
        await expect.poll(() => unlock.isEnabled()).toBe(true);
        // Each press: the refused token, then once more with a fresh one, then the message.
        expect(tokens).toEqual(Array(2 * (attempt + 1)).fill(TOKEN));
      }
      expect(await page.getByTestId("one-page-checkout").count()).toBe(0);
      expect(await noSideScroll(page)).toBe(true);
      await page.screenshot({ path: screenshotPath(`turnstile-refused-${viewport.width}`), fullPage: true });

      await page.goto("/sign-in");
      await page.getByLabel("Email").fill(uniqueEmail("turnstile-refused"));
      await page.getByRole("button", { name: "Email me a sign-in link" }).click();
      await page.getByText(HUMAN_CHECK_REFUSED).waitFor();
      expect(await page.getByRole("button", { name: "Email me a sign-in link" }).isEnabled()).toBe(true);

      await page.goto("/feedback");
      // A native select since the page is the Worker's (docs/pages.md).
      await page.getByLabel("Type").selectOption({ label: "Bug report" });
      await page.getByLabel("Subject *").fill("Checkout");
      await page.getByLabel("Message *").fill("It said no.");
      await page.getByRole("button", { name: "Submit Feedback" }).click();
      await page.getByText(HUMAN_CHECK_REFUSED).waitFor();
      expect(await page.getByRole("button", { name: "Submit Feedback" }).isEnabled()).toBe(true);
      if (viewport === PHONE) await page.screenshot({ path: screenshotPath("turnstile-feedback-refused-390") });
      await context.close();
    }
  });
});
