// /discounts and the signed-in header on a phone (390 px): the amount field is as wide as its label,
// usage lines wrap instead of being cut, "Copy link" copies the item's paywall link with the code
// (docs/checkout-and-codes.md "Discount codes"), and the header's menu names every page in words.
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

const PHONE = { width: 390, height: 844 };
const TITLE = "Portra 400 Film Presets — the Complete Collection, volume one";

let browser: Browser;
let page: Page;
let context: BrowserContext;
let itemId = "";
const origin = () => ({ origin: baseUrl() });

beforeAll(async () => {
  browser = await launch();
  ({ page, context } = await newPage(browser));
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl() });
  await signIn(page, uniqueEmail("codes-phone"));
  const item = await page.request.post("/api/content", {
    headers: origin(),
    multipart: { title: TITLE, price: "40", accessType: "link", linkUrl: "https://example.com/x", category: "other" },
  });
  expect(item.status(), await item.text()).toBe(201);
  itemId = ((await item.json()) as { id: string }).id;
  for (const data of [
    { code: "SPRING-LAUNCH-2026-EARLY-BIRDS", kind: "fixed", amountOff: "12.50", contentId: itemId, maxUses: 1000 },
    { code: "WELCOME", kind: "percent", percentOff: 10, expiresOn: "2099-12-31", maxUsesPerBuyer: 1 },
  ]) {
    const res = await page.request.post("/api/discounts", { headers: origin(), data });
    expect(res.status(), await res.text()).toBe(201);
  }
  await page.setViewportSize(PHONE);
});
afterAll(async () => {
  await browser?.close();
});

const width = async (p: Page, label: string) => (await p.getByLabel(label, { exact: true }).boundingBox())!.width;

describe("/discounts on a phone", () => {
  it("the amount field is as wide as its label, usage lines are whole, and Copy link copies the item's link with the code", async () => {
    await page.goto("/discounts");
    const row = page.getByTestId("discount-row").filter({ hasText: "SPRING-LAUNCH-2026-EARLY-BIRDS" });
    await row.waitFor();
    await page.getByRole("button", { name: "New code" }).click();
    await page.getByLabel("Percent off", { exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath("dashboard-phone-discounts-390"), fullPage: true });

    // Every field of the form, the amount too, spans its column: as wide as the label above it.
    const full = await width(page, "Code");
    expect(Math.abs((await width(page, "Percent off")) - full)).toBeLessThanOrEqual(1);
    await page.getByLabel("Discount", { exact: true }).selectOption({ label: "Amount off ($)" });
    expect(Math.abs((await width(page, "Amount off ($)")) - full)).toBeLessThanOrEqual(1);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);

    // The usage line wraps: nothing in it is cut off or ends in an ellipsis.
    const usage = row.getByTestId("discount-usage");
    expect(await usage.textContent()).toBe(`${TITLE} · 0 of 1,000 used`);
    expect(await usage.evaluate((el) => el.scrollWidth <= el.clientWidth && getComputedStyle(el).textOverflow)).toBe(
      "clip",
    );
    const welcome = page.getByTestId("discount-row").filter({ hasText: "WELCOME" });
    expect(await welcome.getByTestId("discount-usage").textContent()).toBe(
      "All items · 0 used · 1 per buyer · until 12/31/2099",
    );

    // "Copy link": the item's paywall link with the code applied, and the button says so.
    await row.getByRole("button", { name: "Copy link" }).click();
    await row.getByRole("button", { name: "Copied" }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(`${baseUrl()}/p/${itemId}?code=SPRING-LAUNCH-2026-EARLY-BIRDS`);
    // A code for every item: the creator picks the item whose link to copy.
    await welcome.getByLabel("Copy link for").selectOption({ label: TITLE });
    await welcome.getByText("Copied", { exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${baseUrl()}/p/${itemId}?code=WELCOME`);
    await page.screenshot({ path: screenshotPath("dashboard-phone-discounts-copied-390"), fullPage: true });

    // The link opens the paywall at the code's price.
    await page.goto(copied);
    await page.getByText("Code SPRING-LAUNCH-2026-EARLY-BIRDS: $12.50 off").waitFor();
    expect(await page.getByTestId("paywall-price").textContent()).toContain("$27.50");
  });

  it("the phone header is a menu of pages named in words, Dashboard among them, the tag beside Discounts", async () => {
    await page.goto("/discounts");
    const banner = page.getByRole("banner");
    await banner.getByRole("button", { name: "Menu" }).click();
    const menu = page.getByRole("navigation", { name: "Pages" });
    await menu.getByRole("link", { name: "Dashboard" }).waitFor();
    await page.screenshot({ path: screenshotPath("dashboard-phone-header-390") });
    for (const name of ["Dashboard", "Funnels", "Discounts", "Pricing", "Feedback", "Settings"]) {
      const link = menu.getByRole("link", { name });
      // The word is on the screen, not only in an aria-label.
      expect(await link.textContent()).toBe(name);
      expect(await link.isVisible()).toBe(true);
    }
    expect(await menu.getByRole("button", { name: "Log out" }).textContent()).toBe("Log out");
    // The page you are on is marked, and each icon is the one its word needs.
    expect(await menu.getByRole("link", { name: "Discounts" }).getAttribute("aria-current")).toBe("page");
    expect(await menu.getByRole("link", { name: "Discounts" }).locator("svg.lucide-tag").count()).toBe(1);
    expect(await menu.getByRole("link", { name: "Pricing" }).locator("svg.lucide-tag").count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);

    await menu.getByRole("link", { name: "Dashboard" }).click();
    await page.getByText("Content & Uploads").waitFor();
    // The menu closes once a page is chosen.
    expect(await page.getByRole("navigation", { name: "Pages" }).count()).toBe(0);

    // On a wide screen the same pages are in the bar itself, in words.
    await page.setViewportSize({ width: 1280, height: 860 });
    for (const name of ["Dashboard", "Funnels", "Discounts", "Pricing", "Feedback", "Settings"])
      expect(await banner.getByRole("link", { name }).textContent()).toBe(name);
    await page.screenshot({ path: screenshotPath("dashboard-phone-header-1280") });
    await page.setViewportSize(PHONE);
  });
});
