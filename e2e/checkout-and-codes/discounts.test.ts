// Discount codes in a real browser: the creator makes a code on /discounts and sees the
// price it gives before saving; /p/{id}?code= shows the struck-through price with JavaScript off;
// a buyer pays the discounted price, a code typed at checkout re-prices the payment, and the sales
// table shows the code.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkoutOpened,
  clientAddress,
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

describe("discount codes", () => {
  it("a code made on /discounts prices the paywall without JavaScript, checkout charges it, and the sale shows it", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("discounter"));
    await page.goto("/upload");
    await page.getByRole("radio", { name: "Link" }).click();
    await page.getByLabel("Link URL *").fill("https://example.com/course");
    await page.getByLabel("Title *").fill("Course Notes");
    await page.getByLabel("Price (USD) *").fill("40");
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByRole("heading", { name: "You're live" }).waitFor();
    const id = (await page.getByTestId("live-link").inputValue()).split("/p/")[1];

    await page.goto("/discounts");
    await page.getByText("No codes yet").waitFor();
    await page.getByRole("button", { name: "New code" }).click();
    await page.getByLabel("Code", { exact: true }).fill("x");
    await page.getByLabel("For").selectOption({ label: "Course Notes" });
    await page.getByLabel("Percent off").fill("25");
    // The price the code gives, before saving.
    await page.getByTestId("discount-preview").getByText("Course Notes: $40.00 → $30.00").waitFor();
    await page.getByRole("button", { name: "Create code" }).click();
    await page
      .locator('[data-field-error="code"]')
      .getByText(/2 to 40 letters/)
      .waitFor();
    await page.getByLabel("Code", { exact: true }).fill("launch");
    await page.getByRole("button", { name: "Create code" }).click();
    const row = page.getByTestId("discount-row").filter({ hasText: "LAUNCH" });
    await row.getByText("25% off").waitFor();
    await row.getByText("0 used").waitFor();
    await page.screenshot({ path: screenshotPath("discounts-1280"), fullPage: true });

    // Without JavaScript: the price is in the HTML.
    const noJs = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders: clientAddress() });
    const bare = await noJs.newPage();
    await bare.goto(`${new URL(page.url()).origin}/p/${id}?code=LAUNCH`);
    expect(await bare.getByTestId("paywall-list-price").textContent()).toBe("$40.00");
    expect(await bare.getByTestId("paywall-price").textContent()).toContain("$30.00");
    await bare.getByText("Code LAUNCH: 25% off").waitFor();
    await noJs.close();

    // A buyer follows the link and pays the discounted price.
    const buyer = await newPage(browser);
    const buyerEmail = uniqueEmail("discount-buyer");
    await buyer.page.goto(`/p/${id}?code=launch`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    await buyer.page.getByTestId("checkout-discount").getByText("Code LAUNCH").waitFor();
    expect(await buyer.page.getByTestId("checkout-total").textContent()).toBe("$30.00");
    await payWith(buyer.page, "4242 4242 4242 4242", buyerEmail);
    await buyer.page.waitForURL(/\/success\?/);
    await buyer.context.close();

    // Another buyer types a bad code, then the right one, at checkout: the total follows the server.
    const second = await newPage(browser);
    await second.page.goto(`/p/${id}`);
    await second.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(second.page);
    expect(await second.page.getByTestId("checkout-total").textContent()).toBe("$40.00");
    await second.page.getByRole("button", { name: "Have a discount code?" }).click();
    await second.page.getByLabel("Discount code").fill("NOPE");
    await second.page.getByRole("button", { name: "Apply" }).click();
    await second.page.getByRole("alert").getByText("This code isn't valid").waitFor();
    await second.page.getByLabel("Discount code").fill("launch");
    await second.page.getByRole("button", { name: "Apply" }).click();
    await second.page.getByText("Code LAUNCH applied.").waitFor();
    await expect.poll(() => second.page.getByTestId("checkout-total").textContent()).toBe("$30.00");
    await second.page.setViewportSize({ width: 390, height: 844 });
    await second.page.screenshot({ path: screenshotPath("discount-checkout-390"), fullPage: true });
    await second.context.close();

    await page.goto("/");
    await page.getByRole("tab", { name: "Sales & Buyers" }).click();
    await page.getByRole("row").filter({ hasText: buyerEmail }).getByTestId("sale-code").getByText("LAUNCH").waitFor();
    await page.goto("/discounts");
    await page.getByTestId("discount-row").filter({ hasText: "LAUNCH" }).getByText("1 used").waitFor();
    await context.close();
  });
});
