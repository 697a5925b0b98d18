// Funnels a creator can find and use, in the browser: the creator goes from the navigation
// to /funnels, attaches a funnel to an item and adds steps from items they already sell (no price id
// anywhere), opens the same funnel from 'Edit funnel' and goes Live; a buyer pays, sees the order
// confirmed, accepts, sees what was charged and the running total, and the success page's total is
// what was charged.
import type { Browser, Page } from "playwright-core";
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

const origin = () => ({ origin: baseUrl() });
async function publish(page: Page, title: string, price: string) {
  const res = await page.request.post("/api/content", {
    headers: origin(),
    multipart: {
      title,
      price,
      accessType: "link",
      linkUrl: `https://example.com/${title.toLowerCase().replace(/\W+/g, "-")}`,
      category: "other",
    },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe("funnels a creator can find and use", () => {
  it("a creator attaches a funnel to an item from /funnels and adds steps from their own items; a buyer sees each charge and the total", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("funnel-usable"));
    const mainId = await publish(page, "Main course", "12");
    await publish(page, "Workbook", "19");
    await publish(page, "Stickers", "4");

    // Funnels is in the main navigation.
    await page.goto("/");
    await page.getByRole("link", { name: "Funnels" }).click();
    await page.waitForURL((url) => url.pathname === "/funnels");
    await page.getByRole("button", { name: "Create Funnel" }).click();
    await page.getByLabel("Funnel name").fill("Main course funnel");
    await page.getByRole("dialog").getByRole("button", { name: "Create Funnel" }).click();
    await page.getByText("Funnel created successfully!", { exact: true }).waitFor();
    // One status, the same in the list and the detail.
    const listed = page.getByTestId("funnel-item").filter({ hasText: "Main course funnel" });
    expect(await listed.getByTestId("funnel-status").textContent()).toBe("Test");
    await page.getByRole("heading", { name: "Main course funnel" }).waitFor();
    expect(await page.getByRole("main").getByTestId("funnel-status").allTextContents()).toEqual(["Test", "Test"]);
    expect(await page.getByRole("tab", { name: "A/B Tests" }).count()).toBe(1);

    // Attach it to the item it sells after.
    await page.getByRole("tab", { name: "Show after buying" }).click();
    await page.getByRole("checkbox", { name: "Main course" }).check();
    await expect
      .poll(
        async () =>
          ((await (await page.request.get("/api/funnels")).json()) as { contentIds: string[] }[])[0].contentIds,
      )
      .toEqual([mainId]);

    // A step from an existing item: nothing to choose yet shows beside the field; no price id anywhere.
    await page.getByRole("tab", { name: "Upsell Steps" }).click();
    await page.getByRole("button", { name: "Add Step" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Add Step" }).click();
    await dialog.getByText("Choose one of your items, or create one for this step", { exact: true }).waitFor();
    expect(await dialog.getByText(/price id|price_/i).count()).toBe(0);
    await dialog.getByLabel("Item to offer *").selectOption({ label: "Workbook ($19.00)" });
    expect(await dialog.getByLabel("Title buyers see *").inputValue()).toBe("Workbook");
    await dialog.getByRole("button", { name: "Add Step" }).click();
    await page.getByText("Upsell step added successfully!", { exact: true }).first().waitFor();
    await expect.poll(() => page.getByTestId("step-row").count()).toBe(1);
    await page.getByRole("button", { name: "Add Step" }).click();
    await page.getByRole("dialog").getByLabel("Item to offer *").selectOption({ label: "Stickers ($4.00)" });
    await page.getByRole("dialog").getByRole("button", { name: "Add Step" }).click();
    await expect.poll(() => page.getByTestId("step-row").count()).toBe(2);
    expect(await page.getByTestId("step-row").allTextContents()).toEqual([
      expect.stringContaining("Workbook"),
      expect.stringContaining("Stickers"),
    ]);
    await page.getByRole("dialog").waitFor({ state: "detached" });
    await page.screenshot({ path: screenshotPath("funnels-usable-steps"), fullPage: true });

    // 'Edit funnel' on the item opens the same funnel (never "No Funnel Found"); Live there is Live in the list.
    await page.goto("/");
    await page
      .getByTestId("content-row")
      .filter({ hasText: "Main course" })
      .getByRole("link", { name: "Edit funnel" })
      .click();
    await page.getByText('Managing funnel for "Main course"').waitFor();
    expect(await page.getByTestId("funnel-name").textContent()).toBe("Main course funnel");
    await expect.poll(() => page.getByTestId("step-row").count()).toBe(2);
    await page.getByRole("radio", { name: "Live" }).click();
    await expect.poll(() => page.getByTestId("funnel-status").textContent()).toBe("Live");
    await page.goto("/funnels");
    await expect.poll(() => page.getByTestId("funnel-item").getByTestId("funnel-status").textContent()).toBe("Live");
    await context.close();

    // The buyer: the order confirmed first, then each charge as the server says it, then the total.
    const buyer = await newPage(browser);
    await buyer.page.goto(`/p/${mainId}`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    await buyer.page.getByLabel("Card number").waitFor();
    await payWith(buyer.page, "4242 4242 4242 4242", uniqueEmail("fan"));
    await buyer.page.waitForURL(/\/checkout\/upsell\?/);
    await expect
      .poll(() => buyer.page.getByTestId("order-paid").textContent())
      .toContain("✓ Paid $12.00 — your item is ready");
    expect(await buyer.page.getByTestId("order-access").getAttribute("href")).toContain("access=");
    expect(await buyer.page.getByTestId("upsell-title").textContent()).toBe("Workbook");
    await buyer.page.getByRole("button", { name: "Add this to my order" }).click();
    await expect.poll(() => buyer.page.getByTestId("upsell-title").textContent()).toBe("Stickers");
    expect(await buyer.page.getByTestId("order-added").textContent()).toContain("Added — $19.00 charged");
    expect(await buyer.page.getByTestId("order-running-total").textContent()).toBe("Order total$31.00");
    await buyer.page.screenshot({ path: screenshotPath("funnels-usable-added"), fullPage: true });
    await buyer.page.getByRole("button", { name: "No thanks" }).click();
    await buyer.page.waitForURL(/\/success\?/);
    await expect.poll(() => buyer.page.getByTestId("order-total").textContent()).toBe("Total charged$31.00");
    await buyer.page.screenshot({ path: screenshotPath("funnels-usable-success"), fullPage: true });
    await buyer.context.close();
  });
});
