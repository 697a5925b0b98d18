// What the creator reads on a phone (390 px) about money on its way: a withdrawal Stripe refused for
// the platform's balance (balance_insufficient, via the stand-in's fail_next) reads "Delayed — we're
// retrying; no action needed" with its next try, not "Sending"; and after a withdrawal took
// everything, the next payout says "nothing available", not "below the $25 minimum".
// Behaviour: docs/money.md ("The monthly payout run": Delayed; "/settings: the creator's money").
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { baseUrl, launch, newPage, payByApi, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const PHONE = { width: 390, height: 844 };
const DELAYED =
  /^Delayed — we're retrying; no action needed\. Next try: [A-Z][a-z]{2} \d{1,2}, \d{1,2}:\d{2} [AP]M \S+\.$/;

/** A stand-in control, with the platform's secret key, as the stand-in's other tests call them. */
async function standinControl(path: string, params: Record<string, string>) {
  const res = await fetch(`${inject("stripeUrl")}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer sk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });
  expect(res.status).toBe(200);
}

/** A signed-in creator with a connected bank and $40.00 available (a $50 sale aged past the hold); returns the account id. */
async function creatorWithAvailable(page: Page, tag: string): Promise<string> {
  await signIn(page, uniqueEmail(tag));
  await page.goto("/settings");
  await page.getByRole("button", { name: "Connect bank account" }).click();
  await page.getByRole("button", { name: "Submit details" }).click();
  await page.waitForURL(/\/connect\?connected=true/);
  const link = await (
    await page.request.post("/api/stripe/connect/dashboard-link", { headers: { origin: baseUrl() } })
  ).json();
  const acct = /acct_\w+/.exec(link.url)?.[0];
  expect(acct).toBeTruthy();
  const made = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: { title: "Field Notes", price: "50", accessType: "link", linkUrl: "https://example.com/notes" },
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
  return acct!;
}

async function withdrawAll(page: Page) {
  await page.goto("/settings");
  const card = page.getByTestId("withdraw-card");
  await expect.poll(() => card.getByTestId("withdraw-available").textContent()).toBe("$40.00");
  await card.getByRole("button", { name: "Withdraw now" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Withdraw $40.00" }).click();
  await card.getByTestId("withdraw-latest").waitFor();
  return card;
}

const noSideScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= innerWidth);

describe("money on its way, on a phone", () => {
  it("a withdrawal refused for the platform's balance reads Delayed with its next try, on the card, the overview, history and timeline", async () => {
    const { page, context } = await newPage(browser);
    await page.setViewportSize(PHONE);
    const acct = await creatorWithAvailable(page, "delayed");
    await standinControl("/_standin/transfers/fail_next", { destination: acct, code: "balance_insufficient" });
    const card = await withdrawAll(page);
    // Stripe answered the first attempt (the send Workflow's, moments after the press) and it was recorded.
    await expect.poll(() => card.getByTestId("withdraw-latest").textContent(), { timeout: 20_000 }).toMatch(/Delayed/);
    await page.reload();
    await page.getByTestId("payout-history").waitFor();
    await page.getByTestId("withdraw-latest").waitFor();
    await page.getByTestId("money-timeline").getByTestId("timeline-payout").waitFor();
    await page.screenshot({ path: screenshotPath("payout-creator-delayed-390"), fullPage: true });

    expect(await card.getByTestId("withdraw-latest").getByText("Delayed", { exact: true }).count()).toBe(1);
    expect(await card.getByTestId("withdraw-delay").textContent()).toMatch(DELAYED);
    expect(await page.getByTestId("earnings-delayed").textContent()).toMatch(
      /^Your withdrawal of \$40\.00: Delayed — we're retrying; no action needed\. Next try: /,
    );
    expect(await page.getByTestId("payout-history").getByTestId("payout-delay").textContent()).toMatch(DELAYED);
    expect(await page.getByTestId("money-timeline").getByTestId("timeline-delay").textContent()).toMatch(DELAYED);
    expect(await page.getByText("Sending", { exact: true }).count()).toBe(0);
    expect(await noSideScroll(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.screenshot({ path: screenshotPath("payout-creator-delayed-1280"), fullPage: true });
    await context.close();
  });

  it("after a withdrawal took everything, the next payout says nothing is available, not below the minimum", async () => {
    const { page, context } = await newPage(browser);
    await page.setViewportSize(PHONE);
    await creatorWithAvailable(page, "nothing-left");
    const card = await withdrawAll(page);
    await expect.poll(() => card.getByTestId("withdraw-latest").textContent(), { timeout: 20_000 }).toMatch(/Paid on/);
    await page.reload();
    const next = page.getByTestId("next-payout");
    await expect.poll(() => next.textContent()).toMatch(/^No payout on/);
    await page.screenshot({ path: screenshotPath("payout-creator-no-payout-390"), fullPage: true });

    expect(await next.textContent()).toMatch(
      /^No payout on [A-Z][a-z]{2} 1, \d{4}: nothing available to pay out\. Sales become available 7 days after they are made\.$/,
    );
    expect(await next.textContent()).not.toMatch(/minimum/);
    expect(await noSideScroll(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.screenshot({ path: screenshotPath("payout-creator-no-payout-1280"), fullPage: true });
    await context.close();
  });
});
