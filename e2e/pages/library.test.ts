// /library as the Worker renders it (docs/library.md, docs/pages.md): with JavaScript off, the link
// form's texts (and its plain post), and with a library cookie the buyer's purchases, their receipt
// and 'Sign out'; with JavaScript on, a link requested, opened from the dev outbox, 'Open my library'
// and the list, at 1280 and 390 px with no horizontal scroll and no console error.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIBRARY_TEXT, LIBRARY_PAGE_TEXT as T } from "../../shared/library-text";
import {
  baseUrl,
  checkoutOpened,
  clientAddress,
  consoleErrors,
  launch,
  mailCount,
  mailedLink,
  newPage,
  payWith,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

const LINK_SUBJECT = "Your ApeWall library link";
const TITLE = "Sourdough, start to finish";
const buyer = uniqueEmail("library-page-buyer");
let browser: Browser;

const noHorizontalScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** What sticks out past the viewport, when something does (said in a failing test's message). */
const widest = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 5)
      .map((el) => `${el.tagName} "${el.textContent?.trim().slice(0, 40)}" right=${el.getBoundingClientRect().right}`),
  );

/** Signs `context` in to the library of `email` through the mailed link, by the API (no page script). */
async function libraryCookieFor(context: BrowserContext, email: string) {
  const headers = { origin: baseUrl() };
  const seen = await mailCount(email, LINK_SUBJECT);
  expect((await context.request.post("/api/library/link", { headers, data: { email } })).status()).toBe(202);
  const link = new URL(await mailedLink(email, seen, LINK_SUBJECT));
  const token = new URLSearchParams(link.hash.slice(1)).get("token");
  expect((await context.request.post("/api/library/session", { headers, data: { token } })).status()).toBe(200);
}

beforeAll(async () => {
  browser = await launch();
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail("library-page-seller"));
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: { title: TITLE, price: "7", category: "other", accessType: "view", textContent: "Feed it daily." },
  });
  expect(res.status()).toBe(201);
  const item = (await res.json()) as { id: string };
  await context.close();
  const paying = await newPage(browser);
  await paying.page.goto(`/p/${item.id}`);
  await paying.page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(paying.page);
  await payWith(paying.page, "4242 4242 4242 4242", buyer);
  await paying.page.waitForURL(/\/success\?/);
  await paying.context.close();
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

describe("/library with JavaScript off", () => {
  for (const width of [1280, 390]) {
    it(`shows the link form's texts, and its plain post answers (${width})`, async () => {
      const context = await browser.newContext({
        baseURL: baseUrl(),
        javaScriptEnabled: false,
        viewport: { width, height: 860 },
        extraHTTPHeaders: clientAddress(),
      });
      const page = await context.newPage();
      await page.goto("/library");
      await page.getByRole("heading", { name: T.title }).waitFor();
      await page.getByText(T.intro).waitFor();
      await page.getByLabel(T.emailLabel).waitFor();
      expect(await page.getByRole("button", { name: T.requestLink }).isVisible()).toBe(true);
      // The link's states need the script: hidden.
      expect(await page.getByRole("button", { name: T.open }).isVisible()).toBe(false);
      expect(await noHorizontalScroll(page), String(await widest(page))).toBe(true);
      await page.screenshot({ path: screenshotPath(`library-page-nojs-form-${width}`), fullPage: true });
      await page.getByLabel(T.emailLabel).fill(uniqueEmail("library-page-nobody"));
      await page.getByRole("button", { name: T.requestLink }).click();
      await page.getByTestId("library-link-sent").waitFor();
      expect(await page.getByTestId("library-link-sent").textContent()).toContain(LIBRARY_TEXT.linkSent);
      await context.close();
    }, 60_000);
  }

  it("with a library cookie: the purchases, their receipt (a popover, no script) and 'Sign out' (390)", async () => {
    const context = await browser.newContext({
      baseURL: baseUrl(),
      javaScriptEnabled: false,
      viewport: { width: 390, height: 844 },
      extraHTTPHeaders: clientAddress(),
    });
    await libraryCookieFor(context, buyer);
    const page = await context.newPage();
    await page.goto("/library");
    await page.getByText(`Signed in as ${buyer}`).waitFor();
    const card = page.getByTestId("library-purchase");
    expect(await card.count()).toBe(1);
    expect(await card.getByRole("heading").textContent()).toBe(TITLE);
    expect(await card.textContent()).toContain("$7.00");
    expect(await card.getByRole("link", { name: T.openAccess }).getAttribute("href")).toMatch(/\/success\?.*access=/);
    expect(await noHorizontalScroll(page), String(await widest(page))).toBe(true);
    await page.screenshot({ path: screenshotPath("library-page-nojs-list-390"), fullPage: true });
    await card.getByRole("button", { name: T.receipt }).click();
    const receipt = card.getByTestId("library-receipt");
    await receipt.waitFor();
    expect(await receipt.textContent()).toContain(buyer);
    await page.screenshot({ path: screenshotPath("library-page-nojs-receipt-390") });
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: T.signOut }).click();
    await page.getByRole("button", { name: T.requestLink }).waitFor();
    await context.close();
  }, 60_000);
});

describe("/library with JavaScript on", () => {
  for (const viewport of [
    { width: 1280, height: 860 },
    { width: 390, height: 844 },
  ]) {
    it(`a link requested, opened from the outbox, 'Open my library', the list (${viewport.width})`, async () => {
      const { page, context } = await newPage(browser);
      await page.setViewportSize(viewport);
      const errors = consoleErrors(page);
      await page.goto("/library");
      await page.getByRole("heading", { name: T.title }).waitFor();
      expect(await noHorizontalScroll(page), String(await widest(page))).toBe(true);
      const seen = await mailCount(buyer, LINK_SUBJECT);
      await page.getByLabel(T.emailLabel).fill(buyer);
      await page.getByRole("button", { name: T.requestLink }).click();
      await page.getByTestId("library-link-sent").waitFor();
      await page.screenshot({ path: screenshotPath(`library-page-sent-${viewport.width}`), fullPage: true });
      await page.goto(await mailedLink(buyer, seen, LINK_SUBJECT));
      await page.getByRole("heading", { name: T.openTitle }).waitFor();
      await page.screenshot({ path: screenshotPath(`library-page-open-${viewport.width}`), fullPage: true });
      await page.getByRole("button", { name: T.open }).click();
      await page.getByText(`Signed in as ${buyer}`).waitFor();
      expect(new URL(page.url()).hash).toBe("");
      const card = page.getByTestId("library-purchase");
      await card.getByTestId("text-content").waitFor();
      expect(await card.getByTestId("text-content").textContent()).toBe("Feed it daily.");
      expect(await noHorizontalScroll(page), String(await widest(page))).toBe(true);
      await page.screenshot({ path: screenshotPath(`library-page-list-${viewport.width}`), fullPage: true });
      await card.getByRole("button", { name: T.changeEmail }).click();
      await page.getByLabel(T.newEmail).waitFor();
      await page.screenshot({ path: screenshotPath(`library-page-change-email-${viewport.width}`) });
      await page.keyboard.press("Escape");
      expect(errors.filter((e) => !e.includes("favicon"))).toEqual([]);
      await context.close();
    }, 90_000);
  }
});
