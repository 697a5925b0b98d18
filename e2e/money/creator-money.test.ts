// The creator's money in a real browser: payout setup, bank connect through the stand-in's hosted
// onboarding (finished and abandoned), Pro by card, and the money timeline of a fresh sale.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SALE_HOLD_DAYS } from "../../shared/payouts";
import {
  baseUrl,
  checkoutOpened,
  launch,
  newPage,
  screenshotPath,
  signIn,
  TEST_ZIP,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function fillCard(page: Page, card = "4242 4242 4242 4242") {
  await page.getByLabel("Card number").fill(card);
  await page.getByLabel("Expiration date").fill("12 / 34");
  await page.getByLabel("Security code").fill("123");
  await page.getByLabel("ZIP", { exact: true }).fill(TEST_ZIP);
}

/** Publishes a $10 link item as the signed-in creator of `page`. */
async function publish(page: Page, title: string): Promise<string> {
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: { title, price: "10", accessType: "link", linkUrl: "https://example.com/secret" },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** A buyer (another browser) pays for the item with 4242. */
async function buy(itemId: string) {
  const { page, context } = await newPage(browser);
  await page.goto(`/p/${itemId}`);
  await page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(page);
  await page.getByLabel("Email", { exact: true }).fill(uniqueEmail("buyer"));
  await fillCard(page);
  await page.getByRole("button", { name: /^Pay \$/ }).click();
  await page.getByText("Payment Successful!").waitFor();
  await context.close();
}

describe("payout setup", () => {
  it("a creator sets up PayPal payouts and sees 'Payouts Enabled'; a missing email is refused", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("paypal"));
    await page.goto("/");
    await page.getByText("Payouts Not Set Up").waitFor();
    await page.goto("/settings");
    await page.getByText("How payouts work").waitFor();

    await page.getByRole("combobox", { name: "Payout method" }).click();
    await page.getByRole("option", { name: "PayPal" }).click();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Please select a payout method and enter your email").first().waitFor();
    await page.getByText("Setup Failed").first().waitFor();

    await page.getByLabel("Payout email").fill("me@paypal.example");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Payouts Enabled · PayPal · me@paypal.example").waitFor();
    await page.screenshot({ path: screenshotPath("settings-paypal"), fullPage: true });

    await page.goto("/");
    await page.getByText("Payouts Enabled · PayPal · me@paypal.example").waitFor();
    // 'Bank transfer' is no manual method: bank payouts go through "Connect bank account".
    await page.goto("/settings");
    await page.getByRole("combobox", { name: "Payout method" }).click();
    expect(await page.getByRole("option").allTextContents()).toEqual(["PayPal", "Wise", "Zelle", "Venmo", "Cash App"]);
    await context.close();
  });
});

describe("bank connect", () => {
  it("connects a bank through the stand-in's onboarding and sees 'Bank Account Connected!'; their PayPal is kept and they choose the default", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("bank"));
    expect(
      (
        await page.request.post("/api/payout/setup", {
          headers: { origin: baseUrl() },
          data: { payoutMethod: "paypal", payoutEmail: "kept@paypal.example" },
        })
      ).status(),
    ).toBe(200);
    await page.goto("/settings");
    await page.getByRole("button", { name: "Connect bank account" }).click();
    await page.getByRole("button", { name: "Submit details" }).click();
    await page.waitForURL(/\/connect\?connected=true/);
    await page.getByText("Bank Account Connected!").waitFor();
    await page.getByRole("button", { name: "Open payout dashboard" }).waitFor();
    await page.screenshot({ path: screenshotPath("connect-done"), fullPage: true });
    await page.goto("/");
    await page.getByText("Payouts Enabled · Bank account (Stripe)").waitFor();

    // Connecting did not erase PayPal: the creator picks it as the default in /settings.
    await page.goto("/settings");
    await page.getByRole("radio", { name: "PayPal (kept@paypal.example)" }).check();
    await page.getByText("Payouts Enabled · PayPal · kept@paypal.example").waitFor();
    expect(await page.getByRole("radio", { name: "Bank account (Stripe)" }).isChecked()).toBe(false);
    await context.close();
  });

  it("abandoning the onboarding shows 'Setup Interrupted'", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("bank-left"));
    await page.goto("/settings");
    await page.getByRole("button", { name: "Connect bank account" }).click();
    await page.getByRole("link", { name: "Return to the platform without finishing" }).click();
    await page.waitForURL(/\/connect\?refresh=true/);
    await page.getByText("Setup Interrupted").waitFor();
    await page.screenshot({ path: screenshotPath("connect-interrupted"), fullPage: true });
    await context.close();
  });
});

describe("Pro and the money timeline", () => {
  it("subscribes to Pro with 4242, sees the plan, and a fresh sale books 0% fee and shows 'On hold until {date}'", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("pro"));
    await page.goto("/pricing");
    await page.getByRole("link", { name: "Upgrade to Pro" }).click();
    await page.waitForURL(/\/subscribe$/);
    await page.getByLabel("Card number").waitFor();
    await page.screenshot({ path: screenshotPath("subscribe"), fullPage: true });
    await fillCard(page);
    await page.getByRole("button", { name: /^Subscribe for \$99/ }).click();
    await page.waitForURL(/\/dashboard$/);
    await page.getByText("Welcome to Pro!").first().waitFor();

    // The plan comes from Stripe's webhook; the settings page shows it once it has arrived.
    await expect
      .poll(
        async () => {
          await page.goto("/settings");
          await page.getByTestId("plan-card").waitFor();
          await page
            .getByTestId("plan-card")
            .getByText(/Your plan|Pro|Creator/)
            .first()
            .waitFor();
          return page.getByTestId("plan-card").textContent();
        },
        { timeout: 15_000, interval: 500 },
      )
      .toContain("Pro · 0% platform fee");
    expect(await page.getByTestId("plan-card").textContent()).toMatch(/Renews on \w{3} \d{1,2}, \d{4}/);

    const itemId = await publish(page, "Pro Beats");
    await buy(itemId);
    const until = new Date(Date.now() + SALE_HOLD_DAYS * 86_400_000).toLocaleDateString("en-US", {
      month: "short",
      day: "numeric",
      year: "numeric",
      timeZone: "UTC",
    });
    await expect
      .poll(
        async () => {
          await page.goto("/settings");
          await page.getByText("Where your money is").waitFor();
          await page.getByTestId("money-timeline").or(page.getByText("No sales yet")).first().waitFor();
          return (await page.getByTestId("money-timeline").count())
            ? page.getByTestId("money-timeline").textContent()
            : "";
        },
        { timeout: 15_000, interval: 500 },
      )
      .toContain("Pro Beats");
    const row = await page.getByTestId("money-timeline").textContent();
    // Pro: the creator's share of a $10 sale is all of it.
    expect(row).toContain("sale $10.00 · your share $10.00");
    expect(row).toContain(`On hold until ${until}`);
    expect(await page.getByTestId("earnings-overview").textContent()).toContain("On hold$10.00");
    await page.screenshot({ path: screenshotPath("settings-pro-timeline"), fullPage: true });
    await context.close();
  });
});

describe("analytics", () => {
  it("the dashboard chart and the row's funnel show a view and a sale made in the test", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("analytics"));
    const itemId = await publish(page, "Funnel Pack");
    // The buyer's visit to the paywall is the view (counted through the views queue); then the sale.
    await buy(itemId);

    await expect
      .poll(
        async () => {
          await page.goto("/");
          await page.getByTestId("analytics-totals").waitFor();
          return page.getByTestId("analytics-totals").textContent();
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toMatch(/Views1Checkouts started1Sales1Conversion100%Revenue \(after refunds\)\$8\.00/);
    await page.getByTestId("analytics-chart").locator(".recharts-surface").first().waitFor();
    const funnel = page.getByTestId("content-row").filter({ hasText: "Funnel Pack" }).getByTestId("link-funnel");
    await expect.poll(() => funnel.textContent()).toContain("Views 1→ 0% drop →Checkouts 1→ 0% drop →Paid 1");
    await page.getByTestId("analytics-panel").scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath("dashboard-analytics"), fullPage: true });

    // 7 days says the same; the range buttons switch it.
    await page.getByRole("button", { name: "7 days" }).click();
    await expect.poll(() => page.getByTestId("analytics-totals").textContent()).toContain("Sales1");
    await context.close();
  });
});
