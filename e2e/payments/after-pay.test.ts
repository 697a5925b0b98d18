// After paying, in a real browser: the success page of an order-bump order shows what the order
// charged, says the receipt already went and offers it again, and leads back to the creator's item;
// a refunded buyer's old access link says when it was refunded (and nothing more); a long file name
// fits a phone on the success page and the owned paywall. Behaviour: docs/payments.md.
import type { Browser, Page } from "playwright-core";
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

const LONG_NAME = "Portra-400-film-emulation-presets-for-lightroom-and-capture-one-vol1.zip";

async function publish(
  page: Page,
  multipart: Record<string, string | { name: string; mimeType: string; buffer: Buffer }>,
) {
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: { category: "other", ...multipart },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function buy(page: Page, id: string, email: string) {
  await page.goto(`/p/${id}`);
  await page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(page);
  await payWith(page, "4242 4242 4242 4242", email);
  await page.waitForURL(/\/success\?/);
  await page.getByText("Payment Successful!").waitFor();
}

/** Nothing on the page is wider than the window, and no text inside `el` is cut at its edge. */
async function fitsTheWindow(page: Page, selector: string) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  const boxes = await page.locator(selector).evaluateAll((els) =>
    els.map((el) => ({
      right: el.getBoundingClientRect().right,
      cut: el.scrollWidth > el.clientWidth + 1,
      width: window.innerWidth,
    })),
  );
  expect(boxes.length).toBeGreaterThan(0);
  for (const b of boxes) {
    expect(b.right).toBeLessThanOrEqual(b.width);
    expect(b.cut).toBe(false);
  }
}

describe("after paying", () => {
  it("an order-bump order's success page shows the total charged, the receipt already sent, and leads back to the item", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("after-pay-bump"));
    const link = { price: "20", accessType: "link", linkUrl: "https://example.com/x" };
    const mainId = await publish(page, { title: "Masterclass", ...link });
    const workbookId = await publish(page, { title: "Workbook", ...link, price: "12" });
    const set = await page.request.put(`/api/content/${mainId}/bump`, {
      headers: { origin: baseUrl() },
      data: { contentId: workbookId, price: "7" },
    });
    expect(set.status()).toBe(200);
    await context.close();

    const buyer = await newPage(browser);
    const errors = consoleErrors(buyer.page);
    await buyer.page.setViewportSize({ width: 1280, height: 900 });
    const email = uniqueEmail("bump-buyer");
    await buyer.page.goto(`/p/${mainId}`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    await buyer.page.getByLabel("Email", { exact: true }).fill(email);
    await buyer.page.getByRole("checkbox", { name: "Add Workbook for $7.00" }).check();
    await expect.poll(() => buyer.page.getByTestId("checkout-total").textContent()).toBe("$27.00");
    await checkoutOpened(buyer.page);
    await payWith(buyer.page, "4242 4242 4242 4242", email);
    await buyer.page.waitForURL(/\/success\?/);
    await buyer.page.getByText("Payment Successful!").waitFor();
    const addOns = buyer.page.getByTestId("order-add-ons");
    await addOns.getByText("Workbook").waitFor();
    await buyer.page.waitForLoadState("networkidle");
    await buyer.page.screenshot({ path: screenshotPath("after-pay-bump-success-1280"), fullPage: true });
    await addOns.getByTestId("order-total").waitFor({ timeout: 10_000 });

    expect(await addOns.getByTestId("order-total").textContent()).toBe("Total charged$27.00");
    const card = buyer.page.getByTestId("email-access");
    expect(await card.getByTestId("email-access-sent").textContent()).toBe(
      "We emailed your receipt and access link to b…@example.com.",
    );
    const back = buyer.page.getByRole("link", { name: "← Return to Masterclass" });
    expect(new URL((await back.getAttribute("href"))!, baseUrl()).pathname).toBe(`/p/${mainId}`);

    await card.getByRole("button", { name: "Send it again" }).click();
    await card.getByRole("button", { name: "Sent" }).waitFor();
    expect(await card.getByRole("button", { name: "Sent" }).isDisabled()).toBe(true);
    await expect.poll(() => mailCount(email, "Your access to Masterclass"), { timeout: 10_000 }).toBe(1);
    await back.click();
    await buyer.page.waitForURL(new RegExp(`/p/${mainId}$`));
    expect(errors).toEqual([]);
    await buyer.context.close();
  });

  it("a refunded buyer's old access link says when the order was refunded, and nothing more", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("after-pay-refunder"));
    const itemId = await publish(page, {
      title: "Refundable Guide",
      price: "10",
      accessType: "link",
      linkUrl: "https://example.com/guide",
    });
    const email = uniqueEmail("refunded-buyer");
    const buyer = await newPage(browser);
    await buyer.page.setViewportSize({ width: 1280, height: 900 });
    await buy(buyer.page, itemId, email);
    await buyer.page.waitForURL(/access=/);
    const accessLink = buyer.page.url();

    const [sale] = (await (await page.request.get("/api/creator/sales")).json()) as { id: string }[];
    const refund = await page.request.post(`/api/sales/${sale!.id}/refund`, {
      headers: { origin: baseUrl() },
      data: { reason: "requested_by_customer" },
    });
    expect(refund.status()).toBe(200);
    await expect
      .poll(
        async () => ((await (await page.request.get("/api/creator/sales")).json()) as { status: string }[])[0]?.status,
        {
          timeout: 15_000,
        },
      )
      .toBe("refunded");
    await context.close();

    const today = new Date().toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" });
    // A fresh browser holding only the link, then the browser that paid.
    const stranger = await newPage(browser);
    await stranger.page.setViewportSize({ width: 1280, height: 900 });
    await stranger.page.goto(accessLink);
    await stranger.page.getByRole("heading").first().waitFor();
    await stranger.page.waitForLoadState("networkidle");
    await stranger.page.screenshot({ path: screenshotPath("after-pay-refunded-link-1280"), fullPage: true });
    const heading = stranger.page.getByRole("heading", { name: /^This order was refunded on/ });
    await heading.waitFor({ timeout: 5000 });
    expect(await heading.textContent()).toBe(`This order was refunded on ${today}`);
    const text = await stranger.page.getByTestId("purchase-revoked").textContent();
    expect(text).toContain("Refundable Guide");
    expect(text).not.toContain("@");
    expect(text).not.toMatch(/\$\d/);
    expect(await stranger.page.getByText("Purchase Not Found").count()).toBe(0);
    await stranger.page.getByRole("link", { name: "Go to the item" }).click();
    await stranger.page.waitForURL(new RegExp(`/p/${itemId}$`));
    await stranger.context.close();

    await buyer.page.reload();
    await buyer.page.getByRole("heading", { name: `This order was refunded on ${today}` }).waitFor();
    await buyer.context.close();
  });

  it("at 390 px a long file name fits the success page and the owned paywall", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("after-pay-files"));
    const itemId = await publish(page, {
      title: "Film presets",
      price: "5",
      accessType: "download",
      file: { name: LONG_NAME, mimeType: "application/zip", buffer: Buffer.alloc(3000, 7) },
    });
    await context.close();

    const buyer = await newPage(browser);
    await buyer.page.setViewportSize({ width: 390, height: 844 });
    await buy(buyer.page, itemId, uniqueEmail("presets-buyer"));
    const download = buyer.page.getByRole("button", { name: /^Download/ });
    await download.waitFor();
    await buyer.page.screenshot({ path: screenshotPath("after-pay-long-name-success-390"), fullPage: true });
    // The owned paywall, in the same browser (it remembers the access link).
    const paywall = await buyer.context.newPage();
    await paywall.setViewportSize({ width: 390, height: 844 });
    await paywall.goto(`/p/${itemId}`);
    await paywall.getByTestId("purchase-access").waitFor();
    await paywall.screenshot({ path: screenshotPath("after-pay-long-name-paywall-390"), fullPage: true });

    await fitsTheWindow(buyer.page, "[data-testid=purchase-access] button");
    const name = buyer.page.getByTestId("purchase-access").locator(`[title="${LONG_NAME}"]`);
    expect(await name.textContent()).toMatch(/^Portra-400-.*…-vol1\.zip$/);
    await fitsTheWindow(paywall, `[data-testid=purchase-access] button, [title="${LONG_NAME}"]`);
    expect(await paywall.locator(`[title="${LONG_NAME}"]`).count()).toBeGreaterThanOrEqual(2);
    // On a wide screen the same page keeps the name on the button's one line.
    await paywall.setViewportSize({ width: 1280, height: 900 });
    await paywall.screenshot({ path: screenshotPath("after-pay-long-name-paywall-1280"), fullPage: true });
    await fitsTheWindow(paywall, `[data-testid=purchase-access] button, [title="${LONG_NAME}"]`);
    await buyer.context.close();
  });
});
