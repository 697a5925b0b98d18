// "Withdraw now" in a real browser: a creator connects a bank through the stand-in's onboarding,
// sells (a card whose funds are available at once, so the platform can pay the transfer), the sale
// is aged past the hold (local-only /dev/ledger/age-sale), then they withdraw from /settings and see
// the withdrawal paid on the card, in the money timeline and in payout history.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, launch, newPage, payByApi, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const origin = () => ({ origin: baseUrl() });

describe("withdraw now", () => {
  it("a creator with a connected bank withdraws from /settings and sees it paid on the timeline", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("withdraw"));
    await page.goto("/settings");
    const card = page.getByTestId("withdraw-card");
    await card.getByText("Connect your bank account to withdraw").waitFor();
    expect(await card.getByRole("button", { name: "Withdraw now" }).isDisabled()).toBe(true);

    await page.getByRole("button", { name: "Connect bank account" }).click();
    await page.getByRole("button", { name: "Submit details" }).click();
    await page.waitForURL(/\/connect\?connected=true/);
    await page.getByText("Bank Account Connected!").waitFor();

    const made = await page.request.post("/api/content", {
      headers: origin(),
      multipart: { title: "Tape Loops", price: "50", accessType: "link", linkUrl: "https://example.com/loops" },
    });
    expect(made.status()).toBe(201);
    const { page: buyer, context: buyerCtx } = await newPage(browser);
    await payByApi(buyer, (await made.json()).id, "4000000000000077");
    await buyerCtx.close();
    await expect
      .poll(async () => (await (await page.request.get("/api/creator/sales")).json())[0]?.status, { timeout: 15_000 })
      .toBe("completed");
    const [sale] = await (await page.request.get("/api/creator/sales")).json();
    const aged = await fetch(`${baseUrl()}/dev/ledger/age-sale`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ purchaseId: sale.id, days: 10 }),
    });
    expect(await aged.json()).toEqual({ moved: 2 });

    await page.goto("/settings");
    await expect.poll(() => card.getByTestId("withdraw-available").textContent()).toBe("$40.00");
    await card.getByRole("button", { name: "Withdraw now" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("Withdraw $40.00 to your connected bank account").waitFor();
    await page.screenshot({ path: screenshotPath("withdraw-confirm"), fullPage: true });
    // However quick the send Workflow is, the page's first look after the press sees the withdrawal
    // still being sent (the answer as a slower Workflow would leave it): the card must follow it.
    let slowed = false;
    await page.route("**/api/payout/withdraw", async (route) => {
      if (slowed || route.request().method() !== "GET") return route.fallback();
      const res = await route.fetch();
      const body = await res.json();
      if (!body.latest) return route.fulfill({ response: res, json: body });
      slowed = true;
      await route.fulfill({
        response: res,
        json: { ...body, blockedBy: "open", latest: { ...body.latest, status: "processing", paidAt: null } },
      });
    });
    await dialog.getByRole("button", { name: "Withdraw $40.00" }).click();
    // The press answers with the withdrawal on its way; its send Workflow pays it moments later.
    await page
      .getByText(/^Withdrawal (on its way|sent)$/)
      .first()
      .waitFor();

    // The card follows it until paid, with nothing left to withdraw; the rest of the page catches up.
    await expect
      .poll(() => card.getByTestId("withdraw-latest").textContent(), { timeout: 20_000 })
      .toMatch(/Your withdrawal of \$40\.00 on .*Paid on/);
    await card.getByText("You can withdraw once your available balance is at least $25.").waitFor();
    expect(await card.getByRole("button", { name: "Withdraw now" }).isDisabled()).toBe(true);

    // The timeline: the withdrawal as an entry, and the sale's money paid by it.
    const timeline = page.getByTestId("money-timeline");
    await expect
      .poll(() => timeline.getByTestId("timeline-payout").textContent(), { timeout: 10_000 })
      .toMatch(/Withdrawal · \$40\.00.*Paid on/);
    expect(await timeline.textContent()).toMatch(/Tape Loops.*your share \$40\.00Paid on/);
    await page.getByTestId("payout-history").getByText("Withdrawal · $40.00").waitFor();
    await page.screenshot({ path: screenshotPath("withdraw-done"), fullPage: true });
    await context.close();
  });
});
