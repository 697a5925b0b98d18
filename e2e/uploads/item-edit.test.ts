// A creator's everyday job on a live item: publish, see "You're live", edit its title and price and
// see the paywall change at once, then unpublish it and see what a visitor sees.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYWALL_TEXT } from "../../shared/paywall";
import { baseUrl, clientAddress, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** At 390 px the screen does not scroll sideways (every screen on a phone). */
async function fitsAPhone(page: Page, name: string) {
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: screenshotPath(`${name}-390`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe("editing a live item", () => {
  it("publishes, edits title and price on the same link, and unpublishes: a visitor sees each change", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("editor"));
    await page.goto("/upload");
    await page.getByRole("radio", { name: "Link" }).click();
    await page.getByLabel("Link URL *").fill("https://example.com/course");
    await page.getByLabel("Title *").fill("Jungle course");
    await page.getByLabel("Description").fill("Ten lessons.");
    await page.getByLabel("Price (USD) *").fill("12");
    await page.getByRole("button", { name: "Publish" }).click();

    // You're live: the link, the social card as chats show it, and a way to see the page as a buyer.
    await page.getByRole("heading", { name: "You're live" }).waitFor();
    const link = await page.getByTestId("live-link").inputValue();
    const id = link.split("/p/")[1];
    expect(link).toBe(`${baseUrl()}/p/${id}`);
    expect(await page.getByTestId("social-card").textContent()).toContain("Jungle course · $12.00");
    expect(await page.getByRole("link", { name: "View as a buyer" }).getAttribute("href")).toBe(`/p/${id}`);
    await page.screenshot({ path: screenshotPath("item-live"), fullPage: true });
    await fitsAPhone(page, "item-live");

    // A visitor's first look fills the paywall's cache.
    const visitor = await browser.newContext({ baseURL: baseUrl(), extraHTTPHeaders: clientAddress() });
    const buyer = await visitor.newPage();
    await buyer.goto(`/p/${id}`);
    expect(await buyer.getByTestId("paywall-price").textContent()).toBe("$12.00");

    await page.getByRole("link", { name: "Edit item" }).click();
    await page.getByLabel("Title *").waitFor();
    // The form says what is wrong beside the field.
    await page.getByLabel("Price (USD) *").fill("");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.locator("#price-error").getByText("Please fill in title and price").waitFor();
    await page.getByLabel("Title *").fill("Jungle course, 2nd edition");
    await page.getByLabel("Price (USD) *").fill("19");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Changes saved", { exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath("item-edit"), fullPage: true });
    await fitsAPhone(page, "item-edit");

    await buyer.goto(`/p/${id}`);
    await buyer.getByRole("heading", { name: "Jungle course, 2nd edition" }).waitFor();
    expect(await buyer.getByTestId("paywall-price").textContent()).toBe("$19.00");

    await page.getByRole("button", { name: "Unpublish" }).click();
    await page.getByTestId("unpublished-badge").waitFor();
    await buyer.goto(`/p/${id}`);
    await buyer.getByText(PAYWALL_TEXT.unpublished).waitFor();
    expect(await buyer.getByRole("button", { name: "Unlock" }).count()).toBe(0);
    await buyer.screenshot({ path: screenshotPath("item-unpublished-paywall"), fullPage: true });
    await fitsAPhone(buyer, "item-unpublished-paywall");

    await page.getByRole("button", { name: "Republish" }).click();
    await page.getByRole("button", { name: "Unpublish" }).waitFor();
    await buyer.goto(`/p/${id}`);
    await buyer.getByRole("button", { name: "Unlock" }).waitFor();
    await visitor.close();
    await context.close();
  });
});
