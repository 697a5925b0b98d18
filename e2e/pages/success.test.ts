// The success page the Worker renders (docs/pages.md): with JavaScript off the paid order is all there
// (the spec's texts, the download as a form that saves the file); with it on, the island's actions
// work as the SPA's did, a payment on its way turns into the paid page by itself, at 1280 and 390 px
// with no horizontal scroll and no console error.
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSED_CHECK } from "../../dev/local-app.mjs";
import {
  baseUrl,
  checkoutOpened,
  clientAddress,
  confirmAsStripeJs,
  consoleErrors,
  launch,
  mailCount,
  newPage,
  payWith,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
let itemId: string;
const fileBytes = randomBytes(4096);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const INFO = [
  "Your access link is permanent and won't expire.",
  "Bookmark this page to come back to your purchase anytime.",
  "You can request an email reminder of your link anytime.",
];

beforeAll(async () => {
  browser = await launch();
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail("success-page-seller"));
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: {
      title: "Tape Loops",
      description: "Forty loops from a cassette deck.",
      price: "6",
      category: "music",
      accessType: "download",
      file: { name: "tape-loops.zip", mimeType: "application/zip", buffer: fileBytes },
    },
  });
  expect(res.status()).toBe(201);
  itemId = ((await res.json()) as { id: string }).id;
  await context.close();
});
afterAll(async () => {
  await browser?.close();
});

const noHorizontalScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

let accessLink = "";

describe("the success page with JavaScript on", () => {
  it("copies the link, downloads the file, sends the email again and changes the address, at 1280 and 390 px", async () => {
    const { page, context } = await newPage(browser);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl() });
    const errors = consoleErrors(page);
    const email = uniqueEmail("success-page-buyer");
    await page.goto(`/p/${itemId}`);
    await page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(page);
    await payWith(page, "4242 4242 4242 4242", email);
    await page.waitForURL(/\/success\?/);
    await page.getByRole("heading", { name: "Payment Successful!" }).waitFor();
    // The permanent link replaces the payment's in the address bar.
    await page.waitForURL(/access=/);
    accessLink = page.url();
    expect(await page.getByTestId("order-line").textContent()).toMatch(/^Order #\w+ • \$6\.00$/);
    await page.waitForLoadState("networkidle");
    await page.screenshot({ path: screenshotPath("success-paid-1280"), fullPage: true });
    expect(await noHorizontalScroll(page)).toBe(true);

    await page.getByRole("link", { name: "Copy Access Link" }).click();
    await page.getByText("Link Copied", { exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(accessLink);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download tape-loops.zip" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("tape-loops.zip");
    expect(sha256(await readFile((await download.path())!))).toBe(sha256(fileBytes));
    await page.getByText("Download Started", { exact: true }).waitFor();

    const card = page.getByTestId("email-access");
    await expect.poll(() => mailCount(email, "Your access to Tape Loops"), { timeout: 10_000 }).toBe(1);
    await card.getByRole("button", { name: "Send it again" }).click();
    await card.getByRole("button", { name: "Sent" }).waitFor();
    expect(await card.getByRole("button", { name: "Sent" }).isDisabled()).toBe(true);
    await page.getByText("Email Sent", { exact: true }).waitFor();
    await expect.poll(() => mailCount(email, "Your access to Tape Loops"), { timeout: 10_000 }).toBe(2);

    await card.getByRole("button", { name: "Wrong email? Change it" }).click();
    const field = card.getByLabel("Where should your receipt and access link go?");
    await field.fill("not-an-email");
    await card.getByRole("button", { name: "Change email" }).click();
    await card.getByRole("alert").getByText("Enter a valid email address").waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: screenshotPath("success-change-email-390"), fullPage: true });
    expect(await noHorizontalScroll(page)).toBe(true);
    const next = uniqueEmail("success-page-moved");
    await field.fill(next);
    await card.getByRole("button", { name: "Change email" }).click();
    await card.getByTestId("change-email-done").getByText(`on their way to ${next}`).waitFor();
    await card.getByText(`We emailed your receipt and access link to ${next[0]}…@example.com.`).waitFor();
    await page.screenshot({ path: screenshotPath("success-paid-390"), fullPage: true });
    expect(await noHorizontalScroll(page)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a payment on its way shows 'Verifying Your Purchase', then the paid page once it goes through", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    const res = await page.request.post("/api/create-payment-intent", {
      headers: { origin: baseUrl(), ...PASSED_CHECK },
      data: { contentId: itemId, buyerEmail: uniqueEmail("success-page-waiting") },
    });
    expect(res.status()).toBe(200);
    const { clientSecret } = (await res.json()) as { clientSecret: string };
    const pi = clientSecret.split("_secret_")[0];
    await page.goto(`/success?payment_intent=${pi}&content_id=${itemId}&redirect_status=processing`);
    await page.getByRole("heading", { name: "Verifying Your Purchase" }).waitFor();
    await page.getByText("Please wait while we confirm your payment...").waitFor();
    await page.screenshot({ path: screenshotPath("success-verifying-1280"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: screenshotPath("success-verifying-390"), fullPage: true });
    expect((await confirmAsStripeJs(clientSecret)).status).toBe(200);
    await page.getByRole("heading", { name: "Payment Successful!" }).waitFor({ timeout: 15_000 });
    expect(await noHorizontalScroll(page)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("not found: the causes, the way home, and 'Lost your access?' sends the links", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    const res = await page.goto(`/success?payment_intent=pi_doesnotexist&content_id=${itemId}`);
    expect(res?.status()).toBe(404);
    await page.getByRole("heading", { name: "Purchase Not Found" }).waitFor();
    await page.getByText("the link has expired or is incomplete,", { exact: false }).waitFor();
    await page.screenshot({ path: screenshotPath("success-not-found-1280"), fullPage: true });
    await page.getByRole("button", { name: "Send links" }).click();
    await page.getByText("Please enter the email address you paid with.").waitFor();
    await page.getByLabel(/Lost your access\? Enter the email/).fill(uniqueEmail("success-page-lost"));
    await page.getByRole("button", { name: "Send links" }).click();
    await page.getByTestId("lost-access-sent").waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: screenshotPath("success-not-found-390"), fullPage: true });
    expect(await noHorizontalScroll(page)).toBe(true);
    await page.getByRole("link", { name: "Back to Home" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    // The page's own 404 (the purchase is not found) is the one line Chrome logs.
    expect(errors.filter((e) => !e.includes("status of 404"))).toEqual([]);
    expect(errors.length).toBeLessThanOrEqual(1);
    await context.close();
  });
});

describe("the success page with JavaScript off", () => {
  it("shows the paid order's spec texts, and its download form saves the file", async () => {
    expect(accessLink).toContain("access=");
    const context = await browser.newContext({
      baseURL: baseUrl(),
      javaScriptEnabled: false,
      extraHTTPHeaders: clientAddress(),
      viewport: { width: 390, height: 844 },
    });
    const page = await context.newPage();
    await page.goto(accessLink);
    for (const text of [
      "Payment Successful!",
      "Tape Loops",
      "Forty loops from a cassette deck.",
      "Copy Access Link",
      "Email Access Link",
      ...INFO,
      "← Return to Tape Loops",
    ])
      expect(await page.getByText(text, { exact: true }).first().isVisible(), text).toBe(true);
    expect(await page.getByTestId("order-line").textContent()).toMatch(/^Order #\w+ • \$6\.00$/);
    expect(await page.getByText(/^Need help\? Contact support with your order number #\w+\.$/).isVisible()).toBe(true);
    expect(await page.getByRole("link", { name: "Copy Access Link" }).getAttribute("href")).toBe(accessLink);
    await page.screenshot({ path: screenshotPath("success-nojs-390"), fullPage: true });
    expect(await noHorizontalScroll(page)).toBe(true);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download tape-loops.zip" }).click(),
    ]);
    expect(sha256(await readFile((await download.path())!))).toBe(sha256(fileBytes));

    await page.goto("/success?payment_intent=pi_doesnotexist");
    for (const text of ["Purchase Not Found", "Back to Home", "See everything you bought in your library"])
      expect(await page.getByText(text).first().isVisible(), text).toBe(true);
    await context.close();
  });
});
