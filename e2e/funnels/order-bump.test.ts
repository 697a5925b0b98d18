// The order bump in a real browser: the creator sets an item's add-on on its edit page
// (seeing the checkbox's words before saving); a buyer on a phone ticks "Add {title} for $X" in the
// one-page checkout, pays the total once, and lands on the success page with both items, each
// opening with its own link; one receipt lists both.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  checkoutOpened,
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
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("checkout with a bump", () => {
  it("the creator offers an add-on; the buyer ticks it, pays once and gets both", async () => {
    const { page, context } = await newPage(browser);
    await page.setViewportSize({ width: 1280, height: 900 });
    await signIn(page, uniqueEmail("bump-creator"));
    const headers = { origin: baseUrl() };
    const item = async (title: string, price: string) =>
      (
        await (
          await page.request.post("/api/content", {
            headers,
            multipart: { title, price, accessType: "link", linkUrl: `https://example.com/${title}`, category: "other" },
          })
        ).json()
      ).id as string;
    const mainId = await item("Masterclass", "20");
    const workbookId = await item("Workbook", "12");

    await page.goto(`/content/${mainId}/edit`);
    const card = page.getByTestId("order-bump");
    await card.getByLabel("Add-on item").click();
    await page.getByRole("option", { name: "Workbook" }).click();
    // A price out of range is refused beside the field, and nothing is saved.
    await card.getByLabel("Bump price ($)").fill("0.10");
    await card.getByRole("button", { name: "Save order bump" }).click();
    await card.getByText("The add-on price must be from $0.50 to $10,000").waitFor();
    await card.getByLabel("Bump price ($)").fill("7");
    expect(await card.getByTestId("bump-preview").textContent()).toContain("Add Workbook for $7.00 (usually $12.00)");
    await card.getByRole("button", { name: "Save order bump" }).click();
    await page.getByText("Order bump saved").first().waitFor();
    await card.getByRole("button", { name: "Remove" }).waitFor();
    await page.screenshot({ path: screenshotPath("order-bump-edit-1280"), fullPage: true });

    const buyer = await newPage(browser);
    const errors = consoleErrors(buyer.page);
    await buyer.page.setViewportSize({ width: 390, height: 844 });
    await buyer.page.goto(`/p/${mainId}`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    expect(await buyer.page.getByTestId("checkout-total").textContent()).toBe("$20.00");
    const email = uniqueEmail("bump-buyer");
    await buyer.page.getByLabel("Email", { exact: true }).fill(email);
    const bump = buyer.page.getByRole("checkbox", { name: "Add Workbook for $7.00" });
    await bump.check();
    // The form opens again for the new total, keeping what was typed.
    await expect.poll(() => buyer.page.getByTestId("checkout-total").textContent()).toBe("$27.00");
    await checkoutOpened(buyer.page);
    expect(await buyer.page.getByRole("checkbox", { name: "Add Workbook for $7.00" }).isChecked()).toBe(true);
    expect(await buyer.page.getByLabel("Email", { exact: true }).inputValue()).toBe(email);
    await buyer.page.screenshot({ path: screenshotPath("order-bump-checkout-390"), fullPage: true });
    await payWith(buyer.page, "4242424242424242", email);
    await buyer.page.waitForURL(/\/success\?/);
    await buyer.page.getByText("Payment Successful!").waitFor();
    const addOns = buyer.page.getByTestId("order-add-ons");
    await addOns.getByText("Workbook").waitFor();
    expect(await addOns.textContent()).toContain("$7.00");
    await buyer.page.screenshot({ path: screenshotPath("order-bump-success-390"), fullPage: true });
    await addOns.getByRole("link", { name: "Open" }).click();
    await buyer.page.waitForURL(new RegExp(`content_id=${workbookId}`));
    await buyer.page.getByRole("heading", { name: "Workbook" }).waitFor();
    // The add-on's paywall opens unlocked in this browser, and one receipt lists both.
    await buyer.page.goto(`/p/${workbookId}`);
    await buyer.page.locator('[data-part="owned"]').waitFor({ state: "visible" });
    await expect.poll(() => mailCount(email, "Your order: Masterclass and 1 more"), { timeout: 10_000 }).toBe(1);
    expect(errors).toEqual([]);
    await buyer.context.close();

    // The creator's dashboard shows the item's bump take rate.
    await page.goto("/");
    const row = page.getByTestId("link-funnel-bump");
    await row.waitFor();
    expect(await row.textContent()).toBe("Bump taken 100% (1 of 1)");
    const panel = page.getByTestId("analytics-bumps");
    await panel.getByText("Masterclass").waitFor();
    expect(await panel.textContent()).toContain("100% · 1 of 1");
    await page.screenshot({ path: screenshotPath("order-bump-analytics-1280"), fullPage: true });
    // The sales table lists the two sales, the add-on's marked as the bump.
    await page.getByRole("tab", { name: "Sales & Buyers" }).click();
    await page.getByTestId("sale-bump").waitFor();
    expect(await page.getByTestId("sale-bump").count()).toBe(1);
    await context.close();
  });

  it("the app's checkout page (/checkout/{id}, for older links) offers the same checkbox and charges the total", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("bump-spa-creator"));
    const headers = { origin: baseUrl() };
    const item = async (title: string, price: string) =>
      (
        await (
          await page.request.post("/api/content", {
            headers,
            multipart: { title, price, accessType: "link", linkUrl: `https://example.com/${title}`, category: "other" },
          })
        ).json()
      ).id as string;
    const mainId = await item("Course", "30");
    const addOnId = await item("Cheat sheet", "9");
    const set = await page.request.put(`/api/content/${mainId}/bump`, {
      headers,
      data: { contentId: addOnId, price: "5" },
    });
    expect(set.status()).toBe(200);
    await context.close();

    const buyer = await newPage(browser);
    const started = await buyer.page.request.post("/api/create-payment-intent", {
      headers,
      data: { contentId: mainId },
    });
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    await buyer.page.goto(`/checkout/${mainId}?payment_intent=${encodeURIComponent(clientSecret)}&amount=30`);
    await buyer.page.getByTestId("payment-element").locator("input").first().waitFor();
    expect(await buyer.page.getByTestId("checkout-total").textContent()).toBe("$30.00");
    await buyer.page.getByRole("checkbox", { name: "Add Cheat sheet for $5.00" }).check();
    await buyer.page.waitForURL(/bump=true/);
    await expect.poll(() => buyer.page.getByTestId("checkout-total").textContent()).toBe("$35.00");
    expect(await buyer.page.getByTestId("checkout-bump-line").textContent()).toContain("Cheat sheet");
    await buyer.page.screenshot({ path: screenshotPath("order-bump-spa-checkout-1280"), fullPage: true });
    await payWith(buyer.page, "4242424242424242", uniqueEmail("bump-spa-buyer"));
    await buyer.page.waitForURL(/\/success\?/);
    await buyer.page.getByTestId("order-add-ons").getByText("Cheat sheet").waitFor();
    await buyer.context.close();
  });
});
