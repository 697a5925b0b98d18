// The funnel page's A/B Tests tab in a real browser: the creator starts a test of a step's
// offer, a buyer sees one of the two variants on the offer page, the tab counts that showing, and
// 'Make B the step' turns variant B into the step.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, liveFunnelOfItem, newPage, payByApi, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("A/B tests of funnel offers", () => {
  it("a test started on the tab splits the offer a buyer sees, counts it, and B becomes the step", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("ab-creator"));
    const { mainId } = await liveFunnelOfItem(page);

    await page.goto("/funnels");
    await page.getByTestId("funnel-item").first().click();
    await page.getByRole("tab", { name: "A/B Tests" }).click();
    await page.getByText("No A/B tests yet.").waitFor();
    await page.getByRole("button", { name: "Start test" }).click();
    await page.locator('[data-field-error="title"]').waitFor();
    await page.getByLabel("Variant B title").fill("Workbook at half price");
    await page.getByLabel("Variant B button text").fill("Yes, for $7");
    await page.getByLabel("Variant B price (optional)").fill("7");
    await page.getByRole("button", { name: "Start test" }).click();
    const card = page.getByTestId("ab-test");
    await card.getByText("Running").waitFor();
    await card.getByTestId("ab-readout").getByText("No buyer has seen both variants yet.").waitFor();

    // A buyer pays and is shown one variant of the offer.
    const buyer = await newPage(browser);
    await payByApi(buyer.page, mainId);
    let purchaseId = "";
    await expect
      .poll(
        async () => {
          const body = (await (await buyer.page.request.get(`/api/content/${mainId}/access`)).json()) as {
            owned: boolean;
            verification?: { purchase: { id: string } };
          };
          purchaseId = body.verification?.purchase.id ?? "";
          return body.owned;
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    await buyer.page.goto(`/checkout/upsell?purchase=${purchaseId}`);
    const title = (await buyer.page.getByTestId("upsell-title").textContent())!.trim();
    expect(["Add the workbook", "Workbook at half price"]).toContain(title);
    const shownVariant = title === "Add the workbook" ? "A" : "B";
    await buyer.page.reload();
    expect((await buyer.page.getByTestId("upsell-title").textContent())!.trim()).toBe(title);
    await buyer.context.close();

    await page.reload();
    await page.getByTestId("funnel-item").first().click();
    await page.getByRole("tab", { name: "A/B Tests" }).click();
    await expect.poll(() => page.getByTestId(`ab-shown-${shownVariant}`).textContent()).toBe("1");
    await page.screenshot({ path: screenshotPath("ab-tests-1280"), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: screenshotPath("ab-tests-390"), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.getByRole("button", { name: "Make B the step" }).click();
    await page.getByTestId("ab-test").getByText("Ended · B won").waitFor();
    await page.getByRole("tab", { name: "Upsell Steps" }).click();
    await page.getByTestId("step-row").getByText("Workbook at half price").waitFor();
    await context.close();
  });
});
