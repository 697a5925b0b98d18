// Funnels have one home, and their figures agree (docs/funnels.md): /funnels explains what a funnel
// is, shows each funnel's Test/Live switch and Preview beside its badge, names its items for what
// they do and keeps the step's own item out of them, says a Test funnel reaches no buyer, shows
// variant B's fields as empty with hints, and previews either variant; the editor's header at 390 px
// keeps the funnel name clear of the switch; an item's row counts bump sales apart from checkouts.
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, confirmAsStripeJs, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const headers = () => ({ origin: baseUrl() });
const TEST_NOTICE = "This funnel is in Test: no buyer sees it until it is Live.";

async function post(page: Page, path: string, data: unknown) {
  const res = await page.request.post(path, { headers: headers(), data });
  if (res.status() >= 300) throw new Error(`${path} ${res.status()}: ${await res.text()}`);
  return res.json();
}
async function item(page: Page, title: string, price = "20"): Promise<string> {
  const res = await page.request.post("/api/content", {
    headers: headers(),
    multipart: { title, price, accessType: "link", linkUrl: "https://example.com/x", category: "other" },
  });
  if (res.status() !== 201) throw new Error(`content ${res.status()}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** A signed-in creator with "Guide" ($20), a funnel in Test shown after it, and a step offering "Workbook" at $15. */
async function creatorWithFunnel(tag: string) {
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail(tag));
  const guideId = await item(page, "Guide");
  const workbookId = await item(page, "Workbook", "19");
  const funnel = (await post(page, "/api/funnels", { name: "Guide funnel" })) as { id: string };
  await post(page, `/api/funnels/${funnel.id}/products`, { contentIds: [guideId] });
  const step = (await post(page, `/api/funnels/${funnel.id}/steps`, {
    title: "Add the workbook",
    contentId: workbookId,
    price: "15",
    stepType: "upsell",
  })) as { id: string };
  return { page, context, guideId, workbookId, funnelId: funnel.id, stepId: step.id };
}

async function openFunnel(page: Page) {
  await page.goto("/funnels");
  await page.getByTestId("funnel-item").first().click();
  await page.getByRole("heading", { name: "Guide funnel" }).waitFor();
}

const overlaps = async (a: Locator, b: Locator) => {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  if (!x || !y) return true;
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
};

describe("funnels have one home", () => {
  it("the empty /funnels says what a funnel is; a funnel shows its Test/Live switch and Preview beside its badge", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("one-home-empty"));
    await page.goto("/funnels");
    await page.getByRole("heading", { name: "Sales Funnels" }).waitFor();
    await page.getByText("No funnels yet").first().waitFor();
    await page.screenshot({ path: screenshotPath("funnels-empty-1280"), fullPage: true });
    expect(await page.getByTestId("funnels-empty").textContent()).toContain(
      "After someone buys one of these items, show them these offers",
    );

    await post(page, "/api/funnels", { name: "Guide funnel" });
    await openFunnel(page);
    await page.getByText("No steps yet. Add the first offer buyers see after paying.").waitFor();
    await page.screenshot({ path: screenshotPath("funnels-detail-1280"), fullPage: true });
    const header = page.getByTestId("funnel-header");
    expect(await header.getByTestId("funnel-status").textContent()).toBe("Test");
    await header.getByRole("radio", { name: "Live" }).click();
    await expect.poll(() => header.getByTestId("funnel-status").textContent()).toBe("Live");
    await expect.poll(() => page.getByTestId("funnel-item").getByTestId("funnel-status").textContent()).toBe("Live");
    const preview = header.getByRole("link", { name: "Preview" });
    expect(await preview.getAttribute("href")).toMatch(/^\/checkout\/upsell\?preview=/);
    expect(await page.getByRole("tab", { name: "Show after buying" }).count()).toBe(1);
    // On the phone too: nothing pushes the page sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("tab", { name: "Show after buying" }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath("funnels-detail-390"), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await context.close();
  });

  it("'Show after buying' cannot include the item a step sells, in the page and at the API (a clear 400)", async () => {
    const { page, context, funnelId, workbookId } = await creatorWithFunnel("one-home-products");
    await openFunnel(page);
    await page.getByRole("tab", { name: /Products|Show after buying/ }).click();
    await page.getByText("Workbook").first().waitFor();
    await page.screenshot({ path: screenshotPath("funnels-show-after-1280"), fullPage: true });
    const workbook = page.getByRole("checkbox", { name: "Workbook" });
    expect(await workbook.isDisabled()).toBe(true);
    expect(await page.getByTestId(`product-${workbookId}`).textContent()).toContain("Offered in step 1");
    expect(await page.getByRole("checkbox", { name: "Guide" }).isChecked()).toBe(true);
    const res = await page.request.post(`/api/funnels/${funnelId}/products`, {
      headers: headers(),
      data: { contentIds: [workbookId] },
    });
    expect(res.status()).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      "Workbook is offered in step 1 of this funnel: a funnel is not shown after buying the item it offers",
    );
    await context.close();
  });

  it("adding a step or starting an A/B test on a funnel in Test says no buyer sees it until it is Live", async () => {
    const { page, context } = await creatorWithFunnel("one-home-notice");
    await item(page, "Stickers", "4");
    await openFunnel(page);
    await page.getByRole("button", { name: "Add Step" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Item to offer *").selectOption({ label: "Stickers ($4.00)" });
    await dialog.getByRole("button", { name: "Add Step" }).click();
    await page.getByText("Upsell step added successfully!", { exact: true }).first().waitFor();
    await page.screenshot({ path: screenshotPath("funnels-step-test-notice-1280"), fullPage: true });
    await page.getByText(TEST_NOTICE, { exact: true }).first().waitFor({ timeout: 2000 });

    await page.getByRole("tab", { name: "A/B Tests" }).click();
    await page.getByLabel("Variant B title").fill("Workbook, 30% off");
    await page.getByLabel("Variant B button text").fill("Yes please");
    await page.getByRole("button", { name: "Start test" }).click();
    await page.getByTestId("ab-test").getByText("Running").waitFor();
    await page.screenshot({ path: screenshotPath("funnels-ab-test-notice-1280"), fullPage: true });
    // The toast and the tab say so; nothing claims buyers see B yet.
    await page.getByRole("tabpanel").getByText(TEST_NOTICE, { exact: true }).waitFor({ timeout: 2000 });
    expect(await page.getByText(TEST_NOTICE, { exact: true }).count()).toBeGreaterThan(1);
    expect(await page.getByText("Half the buyers now see variant B.").count()).toBe(0);
    await context.close();
  });

  it("variant B's fields start empty, with muted hints that name variant A", async () => {
    const { page, context } = await creatorWithFunnel("one-home-placeholders");
    await openFunnel(page);
    await page.getByRole("tab", { name: "A/B Tests" }).click();
    const title = page.getByLabel("Variant B title");
    await title.waitFor();
    await page.screenshot({ path: screenshotPath("funnels-ab-placeholders-1280"), fullPage: true });
    const fields = [
      [title, "Variant A says “Add the workbook”"],
      [page.getByLabel("Variant B button text"), "Variant A says “Add this to my order”"],
      [page.getByLabel("Variant B price (optional)"), "Same as A ($15.00)"],
    ] as const;
    for (const [field, hint] of fields) {
      expect(await field.inputValue()).toBe("");
      expect(await field.getAttribute("placeholder")).toBe(hint);
      const look = await field.evaluate((el) => {
        const p = getComputedStyle(el, "::placeholder");
        return { style: p.fontStyle, placeholder: p.color, text: getComputedStyle(el).color };
      });
      expect(look.style).toBe("italic");
      expect(look.placeholder).not.toBe(look.text);
    }
    await context.close();
  });

  it("the preview walks either variant of a step under test", async () => {
    const { page, context, funnelId, stepId } = await creatorWithFunnel("one-home-preview");
    await post(page, `/api/funnels/${funnelId}/ab-tests`, {
      stepId,
      title: "Workbook, 30% off",
      ctaText: "Yes please",
      price: "10",
    });
    await page.goto(`/checkout/upsell?preview=${funnelId}`);
    await page.getByTestId("test-mode-banner").waitFor();
    await page.getByText("Add the workbook").first().waitFor();
    await page.screenshot({ path: screenshotPath("funnels-preview-variants-1280"), fullPage: true });
    const variants = page.getByRole("radiogroup", { name: "Variant to preview" });
    await variants.getByRole("radio", { name: "Variant B" }).click();
    await page.getByText("Workbook, 30% off").first().waitFor();
    await page.getByRole("button", { name: "Yes please" }).waitFor();
    expect(await page.getByText("$10.00").count()).toBeGreaterThan(0);
    await variants.getByRole("radio", { name: "Variant A" }).click();
    await page.getByText("Add the workbook").first().waitFor();
    await context.close();
  });
});

describe("the funnel editor at 390 px", () => {
  it("the Test/Live switch never covers the funnel name", async () => {
    const { page, context } = await newPage(browser);
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, uniqueEmail("one-home-editor"));
    const title = "Portra400LightroomPresetsBundleVolumeOne";
    const id = await item(page, title);
    await page.goto(`/content/${id}/edit-funnel`);
    const name = page.getByTestId("funnel-name");
    await name.waitFor();
    await page.screenshot({ path: screenshotPath("funnels-editor-header-390"), fullPage: true });
    expect(await name.textContent()).toBe(`${title} funnel`);
    expect(await overlaps(name, page.getByRole("radiogroup", { name: "Funnel mode" }))).toBe(false);
    expect(await overlaps(name, page.getByRole("button", { name: "Preview Funnel" }))).toBe(false);
    expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await context.close();
  });
});

describe("figures agree", () => {
  it("an item's row counts its sales as another item's order bump apart from its own checkouts", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("one-home-figures"));
    const mainId = await item(page, "Masterclass");
    const addOnId = await item(page, "Workbook", "12");
    const bump = await page.request.put(`/api/content/${mainId}/bump`, {
      headers: headers(),
      data: { contentId: addOnId, price: "7" },
    });
    expect(bump.status()).toBe(200);
    const buyer = await newPage(browser);
    const started = await buyer.page.request.post("/api/create-payment-intent", {
      headers: headers(),
      data: { contentId: mainId, bump: true, buyerEmail: "fan@example.com" },
    });
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    expect(
      (await confirmAsStripeJs(clientSecret, "4242424242424242", { receipt_email: "fan@example.com" })).status,
    ).toBe(200);
    await buyer.context.close();

    const row = (title: string) =>
      page.getByTestId("content-row").filter({ hasText: title }).getByTestId("link-funnel");
    await expect
      .poll(
        async () => {
          await page.goto("/");
          await row("Masterclass").waitFor();
          return row("Masterclass").textContent();
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toContain("Checkouts 1→ 0% drop →Paid 1");
    await row("Workbook").scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath("funnels-row-figures-1280"), fullPage: true });
    expect(await row("Workbook").textContent()).toContain("Checkouts 0→ — →Paid 0");
    expect(await row("Workbook").getByTestId("link-funnel-other-sales").textContent()).toBe(
      "Also sold 1 as an order bump",
    );
    await context.close();
  });
});
