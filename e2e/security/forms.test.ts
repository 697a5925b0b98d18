// Forms show their errors beside the field: a creator submits the publish form, payout
// setup, the profile and a funnel step with missing or wrong values and finds each message under its
// field (the field aria-invalid and described by it), with what they typed still there. And a Pro
// creator's /pricing and /subscribe say "You're on Pro" instead of offering Pro again.
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

/**
 * The message shown beside `control`: the alert its aria-describedby names, found inside the field's
 * own container (at most three levels up). "" when the control is not marked invalid.
 */
const errorBeside = (control: Locator) =>
  control.evaluate((el) => {
    const ids = (el.getAttribute("aria-describedby") ?? "").split(/\s+/).filter(Boolean);
    const note = ids.map((id) => document.getElementById(id)).find((n) => n?.getAttribute("role") === "alert");
    if (el.getAttribute("aria-invalid") !== "true" || !note) return "";
    let box = el.parentElement;
    for (let i = 0; i < 3 && box && !box.contains(note); i++) box = box.parentElement;
    return box?.contains(note) ? (note.textContent ?? "") : `(far from its field: ${note.textContent})`;
  });

async function bothWidths(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: screenshotPath(`${name}-390`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 860 });
}

describe("form errors beside their fields", () => {
  it("publish, payout setup, profile and funnel step each show their problems under the field and keep what was typed", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("forms"));

    // New item: a title but no price and no file.
    await page.goto("/upload");
    await page.getByLabel("Title *").fill("Preset pack");
    await page.getByRole("button", { name: "Publish" }).click();
    await expect.poll(() => errorBeside(page.getByLabel("Price (USD) *"))).toBe("Please fill in title and price");
    expect(await errorBeside(page.getByLabel("Title *"))).toBe("");
    // The focus is on the field to fix.
    expect(await page.getByLabel("Price (USD) *").evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.getByLabel("Title *").inputValue()).toBe("Preset pack");
    await bothWidths(page, "forms-upload-errors");

    // Payout setup: an email but no method; profile: a support email that is not one.
    await page.goto("/settings");
    await page.getByLabel("Payout email").fill("me@paypal.example");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await expect
      .poll(() => errorBeside(page.getByLabel("Payout method")))
      .toBe("Please select a payout method and enter your email");
    expect(await errorBeside(page.getByLabel("Payout email"))).toBe("");
    expect(await page.getByLabel("Payout email").inputValue()).toBe("me@paypal.example");
    // The first invalid field has the focus.
    expect(await page.getByLabel("Payout method").evaluate((el) => el === document.activeElement)).toBe(true);

    await page.getByLabel("Support email").fill("not-an-email");
    await page.getByRole("button", { name: "Save profile" }).click();
    await expect
      .poll(() => errorBeside(page.getByLabel("Support email")))
      .toBe("Enter a valid support email address, like help@example.com");
    expect(await page.getByLabel("Support email").inputValue()).toBe("not-an-email");
    await bothWidths(page, "forms-settings-errors");

    // Funnel step: a new item for the step with a title and no price.
    const made = await page.request.post("/api/funnels", {
      headers: { origin: baseUrl() },
      data: { name: "Forms funnel" },
    });
    expect(made.status()).toBeLessThan(300);
    await page.goto("/funnels");
    await page.getByTestId("funnel-item").filter({ hasText: "Forms funnel" }).click();
    await page.getByRole("tab", { name: "Upsell Steps" }).click();
    await page.getByRole("button", { name: "Add Step" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("radio", { name: "A new item" }).click();
    await dialog.getByLabel("Title *").fill("Bonus stems");
    await dialog.getByRole("button", { name: "Add Step" }).click();
    await expect.poll(() => errorBeside(dialog.getByLabel("Price (USD) *"))).toBe("Please fill in title and price");
    expect(await dialog.getByLabel("Title *").inputValue()).toBe("Bonus stems");
    await bothWidths(page, "forms-funnel-step-errors");
    await context.close();
  });
});

describe("a Pro creator", () => {
  it("sees 'You're on Pro' on /pricing and /subscribe, with no way to buy Pro again", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("forms-pro"));
    // Pro as Stripe.js would make it: the first invoice's PaymentIntent confirmed at the stand-in,
    // whose webhooks then make the plan Pro.
    const started = await page.request.post("/api/create-subscription", { headers: { origin: baseUrl() } });
    expect(started.status()).toBe(200);
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    const confirm = await confirmAsStripeJs(clientSecret);
    expect(confirm.status).toBe(200);
    await expect
      .poll(async () => ((await (await page.request.get("/api/subscription")).json()) as { plan: string }).plan, {
        timeout: 15_000,
      })
      .toBe("pro");

    // The server refuses a second subscription (the page below never asks for one).
    expect((await page.request.post("/api/create-subscription", { headers: { origin: baseUrl() } })).status()).toBe(
      409,
    );

    await page.goto("/pricing");
    const card = page.getByTestId("pro-plan-card");
    await card.getByText("You're on Pro").waitFor();
    expect(await card.getByText(/Renews on \w{3} \d{1,2}, \d{4}/).count()).toBe(1);
    expect(await card.getByRole("link", { name: "Manage subscription" }).getAttribute("href")).toBe("/settings");
    expect(await page.getByRole("link", { name: "Upgrade to Pro" }).count()).toBe(0);
    await bothWidths(page, "forms-pricing-on-pro");

    await page.goto("/subscribe");
    const onPro = page.getByTestId("on-pro");
    await onPro.getByText("You're on Pro").waitFor();
    expect(await onPro.textContent()).toMatch(/Renews on \w{3} \d{1,2}, \d{4}/);
    expect(await onPro.getByRole("link", { name: "Back to dashboard" }).getAttribute("href")).toBe("/dashboard");
    expect(await page.getByText("Setup Error").count()).toBe(0);
    expect(await page.getByRole("button", { name: /^Subscribe for/ }).count()).toBe(0);
    await bothWidths(page, "forms-subscribe-on-pro");
    await context.close();
  });
});
