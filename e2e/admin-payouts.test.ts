// The admin pays a creator: a real sale (checkout through the Stripe stand-in, booked by its
// webhook) made to look 10 days old through the local-only /dev/ledger/age-sale (the 7-day hold
// has passed), then /admin shows the creator 'Ready for Payout', 'Process All Payouts' pays them,
// the CSV names the month and lists the payout, and the creator sees it in history and timeline.
import { readFile } from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { baseUrl, launch, newPage, screenshotPath, signIn, uniqueEmail } from "./browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const origin = () => ({ origin: baseUrl() });

/** A buyer pays `contentId` by card, as Stripe.js would (the stand-in then sends the webhook). */
async function buy(page: Page, contentId: string) {
  const res = await page.request.post("/api/create-payment-intent", { headers: origin(), data: { contentId, buyerEmail: "fan@example.com" } });
  expect(res.status()).toBe(200);
  const { clientSecret } = await res.json();
  const pi = clientSecret.split("_secret_")[0];
  const confirm = await fetch(`${inject("stripeUrl")}/v1/payment_intents/${pi}/confirm`, {
    method: "POST",
    headers: { authorization: "Bearer pk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_secret: clientSecret,
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": "4242424242424242",
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 3),
      "payment_method_data[card][cvc]": "123",
      receipt_email: "fan@example.com",
    }),
  });
  expect(confirm.status).toBe(200);
}

describe("admin payouts", () => {
  it("a creator 'Ready for Payout' is prepared by 'Process All Payouts', then marked paid by the next press; the CSV lists it; the creator sees it", async () => {
    const creatorEmail = uniqueEmail("payee");
    const { page: creator, context: creatorCtx } = await newPage(browser);
    await signIn(creator, creatorEmail);
    expect((await creator.request.post("/api/payout/setup", { headers: origin(), data: { payoutMethod: "paypal", payoutEmail: "payee-paypal@example.com" } })).status()).toBe(200);
    const made = await creator.request.post("/api/content", {
      headers: origin(),
      multipart: { title: "Field Recordings", price: "50", accessType: "link", linkUrl: "https://example.com/recordings", category: "music" },
    });
    expect(made.status()).toBe(201);
    const item = await made.json();

    const { page: buyer, context: buyerCtx } = await newPage(browser);
    await buy(buyer, item.id);
    await buyerCtx.close();
    // Booked by the webhook; then aged past the 7-day hold.
    await expect.poll(async () => (await (await creator.request.get("/api/creator/sales")).json())[0]?.status, { timeout: 15_000 }).toBe("completed");
    const [sale] = await (await creator.request.get("/api/creator/sales")).json();
    expect(sale.amount).toBe(50);
    expect((await (await fetch(`${baseUrl()}/dev/ledger/age-sale`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ purchaseId: sale.id, days: 10 }) })).json())).toEqual({ moved: 2 });

    // A creator opening /admin is turned away.
    await creator.goto("/admin");
    await creator.getByText("You don't have permission to access the admin dashboard.").waitFor();
    for (const name of ["Dashboard", "Upload", "Settings"]) expect(await creator.getByRole("link", { name }).isVisible()).toBe(true);
    await creator.screenshot({ path: screenshotPath("admin-denied") });

    const { page: admin, context: adminCtx } = await newPage(browser);
    await signIn(admin, "admin@apewall.test");
    await admin.goto("/admin");
    const row = admin.getByTestId("creator-payout-row").filter({ hasText: creatorEmail });
    await row.waitFor();
    expect(await row.textContent()).toContain("Ready for Payout");
    expect(await row.textContent()).toContain("$40.00");
    await admin.screenshot({ path: screenshotPath("admin-before"), fullPage: true });

    // A month that has not ended cannot be paid out: the server refuses, the screen says so.
    const today = new Date();
    await admin.getByLabel("Month", { exact: true }).selectOption(String(today.getUTCMonth() + 1));
    await admin.getByLabel("Year", { exact: true }).selectOption(String(today.getUTCFullYear()));
    await admin.getByRole("button", { name: "Process All Payouts" }).click();
    await admin.getByText("Processing Failed", { exact: true }).waitFor();
    await admin.getByText(/has not ended yet/).first().waitFor();

    const closingMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1));
    await admin.getByLabel("Month", { exact: true }).selectOption(String(closingMonth.getUTCMonth() + 1));
    await admin.getByLabel("Year", { exact: true }).selectOption(String(closingMonth.getUTCFullYear()));
    await row.waitFor();
    // The first press prepares the month: the PayPal payout appears in the list, not yet paid
    // (the admin has not seen it, so has not sent it). Paid by hand, the next press marks it paid.
    await admin.getByRole("button", { name: "Process All Payouts" }).click();
    await admin.getByText("Payouts Processed", { exact: true }).first().waitFor();
    await expect.poll(async () => row.textContent()).toContain("$40.00 · Prepared");
    await admin.getByRole("button", { name: "Process All Payouts" }).click();
    await expect.poll(async () => row.textContent()).toContain("$40.00 · Paid");
    expect(await row.textContent()).toContain("Below Minimum ($25)");
    await admin.screenshot({ path: screenshotPath("admin-after"), fullPage: true });

    const now = new Date();
    const closing = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const name = `payouts-${closing.getUTCFullYear()}-${String(closing.getUTCMonth() + 1).padStart(2, "0")}.csv`;
    const [download] = await Promise.all([admin.waitForEvent("download"), admin.getByRole("button", { name: "Export CSV" }).click()]);
    expect(download.suggestedFilename()).toBe(name);
    const lines = (await readFile((await download.path())!, "utf8")).trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^payout_id,creator_id,creator_name,creator_email,method,payout_email,amount,currency,status,/);
    const mine = lines.filter((l) => l.includes(creatorEmail));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toContain(`,${creatorEmail},paypal,payee-paypal@example.com,40.00,usd,paid,`);
    await admin.getByRole("button", { name: "Fix Missing Emails" }).click();
    await admin.getByText(/^Fixed \d+ out of \d+ purchases$/).waitFor();
    await adminCtx.close();

    // The creator's side: the payout in their history, and the sale's money marked paid.
    const history = await (await creator.request.get("/api/payout/history")).json();
    expect(history).toMatchObject([{ amount: 40, payoutMethod: "paypal", payoutEmail: "payee-paypal@example.com", status: "paid" }]);
    const timeline = await (await creator.request.get("/api/earnings/timeline")).json();
    expect(timeline.items).toMatchObject([{ purchaseId: sale.id, creatorShare: 40, state: { kind: "paid", payoutId: history[0].id } }]);
    await creatorCtx.close();
  });
});
