// Receipts you can see delivered, end to end on the dev mailbox (which plays Resend's delivery
// events by address: `+bounce` bounces): a sale to a bouncing address shows 'Bounced' in the
// creator's sales table and "We couldn't reach …" on the buyer's success page, until the buyer puts
// the right address on the order; 'Resend receipt' emails it again; a normal sale shows 'Receipt
// delivered'. At 1280 and 390 px, nothing scrolls sideways.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  confirmAsStripeJs,
  launch,
  mailCount,
  newPage,
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

const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);

/** The buyer's browser pays `contentId` with `email` as Stripe.js would; its success page's address. */
async function pay(page: Page, contentId: string, email: string): Promise<string> {
  const res = await page.request.post("/api/create-payment-intent", {
    headers: { origin: baseUrl() },
    data: { contentId, buyerEmail: email },
  });
  if (res.status() !== 200) throw new Error(`create-payment-intent ${res.status()}: ${await res.text()}`);
  const { clientSecret } = (await res.json()) as { clientSecret: string };
  const confirm = await confirmAsStripeJs(clientSecret, "4242424242424242", { receipt_email: email });
  if (confirm.status !== 200) throw new Error(`confirm ${confirm.status}: ${await confirm.text()}`);
  return `/success?payment_intent=${clientSecret.split("_secret_")[0]}&content_id=${contentId}`;
}

describe("receipts you can see delivered", () => {
  it("a bounced receipt: 'Bounced' in the sales table, the banner on the success page, and Resend works; a normal sale says 'Receipt delivered'", async () => {
    const { page: creator, context } = await newPage(browser);
    await signIn(creator, uniqueEmail("receipts"));
    const title = `Delivery Guide ${Date.now()}`;
    const published = await creator.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: { title, price: "9", accessType: "link", linkUrl: "https://example.com/guide" },
    });
    expect(published.status()).toBe(201);
    const { id } = (await published.json()) as { id: string };

    const bouncing = uniqueEmail("reader+bounce");
    const fine = uniqueEmail("reader");
    const { page: buyer, context: buyerContext } = await newPage(browser);
    const successUrl = await pay(buyer, id, bouncing);
    const { page: other, context: otherContext } = await newPage(browser);
    const fineUrl = await pay(other, id, fine);

    // The buyer's success page hears of the bounce (it asks again while the receipt is unconfirmed).
    await buyer.goto(successUrl);
    await buyer.getByText("Payment Successful!").waitFor();
    const banner = buyer.getByTestId("receipt-bounced");
    await banner.waitFor({ timeout: 20_000 });
    await banner.getByText(`We couldn't reach ${bouncing[0]}…@example.com.`, { exact: true }).waitFor();
    expect(await noSideScroll(buyer)).toBe(true);
    await buyer.screenshot({ path: screenshotPath("delivery-success-bounced-1280"), fullPage: true });
    await buyer.setViewportSize({ width: 390, height: 844 });
    await banner.waitFor();
    expect(await noSideScroll(buyer)).toBe(true);
    await buyer.screenshot({ path: screenshotPath("delivery-success-bounced-390"), fullPage: true });

    // The creator's sales table: word for word, per sale.
    await creator.goto("/");
    await creator.getByRole("tab", { name: "Sales & Buyers" }).click();
    const bouncedRow = creator.getByRole("row").filter({ hasText: bouncing });
    const fineRow = creator.getByRole("row").filter({ hasText: fine });
    await bouncedRow.getByTestId("receipt-state").getByText("Bounced", { exact: true }).waitFor();
    await fineRow.getByTestId("receipt-state").getByText("Receipt delivered", { exact: true }).waitFor();
    expect(await noSideScroll(creator)).toBe(true);
    await creator.screenshot({ path: screenshotPath("delivery-sales-1280"), fullPage: true });

    // Resend: one more email to the buyer's address, and the row shows the new receipt's state.
    const before = await mailCount(bouncing);
    await bouncedRow.getByRole("button", { name: `Resend receipt to ${bouncing}` }).click();
    await creator.getByText("Receipt resent", { exact: true }).waitFor();
    await expect.poll(() => mailCount(bouncing), { timeout: 15_000 }).toBe(before + 1);
    await bouncedRow.getByTestId("receipt-state").getByText("Bounced", { exact: true }).waitFor();

    await creator.setViewportSize({ width: 390, height: 844 });
    const fineItem = creator.getByTestId("sale-item").filter({ hasText: fine });
    await fineItem.getByText("Receipt delivered", { exact: true }).waitFor();
    await creator
      .getByTestId("sale-item")
      .filter({ hasText: bouncing })
      .getByText("Bounced", { exact: true })
      .waitFor();
    expect(await noSideScroll(creator)).toBe(true);
    await creator.screenshot({ path: screenshotPath("delivery-sales-390"), fullPage: true });

    // The buyer puts the right address on the order ("change it below"): its receipt is delivered
    // and the banner goes, without a reload.
    const fixed = uniqueEmail("reader-fixed");
    await buyer.getByRole("button", { name: "Wrong email? Change it" }).click();
    await buyer.getByLabel("Where should your receipt and access link go?").fill(fixed);
    await buyer.getByRole("button", { name: "Change email" }).click();
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0);
    expect(await noSideScroll(buyer)).toBe(true);

    // A receipt that was delivered puts no banner on its buyer's page.
    await other.goto(fineUrl);
    await other.getByText("Payment Successful!").waitFor();
    expect(await other.getByTestId("receipt-bounced").count()).toBe(0);
    await otherContext.close();
    await buyerContext.close();
    await context.close();
  });
});
