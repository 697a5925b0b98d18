// /sign-in in Chromium (docs/pages.md): readable and usable with JavaScript off (the form posts, the
// emailed link signs in); with it on, the island sends the link with the bot check, waits on "Check
// your email" and continues by itself to returnTo once the link is opened in another tab; `?error=`
// in words; the bot check's refusal under the form; at 1280 and 390 px, no console error.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HUMAN_CHECK_REFUSED } from "../../shared/human-check";
import { SIGN_IN_ERRORS, SIGN_IN_TEXT as T } from "../../shared/sign-in";
import {
  baseUrl,
  clientAddress,
  consoleErrors,
  launch,
  mailCount,
  mailedLink,
  newPage,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

const SUBJECT = "Your ApeWall sign-in link";
const WIDTHS = [1280, 390] as const;
let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);
const sized = async (width: number) => {
  const { page, context } = await newPage(browser);
  await page.setViewportSize({ width, height: 860 });
  return { page, context };
};

describe("JavaScript off", () => {
  it("shows every text, posts the form, and the emailed link signs in to returnTo", async () => {
    const context = await browser.newContext({
      baseURL: baseUrl(),
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
      extraHTTPHeaders: clientAddress(),
    });
    const page = await context.newPage();
    await page.goto("/sign-in?returnTo=%2Fupload&error=link-invalid");
    for (const words of [T.title, T.lead, T.emailLabel, T.send, T.home, SIGN_IN_ERRORS["link-invalid"]])
      expect(await page.getByText(words, { exact: true }).isVisible(), words).toBe(true);
    // No provider is configured for the browser tests: no buttons for them.
    expect(await page.getByText(T.google).count()).toBe(0);
    expect(await noSideScroll(page)).toBe(true);
    await page.screenshot({ path: screenshotPath("signin-nojs-error-390"), fullPage: true });

    const email = uniqueEmail("signin-nojs");
    const seen = await mailCount(email, SUBJECT);
    await page.getByLabel("Email").fill("not-an-address");
    await page.getByRole("button", { name: T.send }).click();
    await page.getByText(T.emailInvalid).waitFor();
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: T.send }).click();
    await page.getByRole("heading", { name: T.sentTitle }).waitFor();
    expect(await page.getByText(email).isVisible()).toBe(true);
    expect(await page.getByText(T.waiting).isVisible()).toBe(false);
    await page.screenshot({ path: screenshotPath("signin-nojs-sent-390"), fullPage: true });
    await page.goto(await mailedLink(email, seen, SUBJECT));
    expect(new URL(page.url()).pathname).toBe("/upload");
    expect((await context.cookies()).some((c) => c.name === "aw_session")).toBe(true);
    await context.close();
  });
});

describe("JavaScript on", () => {
  it("sends the link, waits, and continues by itself to returnTo when the link is opened in another tab", async () => {
    for (const width of WIDTHS) {
      const { page, context } = await sized(width);
      const errors = consoleErrors(page);
      const email = uniqueEmail(`signin-${width}`);
      const seen = await mailCount(email, SUBJECT);
      await page.goto("/sign-in?returnTo=%2Fsettings");
      await page.screenshot({ path: screenshotPath(`signin-form-${width}`), fullPage: true });
      await page.getByLabel("Email").fill(email);
      const sent = page.waitForRequest((r) => r.url().endsWith("/api/auth/email"));
      await page.getByRole("button", { name: T.send }).click();
      await page.getByRole("heading", { name: T.sentTitle }).waitFor();
      expect((await sent).postDataJSON()).toEqual({ email, returnTo: "/settings" });
      expect(await page.getByText(email).isVisible()).toBe(true);
      expect(await page.getByText(T.waiting).isVisible()).toBe(true);
      expect(await page.getByRole("link", { name: T.devOutboxLink }).isVisible()).toBe(true);
      expect(await noSideScroll(page)).toBe(true);
      await page.screenshot({ path: screenshotPath(`signin-sent-${width}`), fullPage: true });

      const other = await context.newPage();
      await other.goto(await mailedLink(email, seen, SUBJECT));
      await page.waitForURL((url) => url.pathname === "/settings", { timeout: 15_000 });
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it("shows ?error= in words, checks the address before sending, and 'Use a different email' goes back", async () => {
    for (const width of WIDTHS) {
      const { page, context } = await sized(width);
      const errors = consoleErrors(page);
      await page.goto("/sign-in?error=oauth-failed");
      await page.getByText(SIGN_IN_ERRORS["oauth-failed"]).waitFor();
      expect(await page.getByRole("alert").filter({ hasText: SIGN_IN_ERRORS["oauth-failed"] }).count()).toBe(1);
      let requests = 0;
      page.on("request", (r) => void (r.url().endsWith("/api/auth/email") && requests++));
      await page.getByLabel("Email").fill("nobody@");
      await page.getByRole("button", { name: T.send }).click();
      await page.getByText(T.emailInvalid).waitFor();
      expect(await page.getByLabel("Email").getAttribute("aria-invalid")).toBe("true");
      expect(requests).toBe(0);
      expect(await noSideScroll(page)).toBe(true);
      await page.screenshot({ path: screenshotPath(`signin-error-${width}`), fullPage: true });
      await page.getByLabel("Email").fill(uniqueEmail("signin-again"));
      expect(await page.getByText(T.emailInvalid).isVisible()).toBe(false);
      await page.getByRole("button", { name: T.send }).click();
      await page.getByRole("heading", { name: T.sentTitle }).waitFor();
      await page.getByRole("link", { name: T.again }).click();
      await page.getByRole("button", { name: T.send }).waitFor();
      expect(new URL(page.url()).search).toBe("?error=oauth-failed");
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it("a refused bot check is tried once more, then said under the form with the button usable", async () => {
    for (const width of WIDTHS) {
      const { page, context } = await sized(width);
      const tokens: (string | undefined)[] = [];
      await page.route("**/api/auth/email", (route) => {
        tokens.push(route.request().headers()["cf-turnstile-response"]);
        return route.fulfill({ status: 403, json: { message: HUMAN_CHECK_REFUSED } });
      });
      await page.goto("/sign-in");
      await page.getByLabel("Email").fill(uniqueEmail("signin-refused"));
      await page.getByRole("button", { name: T.send }).click();
      await page.getByText(HUMAN_CHECK_REFUSED).waitFor();
      expect(tokens).toHaveLength(2);
      expect(await page.getByRole("button", { name: T.send }).isEnabled()).toBe(true);
      expect(await noSideScroll(page)).toBe(true);
      await page.screenshot({ path: screenshotPath(`signin-refused-${width}`), fullPage: true });
      await context.close();
    }
  });

  it("a signed-in visitor is sent on to returnTo", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("signin-already"));
    await page.goto("/sign-in?returnTo=%2Fsettings");
    expect(new URL(page.url()).pathname).toBe("/settings");
    await context.close();
  });
});
