// License keys in a real browser: the creator turns them on for an item, a buyer pays and sees the
// key on the success page, an app verifies it, the creator sees it in the sales table and disables it.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const verify = async (key: string) =>
  (
    await fetch(`${baseUrl()}/api/licenses/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key }),
    })
  ).json() as Promise<{ status: string; limit: number | null }>;

describe("license keys", () => {
  it("a buyer sees the key on the success page, it verifies, and the creator disables it from the sales table", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("licensor"));
    await page.goto("/upload");
    await page.getByRole("radio", { name: "Link" }).click();
    await page.getByLabel("Link URL *").fill("https://example.com/download-app");
    await page.getByLabel("Title *").fill("Pixel Tool");
    await page.getByLabel("Price (USD) *").fill("15");
    await page.getByLabel("Issue a license key with each purchase").check();
    await page.getByLabel("Activation limit").fill("0");
    await page.getByRole("button", { name: "Publish" }).click();
    await page
      .locator("#activationLimit-error")
      .getByText(/Activation limit must be/)
      .waitFor();
    await page.getByLabel("Activation limit").fill("2");
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByRole("heading", { name: "You're live" }).waitFor();
    const id = (await page.getByTestId("live-link").inputValue()).split("/p/")[1];

    const buyer = await newPage(browser);
    const buyerEmail = uniqueEmail("licensee");
    await buyer.page.goto(`/p/${id}`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    await payWith(buyer.page, "4242 4242 4242 4242", buyerEmail);
    await buyer.page.waitForURL(/\/success\?/);
    const key = (await buyer.page.getByTestId("license-key").textContent())!;
    expect(key).toMatch(/^AW(-[0-9A-HJKMNP-TV-Z]{5}){4}$/);
    await buyer.page.screenshot({ path: screenshotPath("license-success"), fullPage: true });
    expect(await verify(key)).toMatchObject({ status: "valid", limit: 2 });
    await buyer.context.close();

    await page.goto("/");
    await page.getByRole("tab", { name: "Sales & Buyers" }).click();
    const row = page.getByRole("row").filter({ hasText: buyerEmail });
    await row.getByTestId("sale-license-key").getByText(key).waitFor();
    await row.getByRole("button", { name: "Disable key" }).click();
    await row.getByTestId("sale-license-status").getByText("Disabled").waitFor();
    await page.screenshot({ path: screenshotPath("license-sales"), fullPage: true });
    expect((await verify(key)).status).toBe("disabled");
    await context.close();
  });
});
