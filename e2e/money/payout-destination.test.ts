// Changing where payouts go on a session signed in more than 10 minutes ago: /settings shows the
// server's "sign in again" with a button, keeps what the creator typed across that sign-in, and the
// save after it goes through (and the creator is emailed). The server's 403 for the old session is
// played here by answering the first save with it (the rule itself: worker/test/payout-destination).
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAYOUT_DESTINATION_MESSAGES } from "../../shared/payout-destination";
import { launch, mailCount, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("payout setup on an old sign-in", () => {
  it("asks to sign in again and keeps the method and email typed; the save after the sign-in goes through", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("dest-reauth");
    await signIn(page, email);
    await page.goto("/settings");
    await page.getByText("How payouts work").waitFor();

    await page.route(
      "**/api/payout/setup",
      (route) =>
        route.fulfill({
          status: 403,
          contentType: "application/json",
          body: JSON.stringify({ message: PAYOUT_DESTINATION_MESSAGES.signInAgain }),
        }),
      { times: 1 },
    );
    await page.getByRole("combobox", { name: "Payout method" }).click();
    await page.getByRole("option", { name: "Wise" }).click();
    await page.getByLabel("Payout email").fill("kept@wise.example");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    const notice = page.getByTestId("payout-sign-in-again");
    await notice.getByText(PAYOUT_DESTINATION_MESSAGES.signInAgain).waitFor();
    await page.screenshot({ path: screenshotPath("payout-sign-in-again"), fullPage: true });
    await notice.getByRole("button", { name: "Sign in again" }).click();
    await page.waitForURL(/\/sign-in\?returnTo=/);

    await signIn(page, email);
    await page.goto("/settings");
    await page.getByText("We kept what you typed.", { exact: false }).waitFor();
    expect(await page.getByRole("combobox", { name: "Payout method" }).textContent()).toContain("Wise");
    expect(await page.getByLabel("Payout email").inputValue()).toBe("kept@wise.example");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Payouts Enabled · Wise · kept@wise.example").waitFor();
    await expect.poll(() => mailCount(email, "Your payout destination was changed"), { timeout: 15_000 }).toBe(1);

    // Shown once: the next visit starts from what is saved.
    await page.reload();
    await page.getByText("Payouts Enabled · Wise · kept@wise.example").waitFor();
    expect(await page.getByText("We kept what you typed.", { exact: false }).count()).toBe(0);
    await context.close();
  });
});
