// A cheap order whose receipt the daily cap held: the success page says no receipt was emailed (it
// does not claim one was), and "Send it again" explains why it is refused. Behaviour:
// docs/payments.md ("Receipts and emails").
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHEAP_RESEND_REFUSED } from "../../shared/card-testing";
import {
  baseUrl,
  checkoutOpened,
  launch,
  newPage,
  payWith,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function publish(page: Page, title: string): Promise<string> {
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: { title, price: "0.5", accessType: "link", linkUrl: "https://example.com/s", category: "other" },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function buy(page: Page, itemId: string, email: string): Promise<void> {
  await page.goto(`/p/${itemId}`);
  await page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(page);
  await payWith(page, "4242 4242 4242 4242", email);
  await page.waitForURL(/\/success\?/);
  await page.getByText("Payment Successful!").waitFor();
}

describe("a cheap order's held receipt", () => {
  it("the success page says no receipt was emailed, and Send it again says why", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("held-creator"));
    const first = await publish(page, "Sticker one");
    const second = await publish(page, "Sticker two");
    await context.close();

    const buyer = await newPage(browser);
    const p = buyer.page;
    await p.setViewportSize({ width: 1280, height: 900 });
    await buy(p, first, uniqueEmail("held-a"));
    const card = p.getByTestId("email-access");
    await expect.poll(() => card.getByTestId("email-access-sent").textContent()).toMatch(/^We emailed your receipt/);

    // The same browser and card, another address: paid, but its receipt is held.
    await buy(p, second, uniqueEmail("held-b"));
    await expect
      .poll(() => card.getByTestId("email-access-sent").textContent())
      .toBe("We didn't email a receipt for this order: copy your access link to come back to it.");
    await card.getByRole("button", { name: "Send it again" }).click();
    await p.getByText(CHEAP_RESEND_REFUSED, { exact: true }).waitFor();
    await p.screenshot({ path: screenshotPath("cardfix-receipt-held-1280"), fullPage: true });
    await p.setViewportSize({ width: 390, height: 844 });
    await card.getByTestId("email-access-sent").waitFor();
    expect(await p.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await p.screenshot({ path: screenshotPath("cardfix-receipt-held-390"), fullPage: true });
    await buyer.context.close();
  });
});
