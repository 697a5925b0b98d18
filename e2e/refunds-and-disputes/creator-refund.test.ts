// A creator refunds a sale from the sales table in a real browser: the Refund dialog (prefilled with
// what is refundable), a partial refund, then the rest; the row says what the server says.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  checkoutOpened,
  launch,
  mailCount,
  newPage,
  screenshotPath,
  signIn,
  TEST_ZIP,
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
    multipart: { title, price: "10", accessType: "link", linkUrl: "https://example.com/secret" },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function buy(itemId: string, email: string) {
  const { page, context } = await newPage(browser);
  await page.goto(`/p/${itemId}`);
  await page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(page);
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiration date").fill("12 / 34");
  await page.getByLabel("Security code").fill("123");
  await page.getByLabel("ZIP", { exact: true }).fill(TEST_ZIP);
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await page.getByText("Payment Successful!").waitFor();
  await context.close();
}

describe("refunds from the sales table", () => {
  it("a creator refunds part of a sale, then the rest, and the row says Partly refunded, then Refunded; the buyer is emailed", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("refunder"));
    const itemId = await publish(page, "Refundable Guide");
    const buyer = uniqueEmail("refund-buyer");
    await buy(itemId, buyer);

    await page.goto("/");
    await page.getByRole("tab", { name: "Sales & Buyers" }).click();
    const row = page.getByRole("row").filter({ hasText: buyer });
    await row.waitFor();
    await row.getByRole("button", { name: /^Refund/ }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("Refund this sale").waitFor();
    expect(await dialog.getByLabel(/^Amount/).inputValue()).toBe("10.00");

    // Too much is refused beside the field, and nothing is sent.
    await dialog.getByLabel(/^Amount/).fill("12");
    await dialog.getByRole("button", { name: /^Refund \$/ }).click();
    await dialog.getByText("You can refund at most $10.00 of this sale").waitFor();

    await dialog.getByLabel(/^Amount/).fill("4");
    await dialog.getByRole("button", { name: "Refund $4.00" }).click();
    await page.getByText("Refund sent").first().waitFor();
    await row.getByText("Partly refunded $4.00").waitFor();
    await page.screenshot({ path: screenshotPath("sales-partly-refunded"), fullPage: true });

    await row.getByRole("button", { name: /^Refund/ }).click();
    expect(
      await page
        .getByRole("dialog")
        .getByLabel(/^Amount/)
        .inputValue(),
    ).toBe("6.00");
    await page.getByRole("dialog").getByLabel("Reason").selectOption("duplicate");
    await page.getByRole("dialog").getByRole("button", { name: "Refund $6.00" }).click();
    await row.getByText("Refunded", { exact: true }).waitFor();
    expect(await row.getByRole("button", { name: /^Refund/ }).count()).toBe(0);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: screenshotPath("sales-refunded-390"), fullPage: true });

    await expect.poll(() => mailCount(buyer), { timeout: 15_000 }).toBe(3);
    await context.close();
  });
});
