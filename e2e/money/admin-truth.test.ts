// /admin says what is true about money, at 1280 and on a phone: a withdrawal Stripe refused for the
// platform's balance needs a look (with the reason and the balance); each row's words; "Mark paid"
// names the address the money goes to; no Re-send for a hand-paid payout; failure notes in words; the
// sales a payout pays; a hold's one promise, the held creator's banner and email; at 390 px a stacked
// row per creator and no sideways scroll. Behaviour: docs/money.md ("The admin dashboard").
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { HOLD_PROMISE } from "../../shared/admin";
import { baseUrl, launch, mailCount, newPage, payByApi, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
const origin = () => ({ origin: baseUrl() });
const stripe = (path: string, params: Record<string, string>) =>
  fetch(`${inject("stripeUrl")}${path}`, {
    method: "POST",
    headers: { authorization: "Bearer sk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });

/** Waits until `check` holds (expect.poll cannot run in beforeAll). */
async function until(check: () => Promise<boolean>, timeout = 20_000) {
  const end = Date.now() + timeout;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not true within ${timeout} ms: ${check}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Creator = { email: string; page: Page; context: BrowserContext };

/** A signed-in creator with one item (and, with `sale`, a $50 sale aged past the hold: $40.00 available). */
async function creator(tag: string, opts: { paypal?: boolean; bank?: boolean; sale?: boolean }): Promise<Creator> {
  const email = uniqueEmail(tag);
  const { page, context } = await newPage(browser);
  await signIn(page, email);
  if (opts.paypal)
    expect(
      (
        await page.request.post("/api/payout/setup", {
          headers: origin(),
          data: { payoutMethod: "paypal", payoutEmail: `${tag}-paypal@example.com` },
        })
      ).status(),
    ).toBe(200);
  if (opts.bank) {
    await page.goto("/settings");
    await page.getByRole("button", { name: "Connect bank account" }).click();
    await page.getByRole("button", { name: "Submit details" }).click();
    await page.waitForURL(/\/connect\?connected=true/);
  }
  const made = await page.request.post("/api/content", {
    headers: origin(),
    multipart: { title: `Zine ${tag}`, price: "50", accessType: "link", linkUrl: "https://example.com/zine" },
  });
  expect(made.status()).toBe(201);
  if (opts.sale) {
    const { page: buyer, context: buyerCtx } = await newPage(browser);
    await payByApi(buyer, (await made.json()).id, opts.bank ? "4000000000000077" : undefined);
    await buyerCtx.close();
    await until(async () => (await (await page.request.get("/api/creator/sales")).json())[0]?.status === "completed");
    const [sale] = await (await page.request.get("/api/creator/sales")).json();
    await fetch(`${baseUrl()}/dev/ledger/age-sale`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ purchaseId: sale.id, days: 10 }),
    });
  }
  return { email, page, context };
}

let paid: Creator;
let failed: Creator;
let empty: Creator;
let waiting: Creator;
let admin: Page;
const rowOf = (email: string) => admin.getByTestId("creator-payout-row").filter({ hasText: email });

beforeAll(async () => {
  browser = await launch();
  paid = await creator("truth-paid", { paypal: true, sale: true });
  failed = await creator("truth-failed", { paypal: true, sale: true });
  empty = await creator("truth-empty", { paypal: true });
  ({ page: admin } = await newPage(browser));
  await signIn(admin, "admin@apewall.test");
  await admin.goto("/admin");
  await rowOf(paid.email).waitFor();
  // The month's run prepares both PayPal payouts; one is marked failed by the admin.
  await admin.getByRole("button", { name: "Process All Payouts" }).click();
  await admin.getByRole("button", { name: "Confirm" }).click();
  for (const c of [paid, failed])
    await until(async () => !!(await rowOf(c.email).textContent())?.includes("$40.00 · Prepared"));
  const failedRow = await (
    await admin.request.get(
      `/api/admin/creator-payouts?${new URLSearchParams({ month: await admin.getByLabel("Month", { exact: true }).inputValue(), year: await admin.getByLabel("Year", { exact: true }).inputValue() })}`,
    )
  ).json();
  const f = failedRow.find((r: { email: string }) => r.email === failed.email);
  expect(
    (
      await admin.request.post(`/api/admin/payouts/${f.payout.id}/mark-failed`, {
        headers: origin(),
        data: { reason: "Your PayPal email bounced. Check it in your payout settings." },
      })
    ).status(),
  ).toBe(200);
  await admin.reload();
  await rowOf(failed.email).waitFor();
}, 180_000);
afterAll(async () => {
  await browser?.close();
});

describe("/admin's words match the money (1280)", () => {
  it("each row says what is true: the sales a payout pays, 'Nothing to pay' for $0, a failure note in words", async () => {
    await expect.poll(async () => rowOf(failed.email).textContent()).toContain("$40.00 · Failed");
    await admin.screenshot({ path: screenshotPath("payout-admin-rows-1280"), fullPage: true });
    expect(await rowOf(empty.email).textContent()).toContain("Nothing to pay");
    expect(await rowOf(empty.email).textContent()).not.toContain("Below Minimum");
    expect(await rowOf(failed.email).textContent()).toContain(
      "Marked failed by admin@apewall.test: Your PayPal email bounced. Check it in your payout settings.",
    );
    expect(await rowOf(failed.email).textContent()).not.toContain("marked_failed_by_admin");
    expect(await rowOf(paid.email).textContent()).toMatch(/\$40\.00 · Preparedfor sales up to [A-Z][a-z]{2} \d{1,2}/);
    expect(await admin.getByTestId("payout-period").textContent()).toMatch(
      /^\w+ \d{4} payouts: the run on [A-Z][a-z]{2} 1 pays sales up to [A-Z][a-z]{2} \d{1,2} \(each sale is held 7 days\)/,
    );
  });

  it("'Mark paid' names the PayPal address the money goes to; a hand-paid payout offers no Re-send", async () => {
    await admin.getByRole("button", { name: `Actions for ${failed.email}` }).click();
    const items = await admin.getByRole("menuitem").allTextContents();
    await admin.keyboard.press("Escape");
    await admin.mouse.click(5, 5);
    await admin.getByRole("button", { name: `Actions for ${paid.email}` }).click();
    await admin.getByRole("menuitem", { name: "Mark paid…" }).click();
    const dialog = admin.getByRole("dialog");
    await dialog.waitFor();
    await admin.screenshot({ path: screenshotPath("payout-admin-mark-paid-1280") });
    const said = await dialog.textContent();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect(said).toContain("by PayPal truth-paid-paypal@example.com");
    expect(said).not.toContain(paid.email);
    expect(items).not.toContain("Re-send");
  });

  it("a held creator: the dialog's one promise, the banner stops saying 'Payouts Enabled', the creator is emailed", async () => {
    const bannerText = paid.page.getByText(/^Payouts (Enabled|On Hold)/);
    await paid.page.goto("/");
    await bannerText.waitFor();
    expect(await bannerText.textContent()).toContain("Payouts Enabled");
    await admin.getByRole("button", { name: `Actions for ${paid.email}` }).click();
    await admin.getByRole("menuitem", { name: "Hold payouts…" }).click();
    const dialog = admin.getByRole("dialog");
    await dialog.waitFor();
    await admin.screenshot({ path: screenshotPath("payout-admin-hold-dialog-1280") });
    const promise = await dialog.textContent();
    await admin.getByLabel("Reason").waitFor();
    await admin.getByLabel("Reason").fill("Checking a dispute");
    await dialog.getByRole("button", { name: "Hold" }).click();
    await admin.getByText("Creator held", { exact: true }).first().waitFor();
    // While held the row offers no "Mark paid…": the prepared payout waits.
    await until(
      async () => (await rowOf(paid.email).textContent())?.includes("Checking a dispute") ?? false,
      10_000,
    ).catch(() => undefined);
    await admin.getByRole("button", { name: `Actions for ${paid.email}` }).click();
    const items = await admin.getByRole("menuitem").allTextContents();
    await admin.mouse.click(5, 5);

    await paid.page.reload();
    await bannerText.waitFor();
    await paid.page.screenshot({ path: screenshotPath("payout-admin-held-banner-1280") });
    expect(promise).toContain(HOLD_PROMISE);
    expect(items).not.toContain("Mark paid…");
    const banner = paid.page.getByTestId("payout-banner");
    expect(await banner.textContent()).toContain("Payouts On Hold");
    expect(await banner.textContent()).not.toContain("Payouts Enabled");
    await expect.poll(() => mailCount(paid.email, "Your payouts are on hold"), { timeout: 15_000 }).toBe(1);
  });

  it("a withdrawal Stripe refused for the platform's balance needs a look, with the reason and the platform's balance", async () => {
    waiting = await creator("truth-waiting", { bank: true, sale: true });
    const { url } = await (
      await waiting.page.request.post("/api/stripe/connect/dashboard-link", { headers: origin() })
    ).json();
    const account = /acct_\w+/.exec(url)![0];
    expect(
      (await stripe("/_standin/transfers/fail_next", { destination: account, code: "balance_insufficient" })).status,
    ).toBe(200);
    expect((await waiting.page.request.post("/api/payout/withdraw", { headers: origin(), data: {} })).status()).toBe(
      200,
    );
    await admin.reload();
    const run = admin.getByTestId("payout-run");
    await run.waitFor();
    // The send Workflow tries again a minute later (and then pays it): look while it waits.
    await until(async () => !!(await run.textContent())?.includes(waiting.email), 30_000).catch(() => undefined);
    await run.scrollIntoViewIfNeeded();
    await admin.screenshot({ path: screenshotPath("payout-admin-needs-a-look-1280") });
    const text = (await admin.getByTestId("needs-a-look").textContent()) ?? "";
    expect(text).toContain("Withdrawal · $40.00");
    expect(text).toContain(
      "Stripe refused the transfer: when it was tried, the platform's Stripe balance did not have the $40.00 available.",
    );
    expect(text).toMatch(/Platform balance at Stripe: \$[\d,.]+ available, \$[\d,.]+ pending\./);
    expect(text).not.toContain("No payout needs a look");
    expect(text).not.toContain("marked_failed_by_admin");
  }, 120_000);
});

describe("/admin on a phone (390)", () => {
  it("a stacked row per creator (name, amount, status, the one action) and no sideways scroll", async () => {
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.reload();
    const card = admin.getByTestId("creator-payout-card").filter({ hasText: failed.email });
    await admin.getByRole("button", { name: "Process All Payouts" }).waitFor();
    await card.waitFor({ timeout: 10_000 }).catch(() => undefined);
    await admin.screenshot({ path: screenshotPath("payout-admin-stacked-390"), fullPage: true });
    expect(await admin.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    expect(await card.textContent()).toMatch(/\$40\.00.*Failed/);
    const held = admin.getByTestId("creator-payout-card").filter({ hasText: paid.email });
    expect(await held.textContent()).toContain("Held");
    expect(await held.getByRole("button", { name: "Release hold" }).isVisible()).toBe(true);
    expect(await admin.getByTestId("creator-payout-row").first().isVisible()).toBe(false);
    await held.scrollIntoViewIfNeeded();
    await admin.screenshot({ path: screenshotPath("payout-admin-stacked-row-390") });
  });
});
