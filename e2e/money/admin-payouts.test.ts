// The admin pays a creator: a real sale (checkout through the Stripe stand-in, booked by its
// webhook) made to look 10 days old through the local-only /dev/ledger/age-sale (the 7-day hold
// has passed), then /admin shows the creator 'Ready for Payout', 'Process All Payouts' pays them,
// the CSV names the month and lists the payout, and the creator sees it in history and timeline.
import { readFile } from "node:fs/promises";
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

describe("admin payouts", () => {
  it("a creator 'Ready for Payout' is prepared by 'Process All Payouts', then marked paid by the next press; the CSV lists it; the creator sees it", async () => {
    const creatorEmail = uniqueEmail("payee");
    const { page: creator, context: creatorCtx } = await newPage(browser);
    await signIn(creator, creatorEmail);
    expect(
      (
        await creator.request.post("/api/payout/setup", {
          headers: origin(),
          data: { payoutMethod: "paypal", payoutEmail: "payee-paypal@example.com" },
        })
      ).status(),
    ).toBe(200);
    const made = await creator.request.post("/api/content", {
      headers: origin(),
      multipart: {
        title: "Field Recordings",
        price: "50",
        accessType: "link",
        linkUrl: "https://example.com/recordings",
        category: "music",
      },
    });
    expect(made.status()).toBe(201);
    const item = await made.json();

    const { page: buyer, context: buyerCtx } = await newPage(browser);
    await payByApi(buyer, item.id);
    await buyerCtx.close();
    // Booked by the webhook; then aged past the 7-day hold.
    await expect
      .poll(async () => (await (await creator.request.get("/api/creator/sales")).json())[0]?.status, {
        timeout: 15_000,
      })
      .toBe("completed");
    const [sale] = await (await creator.request.get("/api/creator/sales")).json();
    expect(sale.amount).toBe(50);
    expect(
      await (
        await fetch(`${baseUrl()}/dev/ledger/age-sale`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ purchaseId: sale.id, days: 10 }),
        })
      ).json(),
    ).toEqual({ moved: 2 });

    // A creator opening /admin is turned away.
    await creator.goto("/admin");
    await creator.getByText("You don't have permission to access the admin dashboard.").waitFor();
    for (const name of ["Dashboard", "Upload", "Settings"])
      expect(await creator.getByRole("link", { name }).isVisible()).toBe(true);
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
    await admin.getByRole("button", { name: "Confirm" }).click();
    await admin.getByText("Processing Failed", { exact: true }).waitFor();
    await admin
      .getByText(/has not ended yet/)
      .first()
      .waitFor();

    const closingMonth = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1));
    await admin.getByLabel("Month", { exact: true }).selectOption(String(closingMonth.getUTCMonth() + 1));
    await admin.getByLabel("Year", { exact: true }).selectOption(String(closingMonth.getUTCFullYear()));
    await row.waitFor();
    // The first press prepares the month: the PayPal payout appears in the list, not yet paid
    // (the admin has not seen it, so has not sent it). Paid by hand, the next press marks it paid.
    await admin.getByRole("button", { name: "Process All Payouts" }).click();
    await admin.getByRole("button", { name: "Confirm" }).click();
    await admin.getByText("Payouts Processed", { exact: true }).first().waitFor();
    await expect.poll(async () => row.textContent(), { timeout: 20_000 }).toContain("$40.00 · Prepared");
    await admin.getByRole("button", { name: "Process All Payouts" }).click();
    await admin
      .getByTestId("process-plan")
      .filter({ hasText: /PayPal payouts? you have sent/ })
      .waitFor();
    await admin.getByRole("button", { name: "Confirm" }).click();
    // This press starts the month's run again as a new Workflow instance (timed at the press): on a
    // busy 2-core machine the row can take longer than expect.poll's 5 s default to say Paid.
    await expect.poll(async () => row.textContent(), { timeout: 20_000 }).toContain("$40.00 · Paid");
    // The row's status is the payout's: Paid (it used to read 'Below Minimum ($25)' beside "Paid").
    expect(await row.textContent()).not.toContain("Below Minimum");
    await admin.screenshot({ path: screenshotPath("admin-after"), fullPage: true });

    const now = new Date();
    const closing = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const name = `payouts-${closing.getUTCFullYear()}-${String(closing.getUTCMonth() + 1).padStart(2, "0")}.csv`;
    const [download] = await Promise.all([
      admin.waitForEvent("download"),
      admin.getByRole("button", { name: "Export CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(name);
    const lines = (await readFile((await download.path())!, "utf8")).trimEnd().split("\r\n");
    expect(lines[0]).toMatch(
      /^payout_id,creator_id,creator_name,creator_email,method,payout_email,amount,currency,status,/,
    );
    const mine = lines.filter((l) => l.includes(creatorEmail));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toContain(`,${creatorEmail},paypal,payee-paypal@example.com,40.00,usd,paid,`);
    await admin.getByRole("button", { name: "Fix Missing Emails" }).click();
    await admin.getByText(/^Fixed \d+ out of \d+ purchases$/).waitFor();
    await adminCtx.close();

    // The creator's side: the payout in their history, and the sale's money marked paid.
    const history = await (await creator.request.get("/api/payout/history")).json();
    expect(history).toMatchObject([
      { amount: 40, payoutMethod: "paypal", payoutEmail: "payee-paypal@example.com", status: "paid" },
    ]);
    const timeline = await (await creator.request.get("/api/earnings/timeline")).json();
    expect(timeline.items).toMatchObject([
      { purchaseId: sale.id, creatorShare: 40, state: { kind: "paid", payoutId: history[0].id } },
    ]);
    await creatorCtx.close();
  });

  it("the admin marks one manual payout paid with a reference and another failed with a reason; both statuses show; 'Process All Payouts' asks first, by method", async () => {
    /** A creator with PayPal and a $50 sale, aged past the hold: $40.00 available. */
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
        multipart: {
          title: `Zine ${tag}`,
          price: "50",
          accessType: "link",
          linkUrl: "https://example.com/zine",
          category: "music",
        },
      });
      const item = await made.json();
      const { page: buyer, context: buyerCtx } = await newPage(browser);
      await payByApi(buyer, item.id);
      await buyerCtx.close();
      await expect
        .poll(async () => (await (await page.request.get("/api/creator/sales")).json())[0]?.status, { timeout: 15_000 })
        .toBe("completed");
      const [sale] = await (await page.request.get("/api/creator/sales")).json();
      await fetch(`${baseUrl()}/dev/ledger/age-sale`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ purchaseId: sale.id, days: 10 }),
      });
      return { email, page, context };
    }
    const paid = await payee("paid-by-hand");
    const failed = await payee("failed-by-hand");

    const { page: admin, context: adminCtx } = await newPage(browser);
    await signIn(admin, "admin@apewall.test");
    await admin.goto("/admin");
    const rowOf = (email: string) => admin.getByTestId("creator-payout-row").filter({ hasText: email });
    await rowOf(paid.email).waitFor();
    expect(await rowOf(paid.email).textContent()).toContain("Ready for Payout");

    // Asked first: what the press does, by method (the two creators are prepared by it).
    await admin.getByRole("button", { name: "Process All Payouts" }).click();
    const plan = admin.getByTestId("process-plan");
    await plan.waitFor();
    expect(await plan.textContent()).toMatch(
      /prepare \d+ more payouts? \(\$[\d,.]+\), which appears? in the list afterwards\./i,
    );
    await admin.getByRole("button", { name: "Confirm" }).click();
    await admin.getByText("Payouts Processed", { exact: true }).first().waitFor();
    for (const c of [paid, failed])
      await expect.poll(async () => rowOf(c.email).textContent()).toContain("$40.00 · Prepared");

    // Mark paid with a reference: an empty one is refused by the dialog, then saved.
    await admin.getByRole("button", { name: `Actions for ${paid.email}` }).click();
    await admin.getByRole("menuitem", { name: "Mark paid…" }).click();
    await admin.getByRole("button", { name: "Mark Paid" }).click();
    await admin.getByText("reference must be 1 to 200 characters (e.g. the PayPal transaction id)").waitFor();
    await admin.getByLabel("Reference").fill("PP-7XK29431");
    await admin.getByRole("button", { name: "Mark Paid" }).click();
    await admin.getByText("Payout marked paid", { exact: true }).first().waitFor();
    await expect.poll(async () => rowOf(paid.email).textContent()).toContain("Ref: PP-7XK29431");
    expect(await rowOf(paid.email).textContent()).toContain("$40.00 · Paid");

    // Mark failed with a reason: the money goes back to the creator's balance.
    const reason =
      "Your PayPal account could not receive the payment. Check your PayPal email in your payout settings.";
    await admin.getByRole("button", { name: `Actions for ${failed.email}` }).click();
    await admin.getByRole("menuitem", { name: "Mark failed…" }).click();
    await admin.getByLabel("Reason (the creator reads it)").fill(reason);
    await admin.getByRole("button", { name: "Mark Failed" }).click();
    await admin.getByText("Payout marked failed", { exact: true }).first().waitFor();
    await expect.poll(async () => rowOf(failed.email).textContent()).toContain("$40.00 · Failed");
    expect(await rowOf(failed.email).textContent()).toContain(reason);
    const statusOf = async (email: string) => (await rowOf(email).locator("td").nth(5).textContent())?.trim();
    expect(await statusOf(paid.email)).toBe("Paid");
    expect(await statusOf(failed.email)).toBe("Failed");
    await admin.screenshot({ path: screenshotPath("admin-payout-actions"), fullPage: true });

    // The confirmation now names neither: the one is paid, the other failed (its money is back).
    await admin.getByRole("button", { name: "Process All Payouts" }).click();
    await plan.waitFor();
    await admin.screenshot({ path: screenshotPath("admin-process-confirm") });
    await admin.getByRole("button", { name: "Cancel" }).click();
    await adminCtx.close();

    const history = await (await failed.page.request.get("/api/payout/history")).json();
    expect(history).toMatchObject([{ amount: 40, status: "failed" }]);
    expect(await (await paid.page.request.get("/api/payout/history")).json()).toMatchObject([
      { amount: 40, status: "paid" },
    ]);
    await paid.context.close();
    await failed.context.close();
  });
});
