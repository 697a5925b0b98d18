// /feedback in Chromium (docs/pages.md): readable and sendable with JavaScript off; with it on, the
// island checks the required fields (spec §5's toast), sends with the bot check and shows the
// thanks; the refusal and a failure in words; a signed-in creator's address filled in; 1280 and 390 px.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEEDBACK_TEXT as T, FEEDBACK_TYPE_LABELS } from "../../shared/feedback-page";
import { HUMAN_CHECK_REFUSED } from "../../shared/human-check";
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

async function fill(page: Page, subject: string) {
  await page.getByLabel("Type").selectOption({ label: FEEDBACK_TYPE_LABELS.feature });
  await page.getByLabel(T.subject).fill(subject);
  await page.getByLabel(T.message).fill("Please add a dark mode for the dashboard.");
}

describe("JavaScript off", () => {
  it("shows every text; a missing field says so in the spec's words; the filled form is thanked", async () => {
    const context = await browser.newContext({
      baseURL: baseUrl(),
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
      extraHTTPHeaders: clientAddress(),
    });
    const page = await context.newPage();
    await page.goto("/feedback");
    for (const words of [T.title, T.lead, T.cardTitle, T.cardLead, T.type, T.priority, T.subject, T.message, T.submit])
      expect(await page.getByText(words, { exact: true }).first().isVisible(), words).toBe(true);
    expect(await noSideScroll(page)).toBe(true);
    await page.screenshot({ path: screenshotPath("feedback-nojs-390"), fullPage: true });
    await page.getByLabel(T.subject).fill("Half a message");
    await page.getByRole("button", { name: T.submit }).click();
    await page.getByText(T.missing, { exact: true }).waitFor();
    expect(await page.getByText(T.missingTitle, { exact: true }).isVisible()).toBe(true);
    expect(await page.getByText("Type is required").isVisible()).toBe(true);
    expect(await page.getByLabel(T.subject).inputValue()).toBe("Half a message");
    await page.screenshot({ path: screenshotPath("feedback-nojs-missing-390"), fullPage: true });
    await fill(page, "No script here");
    await page.getByRole("button", { name: T.submit }).click();
    await page.getByText(T.thanks).waitFor();
    await context.close();
  });
});

describe("JavaScript on", () => {
  it("asks for the required fields, then sends and thanks; 'Send more feedback' brings the form back", async () => {
    for (const width of WIDTHS) {
      const { page, context } = await sized(width);
      const errors = consoleErrors(page);
      await page.goto("/feedback");
      await page.screenshot({ path: screenshotPath(`feedback-form-${width}`), fullPage: true });
      let sends = 0;
      page.on("request", (r) => void (r.url().endsWith("/api/feedback") && sends++));
      await page.getByRole("button", { name: T.submit }).click();
      await page.getByText(T.missing, { exact: true }).waitFor();
      expect(await page.getByText(T.missingTitle, { exact: true }).isVisible()).toBe(true);
      for (const words of ["Type is required", "Subject is required", "Message is required"])
        expect(await page.getByText(words).isVisible(), words).toBe(true);
      expect(sends).toBe(0);
      expect(await noSideScroll(page)).toBe(true);
      await page.screenshot({ path: screenshotPath(`feedback-missing-${width}`), fullPage: true });

      await fill(page, `Dark mode ${width}`);
      expect(await page.getByText("Subject is required").isVisible()).toBe(false);
      const sent = page.waitForRequest((r) => r.url().endsWith("/api/feedback"));
      await page.getByRole("button", { name: T.submit }).click();
      await page.getByText(T.thanks).waitFor();
      const request = await sent;
      expect(request.headers()["cf-turnstile-response"]).toBeTruthy();
      expect(request.postDataJSON()).toMatchObject({
        type: "feature",
        priority: "medium",
        subject: `Dark mode ${width}`,
      });
      expect(await page.getByText(T.thanksLead).isVisible()).toBe(true);
      await page.screenshot({ path: screenshotPath(`feedback-sent-${width}`), fullPage: true });
      await page.getByRole("link", { name: T.more }).click();
      await page.getByRole("button", { name: T.submit }).waitFor();
      expect(await page.getByLabel(T.subject).inputValue()).toBe("");
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it("a refused bot check is said under the form; a server failure is the spec's toast", async () => {
    for (const width of WIDTHS) {
      const { page, context } = await sized(width);
      const answers = [
        { status: 403, json: { message: HUMAN_CHECK_REFUSED } },
        { status: 403, json: { message: HUMAN_CHECK_REFUSED } },
        { status: 500, json: { message: "Internal Server Error" } },
      ];
      let calls = 0;
      await page.route("**/api/feedback", (route) => route.fulfill(answers[Math.min(calls++, answers.length - 1)]));
      await page.goto("/feedback");
      await fill(page, "Refused");
      await page.getByRole("button", { name: T.submit }).click();
      await page.getByText(HUMAN_CHECK_REFUSED).waitFor();
      expect(calls).toBe(2);
      expect(await page.getByRole("button", { name: T.submit }).isEnabled()).toBe(true);
      expect(await noSideScroll(page)).toBe(true);
      await page.screenshot({ path: screenshotPath(`feedback-refused-${width}`), fullPage: true });
      await page.getByRole("button", { name: T.submit }).click();
      await page.getByText(T.failed).waitFor();
      expect(await page.getByText(T.failedTitle).isVisible()).toBe(true);
      await context.close();
    }
  });

  it("fills in a signed-in creator's address after load, without moving anything", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("feedback-creator");
    await signIn(page, email);
    await page.goto("/feedback");
    const box = await page.getByRole("button", { name: T.submit }).boundingBox();
    await page.waitForFunction((e) => (document.getElementById("fb-email") as HTMLInputElement).value === e, email);
    expect(await page.getByRole("button", { name: T.submit }).boundingBox()).toEqual(box);
    await page.getByRole("link", { name: "Dashboard" }).waitFor();
    await context.close();
  });
});
