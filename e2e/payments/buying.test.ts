import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  checkoutOpened,
  launch,
  mailCount,
  mailedLink,
  newPage,
  payWith,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
let item: { id: string };
const fileBytes = randomBytes(3 * 1024 * 1024 + 123);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");

beforeAll(async () => {
  browser = await launch();
  // A creator publishes a pay-what-you-want file (minimum $2).
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail("seller"));
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: {
      title: "Synth Samples",
      description: "Two hundred one-shots.",
      pricingModel: "pay_what_you_want",
      minimumPrice: "2",
      price: "2",
      category: "music",
      accessType: "download",
      file: { name: "synth-samples.zip", mimeType: "application/zip", buffer: fileBytes },
    },
  });
  expect(res.status()).toBe(201);
  item = await res.json();
  await context.close();
});
afterAll(async () => {
  await browser?.close();
});

async function openCheckout(page: Page, amount: string) {
  await page.goto(`/p/${item.id}`);
  await page.getByLabel("Name your price").fill(amount);
  await page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(page);
}

describe("buying", () => {
  it("pay-what-you-want with 4242 -> success page -> download matches the uploaded file; the emailed link opens it elsewhere", async () => {
    const { page, context } = await newPage(browser);
    const buyer = uniqueEmail("buyer");
    await openCheckout(page, "5");
    // The payment form opened on the paywall itself, with the server's amount.
    expect(new URL(page.url()).pathname).toBe(`/p/${item.id}`);
    expect(await page.getByTestId("checkout-total").textContent()).toBe("$5.00");
    await page.screenshot({ path: screenshotPath("checkout"), fullPage: true });
    await payWith(page, "4242 4242 4242 4242", buyer);

    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    const orderLine = await page.getByTestId("order-line").textContent();
    expect(orderLine).toMatch(/^Order #\w+ • \$5\.00$/);
    await page.screenshot({ path: screenshotPath("success"), fullPage: true });

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download synth-samples.zip" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("synth-samples.zip");
    expect(sha256(await readFile((await download.path())!))).toBe(sha256(fileBytes));
    await page.getByText("Download Started", { exact: true }).waitFor();

    // The emailed access link opens the same purchase in a fresh browser.
    const link = await mailedLink(buyer);
    expect(link).toContain("/success?");
    const fresh = await browser.newContext({ baseURL: baseUrl() });
    const other = await fresh.newPage();
    await other.goto(link);
    await other.getByText("Payment Successful!").waitFor();
    expect(await other.getByTestId("order-line").textContent()).toBe(orderLine);
    await fresh.close();

    // Back on the paywall with success=true (spec §4): the download unlocks for this browser and the
    // query string is cleared after two seconds.
    const pi = new URL(page.url()).searchParams.get("payment_intent")!;
    await page.goto(`/p/${item.id}?success=true&payment_intent=${pi}`);
    await page.getByTestId("unlocked").waitFor();
    const [again] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download" }).click(),
    ]);
    expect(sha256(await readFile((await again.path())!))).toBe(sha256(fileBytes));
    await page.waitForURL((url) => url.pathname === `/p/${item.id}` && url.search === "", { timeout: 5000 });
    await page.goBack();

    // Email reminder: the button becomes 'Sent'.
    const before = await mailCount(buyer);
    await page.getByRole("button", { name: "Send it again" }).click();
    await page.getByRole("button", { name: "Sent" }).waitFor();
    expect(await page.getByRole("button", { name: "Sent" }).isDisabled()).toBe(true);
    await mailedLink(buyer, before);
    await context.close();
  });

  it("a declined card shows the provider's message beside the form, keeps the email typed, and stays on the page", async () => {
    const { page, context } = await newPage(browser);
    await openCheckout(page, "3");
    const email = uniqueEmail("declined");
    await payWith(page, "4000 0000 0000 0002", email);
    await page.locator("#pay-error").getByText("Your card was declined.", { exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/p/${item.id}`);
    expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe(email);
    // Another card pays from the same form.
    await payWith(page, "4242 4242 4242 4242", email);
    await page.waitForURL(/\/success\?/);
    await context.close();
  });

  it("asks for the email before paying", async () => {
    const { page, context } = await newPage(browser);
    await openCheckout(page, "3");
    await page.getByLabel("Card number").fill("4242 4242 4242 4242");
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    await page
      .locator("#pay-error")
      .getByText("Please enter your email address to receive access links.", { exact: true })
      .waitFor();
    expect(await page.getByLabel("Email", { exact: true }).getAttribute("aria-invalid")).not.toBeNull();
    await context.close();
  });

  it("a /checkout link made before still takes the payment, at Stripe's amount whatever the URL says", async () => {
    const { page, context } = await newPage(browser);
    const started = await page.request.post("/api/create-payment-intent", {
      headers: { origin: baseUrl() },
      data: { contentId: item.id, customAmount: 5 },
    });
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    await page.goto(`/checkout/${item.id}?payment_intent=${encodeURIComponent(clientSecret)}&amount=0.01`);
    await page.getByLabel("Card number").waitFor();
    await expect.poll(() => page.getByTestId("checkout-total").textContent()).toBe("$5.00");
    expect(await page.getByText("Processing fee").isVisible()).toBe(true);
    await page.getByRole("button", { name: /^Pay \$/ }).click();
    await page.getByText("Email Required", { exact: true }).waitFor();
    await payWith(page, "4242 4242 4242 4242", uniqueEmail("old-link"));
    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    await context.close();
  });

  it("a card that asks to authenticate pays after the buyer confirms", async () => {
    const { page, context } = await newPage(browser);
    await openCheckout(page, "3");
    await payWith(page, "4000 0025 0000 3155", uniqueEmail("threeds"));
    await page.getByRole("button", { name: "Complete authentication" }).click();
    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    await context.close();
  });

  it("the success page without a valid purchase says 'Purchase Not Found'", async () => {
    const { page, context } = await newPage(browser);
    await page.goto(`/success?payment_intent=pi_doesnotexist&content_id=${item.id}`);
    await page.getByText("Purchase Not Found").waitFor();
    await context.close();
  });
});
