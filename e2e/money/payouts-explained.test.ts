// Every cent arrives or is explained, in a real browser: the admin marks one manual payout paid
// with a reference and another failed with a reason (its money booked back); the creator whose payout
// failed connects a bank, withdraws now from /settings, and sees on their timeline both the failed
// payout with its reason and the withdrawal, paid. Sales are real checkouts through the Stripe
// stand-in (4000 0000 0000 0077: funds available at once, so the platform can pay the transfer), aged
// past the hold through the local-only /dev/ledger/age-sale, as e2e/money/withdraw.test.ts does.
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

/** A signed-in creator paid by PayPal with one $50 sale aged past the hold: $40.00 available. */
async function payee(tag: string) {
  const email = uniqueEmail(tag);
  const { page, context } = await newPage(browser);
  await signIn(page, email);
  expect(
    (
      await page.request.post("/api/payout/setup", {
        headers: origin(),
        data: { payoutMethod: "paypal", payoutEmail: `${tag}-paypal@example.com` },
      })
    ).status(),
  ).toBe(200);
  const made = await page.request.post("/api/content", {
    headers: origin(),
    multipart: { title: `Zine ${tag}`, price: "50", accessType: "link", linkUrl: "https://example.com/zine" },
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
  return { email, page, context };
}

describe("every cent arrives or is explained", () => {
  it("the admin marks one manual payout paid with a reference and another failed with a reason; that creator withdraws now and sees both on the timeline", async () => {
    const paid = await payee("explained-paid");
    const failed = await payee("explained-failed");

    // The admin prepares the month, pays one by hand (with its PayPal reference) and fails the other.
    const { page: admin, context: adminCtx } = await newPage(browser);
    await signIn(admin, "admin@apewall.test");
    await admin.goto("/admin");
    const rowOf = (email: string) => admin.getByTestId("creator-payout-row").filter({ hasText: email });
    await rowOf(failed.email).waitFor();
    await admin.getByRole("button", { name: "Process All Payouts" }).click();
    await admin.getByRole("button", { name: "Confirm" }).click();
    await admin.getByText("Payouts Processed", { exact: true }).first().waitFor();
    for (const c of [paid, failed])
      await expect.poll(async () => rowOf(c.email).textContent(), { timeout: 10_000 }).toContain("$40.00 · Prepared");

    await admin.getByRole("button", { name: `Actions for ${paid.email}` }).click();
    await admin.getByRole("menuitem", { name: "Mark paid…" }).click();
    await admin.getByLabel("Reference").fill("PP-5HT20931");
    await admin.getByRole("button", { name: "Mark Paid" }).click();
    await expect.poll(async () => rowOf(paid.email).textContent()).toContain("Ref: PP-5HT20931");
    expect(await rowOf(paid.email).textContent()).toContain("$40.00 · Paid");

    const reason =
      "Your PayPal account could not receive the payment. Check your PayPal email in your payout settings.";
    await admin.getByRole("button", { name: `Actions for ${failed.email}` }).click();
    await admin.getByRole("menuitem", { name: "Mark failed…" }).click();
    await admin.getByLabel("Reason (the creator reads it)").fill(reason);
    await admin.getByRole("button", { name: "Mark Failed" }).click();
    await expect.poll(async () => rowOf(failed.email).textContent()).toContain("$40.00 · Failed");
    await adminCtx.close();
    await paid.context.close();

    // The creator whose payout failed: the $40.00 is back; they connect a bank and withdraw it now.
    const { page } = failed;
    await page.goto("/settings");
    const card = page.getByTestId("withdraw-card");
    await card.getByText("Connect your bank account to withdraw").waitFor();
    await page.getByRole("button", { name: "Connect bank account" }).click();
    await page.getByRole("button", { name: "Submit details" }).click();
    await page.waitForURL(/\/connect\?connected=true/);
    await page.getByText("Bank Account Connected!").waitFor();

    await page.goto("/settings");
    await expect.poll(() => card.getByTestId("withdraw-available").textContent()).toBe("$40.00");
    await card.getByRole("button", { name: "Withdraw now" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Withdraw $40.00" }).click();
    await page
      .getByText(/^Withdrawal (on its way|sent)$/)
      .first()
      .waitFor();
    await expect
      .poll(() => card.getByTestId("withdraw-latest").textContent(), { timeout: 20_000 })
      .toMatch(/Your withdrawal of \$40\.00 on .*Paid on/);

    // The timeline explains both: the month's payout failed, with the admin's reason, and the withdrawal paid.
    const entries = page.getByTestId("money-timeline").getByTestId("timeline-payout");
    await expect
      .poll(async () => (await entries.allTextContents()).join("\n"), { timeout: 10_000 })
      .toMatch(/Withdrawal · \$40\.00.*Paid on/);
    const texts = await entries.allTextContents();
    expect(texts).toHaveLength(2);
    expect(texts.find((t) => t.startsWith("Withdrawal"))).toMatch(/^Withdrawal · \$40\.00.*Paid on/);
    const month = texts.find((t) => !t.startsWith("Withdrawal"));
    expect(month).toMatch(/^\w+ \d{4} payout · \$40\.00/);
    expect(month).toContain(`${reason} The money is back in your available balance.`);
    expect(month).toMatch(/Failed$/);
    await page.screenshot({ path: screenshotPath("payouts-explained"), fullPage: true });
    await failed.context.close();
  });
});
