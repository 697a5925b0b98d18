// /settings → "Tax on your prices" (docs/tax.md "What the creator sees"): a creator chooses
// "Always include tax", the choice survives a reload, and the preview shows what a buyer in each
// place pays and what the creator earns, from the Stripe stand-in's tax; at 390 px nothing scrolls sideways.
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TAX_SETTINGS_MESSAGES } from "../../shared/tax-settings";
import {
  baseUrl,
  consoleErrors,
  launch,
  newPage,
  payByApi,
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

const card = (page: Page) => page.getByTestId("tax-settings");
const previewRow = (page: Page, buyer: string) => card(page).getByTestId("tax-preview-row").filter({ hasText: buyer });

/** The card alone, from a full-page capture (an element capture would show the sticky header over it). */
async function shot(page: Page, what: Locator, name: string) {
  await what.scrollIntoViewIfNeeded();
  const box = await what.boundingBox();
  const scrollY = await page.evaluate(() => window.scrollY);
  if (!box) throw new Error(`nothing to capture for ${name}`);
  await page.screenshot({
    path: screenshotPath(name),
    fullPage: true,
    clip: { x: box.x, y: box.y + scrollY, width: box.width, height: box.height },
  });
}

describe("tax on the creator's prices", () => {
  it("chooses inclusive prices and sees what buyers pay and what the creator earns, at 1280 and 390 px", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    await signIn(page, uniqueEmail("settings-tax"));
    await page.goto("/settings");
    await card(page).getByText("Prices include tax").waitFor();
    const auto = card(page).getByLabel(/Automatic \(recommended\)/);
    expect(await auto.isChecked()).toBe(true);

    // The default preview: $10, automatic: the Washington buyer pays tax on top.
    await previewRow(page, "Washington (US)")
      .getByText(/^\+ \$\d+\.\d\d sales tax \(Washington\)$/)
      .waitFor();

    await card(page)
      .getByLabel(/Always include tax/)
      .check();
    await page.getByText("Prices: always include tax.").first().waitFor();
    // Inclusive: every buyer pays $10.00; the French one's $10.00 includes $1.67 of VAT.
    const france = previewRow(page, "France");
    await france.getByText("Includes $1.67 VAT (20%, France)").waitFor();
    await previewRow(page, "Washington (US)")
      .getByText(/^Includes \$\d+\.\d\d sales tax \(Washington\)$/)
      .waitFor();
    expect(await france.locator("td").allInnerTexts()).toEqual([
      "France\nIncludes $1.67 VAT (20%, France)",
      "$10.00",
      "$1.67",
      "$8.33",
      "$1.67",
      "$6.66",
    ]);
    await previewRow(page, "Germany (business with a VAT number)")
      .getByText("Reverse charge: the customer accounts for the VAT")
      .waitFor();

    // Another price: the table follows it; a price out of range says so and keeps the last table.
    const price = card(page).getByLabel("For a price of");
    await price.fill("25");
    await france.getByText("Includes $4.17 VAT (20%, France)").waitFor();
    await price.fill("0.10");
    await card(page).getByText("Enter a price from $0.50 to $10,000").waitFor();
    await price.fill("10");

    // Stripe Tax not answering: the preview says so and offers to try again.
    const unavailable = /\/api\/settings\/tax\/preview/;
    await page.route(unavailable, (route) =>
      route.fulfill({ status: 502, json: { message: TAX_SETTINGS_MESSAGES.unavailable } }),
    );
    await price.fill("11");
    await card(page).getByText(`Couldn't load the tax preview. ${TAX_SETTINGS_MESSAGES.unavailable}`).waitFor();
    await page.unroute(unavailable);
    await card(page).getByRole("button", { name: "Try again" }).click();
    await france.getByText("Includes $1.83 VAT (20%, France)").waitFor();
    await price.fill("10");

    await page.reload();
    await card(page).getByText("Prices include tax").waitFor();
    expect(
      await card(page)
        .getByLabel(/Always include tax/)
        .isChecked(),
    ).toBe(true);
    await previewRow(page, "France").getByText("Includes $1.67 VAT (20%, France)").waitFor();
    await shot(page, card(page), "tax-creator-settings-1280");

    // A phone: one block per buyer, nothing to scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await previewRow(page, "France").getByText("Includes $1.67 VAT (20%, France)").waitFor();
    await previewRow(page, "France").getByText("Pays $10.00 · tax $1.67 · net $8.33 · fee $1.67").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, card(page), "tax-creator-settings-390");
    // Only the 502 the test answered itself.
    expect(errors.filter((e) => !e.includes("502"))).toEqual([]);
    await context.close();
  });

  it("the sales table and the money timeline show a taxed sale's tax and net, at 1280 and 390 px", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("sales-tax"));
    const published = await page.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: { title: "VAT Guide", price: "12", accessType: "link", linkUrl: "https://example.com/guide" },
    });
    expect(published.status()).toBe(201);
    const { id } = (await published.json()) as { id: string };
    const { page: buyer, context: buyerContext } = await newPage(browser);
    await payByApi(buyer, id);
    await buyerContext.close();
    // The sale as the answers carry a French buyer's VAT (the worker tests check the server's figures;
    // here, how the screens show them): $12.00 paid, of which $2.00 VAT, net $10.00.
    const tax = { amount: 2, net: 10, type: "vat", rate: "20", country: "FR", region: null, reverseCharge: false };
    await page.route(/\/api\/(creator\/sales|earnings\/timeline)(\?|$)/, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      const taxed = (s: { productName: string }) => (s.productName === "VAT Guide" ? { ...s, tax } : s);
      const out = Array.isArray(body) ? body.map(taxed) : { ...body, items: body.items.map(taxed) };
      await route.fulfill({ response: res, json: out });
    });
    await page.goto("/dashboard");
    await page.getByRole("tab", { name: "Sales & Buyers" }).click();
    await page.getByTestId("sale-tax").getByText("VAT $2.00 · net $10.00").waitFor();
    expect(await page.getByTestId("sales-csv").getAttribute("href")).toBe("/api/creator/sales/export");
    const salesCard = page.getByTestId("sales-csv").locator("xpath=ancestor::*[@data-slot='card'][1]");
    await shot(page, salesCard, "tax-creator-sales-1280");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByTestId("sale-item").getByTestId("sale-tax").getByText("VAT $2.00 · net $10.00").waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(page, salesCard, "tax-creator-sales-390");

    await page.goto("/settings");
    const timeline = page.getByTestId("money-timeline");
    await timeline.getByTestId("sale-tax").getByText("VAT $2.00 · net $10.00").waitFor();
    await shot(page, timeline, "tax-creator-timeline-390");
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    // The CSV the button downloads: the sale with its gross, tax and net columns.
    const csv = await page.request.get("/api/creator/sales/export");
    expect(csv.status()).toBe(200);
    const [head, line] = (await csv.text()).split("\r\n");
    expect(head.split(",").slice(5, 8)).toEqual(["gross", "tax", "net"]);
    const [gross, taxCell, net] = line.split(",").slice(5, 8).map(Number);
    expect(gross).toBeGreaterThanOrEqual(12);
    expect(Math.round((gross - taxCell - net) * 100)).toBe(0);
    await context.close();
  });
});
