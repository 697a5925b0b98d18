// What a buyer sees of tax in both checkouts, in Chromium against wrangler dev and the Stripe stand-in
// (docs/tax.md, "What the buyer sees"): the edge's estimate before anything is typed, the card's
// billing address deciding at Pay (a 409 shows the new total, and Pay again charges it), a business
// buyer's VAT number, the one-click offer's tax line, and the tax invoice from the success page.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSED_CHECK } from "../../dev/local-app.mjs";
import { VAT_ID_INVALID } from "../../shared/tax";
import {
  baseUrl,
  checkoutOpened,
  launch,
  liveFunnelOfItem,
  newPage,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

/** What both checkouts say after a 409 (web/lib/pay-on-server.ts), word for word. */
const TAX_UPDATED = "Tax updated for your billing address. Review the total and press Pay again.";

let browser: Browser;
let itemId: string;
beforeAll(async () => {
  browser = await launch();
  // One creator's $10.00 item, tax behaviour "auto" (the default): VAT included in Europe, sales tax
  // on top in the US.
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail("tax-ui-creator"));
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: {
      title: "Field guide",
      price: "10",
      accessType: "link",
      linkUrl: "https://example.com/guide",
      category: "other",
    },
  });
  expect(res.status()).toBe(201);
  itemId = ((await res.json()) as { id: string }).id;
  await context.close();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * A buyer whom the edge places at `geo` ("FR", "US-WA-98101"): the dev header `x-apewall-dev-geo` on
 * the app's own requests (the Stripe stand-in's origin does not allow it, as Stripe's would not).
 */
async function buyerAt(geo: string, width: number): Promise<{ context: BrowserContext; page: Page }> {
  const buyer = await newPage(browser);
  await buyer.page.setViewportSize({ width, height: width < 600 ? 844 : 860 });
  const origin = new URL(baseUrl()).origin;
  await buyer.context.route(
    (url) => url.origin === origin,
    (route) => route.continue({ headers: { ...route.request().headers(), "x-apewall-dev-geo": geo } }),
  );
  return buyer;
}

/** The stand-in Payment Element: a card, and the billing address Stripe collects for tax (`country`: "FR"). */
async function fillCard(page: Page, country: string, postalCode?: string) {
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiration date").fill("12 / 34");
  await page.getByLabel("Security code").fill("123");
  await page.getByLabel("Country").selectOption(country);
  if (postalCode) await page.getByLabel(/ZIP|Postal code/).fill(postalCode);
}

const text = async (page: Page, testId: string) => (await page.getByTestId(testId).textContent())?.trim();
const cents = (money: string) => Math.round(Number(money.replace(/[^\d.]/g, "")) * 100);
const noSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth).then((ok) => expect(ok).toBe(true));

describe("tax in the one-page checkout", () => {
  it("a buyer in France at 390 px sees the VAT the price includes before paying, pays, and downloads the invoice", async () => {
    const { page, context } = await buyerAt("FR", 390);
    await page.goto(`/p/${itemId}`);
    await page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(page);
    // From the first answer, before anything is typed: the price as set, the VAT it includes, the total.
    expect(await text(page, "checkout-tax")).toBe("Includes $1.67 VAT (20%, France)");
    expect(await text(page, "checkout-total")).toBe("$10.00");
    expect(await page.getByRole("button", { name: "Pay $10.00" }).count()).toBe(1);
    await noSideways(page);
    await page.screenshot({ path: screenshotPath("tax-ui-paywall-france-390"), fullPage: true });

    await page.getByLabel("Email", { exact: true }).fill(uniqueEmail("tax-ui-fr"));
    await fillCard(page, "FR");
    await page.getByRole("button", { name: "Pay $10.00" }).click();
    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    const invoice = page.getByRole("link", { name: "Download invoice (PDF)" });
    await invoice.waitFor({ timeout: 15_000 });
    const [download] = await Promise.all([page.waitForEvent("download"), invoice.click()]);
    const path = await download.path();
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(path).subarray(0, 5).toString()).toBe("%PDF-");
    await noSideways(page);
    await page.screenshot({ path: screenshotPath("tax-ui-success-france-390"), fullPage: true });
    await context.close();
  });

  it("a buyer in Washington sees the sales tax added on top, and the total to pay with it", async () => {
    const { page, context } = await buyerAt("US-WA-98101", 1280);
    await page.goto(`/p/${itemId}`);
    await page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(page);
    const line = (await text(page, "checkout-tax")) ?? "";
    const tax = /^\+ (\$\d+\.\d{2}) sales tax \(Washington\)$/.exec(line)?.[1];
    expect(tax, line).toBeTruthy();
    const total = (await text(page, "checkout-total")) ?? "";
    expect(cents(total)).toBe(1000 + cents(tax!));
    // The page's price stays the creator's; the item's line too.
    expect(await text(page, "paywall-price")).toBe("$10.00");
    expect(await page.getByRole("button", { name: `Pay ${total}` }).count()).toBe(1);
    await page.screenshot({ path: screenshotPath("tax-ui-paywall-washington-1280"), fullPage: true });

    await page.getByLabel("Email", { exact: true }).fill(uniqueEmail("tax-ui-wa"));
    await fillCard(page, "US", "98101");
    await page.getByRole("button", { name: `Pay ${total}` }).click();
    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    await context.close();
  });

  it("when the card's billing address disagrees with the edge, the new tax and total show and Pay again charges them", async () => {
    const { page, context } = await buyerAt("US-WA-98101", 390);
    await page.goto(`/p/${itemId}`);
    await page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(page);
    expect(await text(page, "checkout-tax")).toMatch(/^\+ \$\d+\.\d{2} sales tax \(Washington\)$/);
    const estimated = (await text(page, "checkout-total")) ?? "";

    await page.getByLabel("Email", { exact: true }).fill(uniqueEmail("tax-ui-moved"));
    await fillCard(page, "FR");
    await page.getByRole("button", { name: `Pay ${estimated}` }).click();
    // Not charged: the billing address (France) decides; the page says so and Pay is on again.
    await page.getByTestId("checkout-tax-notice").getByText(TAX_UPDATED).waitFor();
    expect(await text(page, "checkout-tax")).toBe("Includes $1.67 VAT (20%, France)");
    expect(await text(page, "checkout-total")).toBe("$10.00");
    const pay = page.getByRole("button", { name: "Pay $10.00" });
    await expect.poll(() => pay.isEnabled()).toBe(true);
    expect(new URL(page.url()).pathname).toBe(`/p/${itemId}`);
    await noSideways(page);
    await page.screenshot({ path: screenshotPath("tax-ui-paywall-tax-updated-390"), fullPage: true });
    await pay.click();
    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    await context.close();
  });
});

describe("tax on the one-click offer", () => {
  it("a buyer in France at 390 px sees the offer's VAT under its price, on the first purchase's evidence", async () => {
    const { page: creator, context: creatorContext } = await newPage(browser);
    await signIn(creator, uniqueEmail("tax-ui-funnel"));
    const { mainId } = await liveFunnelOfItem(creator);
    await creatorContext.close();

    const { page, context } = await buyerAt("FR", 390);
    await page.goto(`/p/${mainId}`);
    await page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(page);
    expect(await text(page, "checkout-tax")).toBe("Includes $3.33 VAT (20%, France)");
    await page.getByLabel("Email", { exact: true }).fill(uniqueEmail("tax-ui-offer"));
    await fillCard(page, "FR");
    await page.getByRole("button", { name: "Pay $20.00" }).click();
    await page.waitForURL(/\/checkout\/upsell\?/);
    await page.getByTestId("upsell-title").getByText("Add the workbook").waitFor();
    expect(await text(page, "upsell-price")).toBe("$15.00");
    expect(await text(page, "upsell-tax")).toBe("Includes $2.50 VAT (20%, France)");
    await noSideways(page);
    await page.screenshot({ path: screenshotPath("tax-ui-upsell-france-390"), fullPage: true });
    await page.getByRole("button", { name: "Add this to my order" }).click();
    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    await context.close();
  });
});

/** A checkout this browser started (its buyer cookie), opened on /checkout/{id} as older links do. */
async function appCheckout(page: Page, geo: string) {
  const started = await page.request.post("/api/create-payment-intent", {
    headers: { origin: baseUrl(), ...PASSED_CHECK, "x-apewall-dev-geo": geo },
    data: { contentId: itemId },
  });
  expect(started.status()).toBe(200);
  const { clientSecret, amount } = (await started.json()) as { clientSecret: string; amount: number };
  await page.goto(
    `/checkout/${itemId}?${new URLSearchParams({ payment_intent: clientSecret, amount: String(amount) })}`,
  );
}

describe("tax in the app's checkout page", () => {
  it("at 1280: a billing address that disagrees with the edge shows the new tax and total, and Pay again charges them", async () => {
    const { page, context } = await buyerAt("US-WA-98101", 1280);
    await appCheckout(page, "US-WA-98101");
    const summary = page.getByRole("region", { name: "Order summary" });
    await summary
      .getByTestId("checkout-tax")
      .getByText(/^\+ \$\d+\.\d{2} sales tax \(Washington\)$/)
      .waitFor();
    const estimated = (await text(page, "checkout-total")) ?? "";
    expect(cents(estimated)).toBeGreaterThan(1000);
    await page.getByLabel("Email", { exact: true }).fill(uniqueEmail("tax-ui-app-moved"));
    await fillCard(page, "FR");
    await page.getByRole("button", { name: `Pay ${estimated}` }).click();
    await page.getByTestId("checkout-tax-notice").getByText(TAX_UPDATED).waitFor();
    expect(await text(page, "checkout-tax")).toBe("Includes $1.67 VAT (20%, France)");
    expect(await text(page, "checkout-total")).toBe("$10.00");
    const pay = page.getByRole("button", { name: "Pay $10.00" });
    await expect.poll(() => pay.isEnabled()).toBe(true);
    await page.screenshot({ path: screenshotPath("tax-ui-checkout-tax-updated-1280"), fullPage: true });
    await pay.click();
    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    await context.close();
  });

  it("at 1280: the tax line on opening, a VAT number refused then applied (reverse charge), and paying", async () => {
    const { page, context } = await buyerAt("FR", 1280);
    await appCheckout(page, "FR");
    const summary = page.getByRole("region", { name: "Order summary" });
    await summary.getByTestId("checkout-tax").getByText("Includes $1.67 VAT (20%, France)").waitFor();
    expect(await text(page, "checkout-total")).toBe("$10.00");

    await page.getByRole("button", { name: "Buying as a business? Add a VAT number" }).click();
    await page.getByLabel("VAT number").fill("FR123");
    await page.getByRole("button", { name: "Apply" }).last().click();
    await page
      .getByRole("alert")
      .getByText(VAT_ID_INVALID.replace(/^VAT number: /, ""))
      .waitFor();
    expect(await text(page, "checkout-tax")).toBe("Includes $1.67 VAT (20%, France)");
    await page.screenshot({ path: screenshotPath("tax-ui-checkout-vat-refused-1280"), fullPage: true });

    await page.getByLabel("VAT number").fill("FR 40 303265045");
    await page.getByRole("button", { name: "Apply" }).last().click();
    await page.getByTestId("checkout-vat").getByText("VAT number FR40303265045 applied.").waitFor();
    await summary.getByTestId("checkout-tax").getByText("Reverse charge: the customer accounts for the VAT").waitFor();
    const total = (await text(page, "checkout-total")) ?? "";
    await page.screenshot({ path: screenshotPath("tax-ui-checkout-reverse-charge-1280"), fullPage: true });

    await page.getByLabel("Email", { exact: true }).fill(uniqueEmail("tax-ui-business"));
    await page.getByLabel("Email", { exact: true }).blur();
    await fillCard(page, "FR");
    await page.getByRole("button", { name: `Pay ${total}` }).click();
    await page.waitForURL(/\/success\?/);
    await page.getByText("Payment Successful!").waitFor();
    await context.close();
  });
});
