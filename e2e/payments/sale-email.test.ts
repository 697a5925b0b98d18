// "You made a sale" (Emails): a creator is emailed for a sale, turns the email off in
// /settings, and the next sale sends the buyer's receipt but no sale email.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, launch, mailCount, newPage, payByApi, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("the creator's sale email", () => {
  it("comes with a sale, and stops once the creator turns it off in /settings", async () => {
    const creatorEmail = uniqueEmail("sale-email");
    const title = `Field Guide ${Date.now()}`;
    const saleSubject = `You made a sale: ${title}`;
    const receiptSubject = `Your access to ${title}`;
    const { page: creator, context } = await newPage(browser);
    await signIn(creator, creatorEmail);
    const published = await creator.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: { title, price: "9", accessType: "link", linkUrl: "https://example.com/guide" },
    });
    expect(published.status()).toBe(201);
    const { id } = (await published.json()) as { id: string };

    const { page: buyer, context: buyerContext } = await newPage(browser);
    await payByApi(buyer, id);
    await expect.poll(() => mailCount(creatorEmail, saleSubject), { timeout: 15_000 }).toBe(1);

    await creator.goto("/settings");
    const toggle = creator.getByLabel("Email me when I make a sale");
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    await toggle.uncheck();
    await creator.getByText("We won't email you about sales.").first().waitFor();
    await creator.screenshot({ path: screenshotPath("sale-email-off"), fullPage: true });
    await creator.reload();
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(false);

    // The second sale's receipt is written in the same batch as a sale email would be, and handed
    // to the queue with it: once the receipt is here, a sale email would be too.
    const receipts = await mailCount("fan@example.com", receiptSubject);
    const { page: secondBuyer, context: secondContext } = await newPage(browser);
    await payByApi(secondBuyer, id);
    await expect.poll(() => mailCount("fan@example.com", receiptSubject), { timeout: 15_000 }).toBe(receipts + 1);
    expect(await mailCount(creatorEmail, saleSubject)).toBe(1);
    await secondContext.close();
    await buyerContext.close();
    await context.close();
  });
});
