// The admin opens Tax: a paid sale taxed in Japan (booked through the local-only /dev/tax/book-sale,
// as Stripe Tax would have taxed it) shows as a jurisdiction row for its month, the CSV downloads
// with that row and a total equal to the rows, and at 390 px nothing scrolls sideways. A creator is
// turned away. Behaviour: docs/tax.md ("The admin's tax report").
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

describe("the admin's tax page", () => {
  it("shows the month's jurisdictions, downloads the CSV that adds up, and fits a phone", async () => {
    const { page: creator, context: creatorCtx } = await newPage(browser);
    await signIn(creator, uniqueEmail("taxed"));
    const made = await creator.request.post("/api/content", {
      headers: origin(),
      multipart: {
        title: "Haiku Pack",
        price: "11",
        accessType: "link",
        linkUrl: "https://example.com/h",
        category: "other",
      },
    });
    expect(made.status()).toBe(201);
    const item = await made.json();
    const { page: buyer, context: buyerCtx } = await newPage(browser);
    await payByApi(buyer, item.id);
    await buyerCtx.close();
    await expect
      .poll(async () => (await (await creator.request.get("/api/creator/sales")).json())[0]?.status, {
        timeout: 15_000,
      })
      .toBe("completed");
    const [sale] = await (await creator.request.get("/api/creator/sales")).json();
    const booked = await fetch(`${baseUrl()}/dev/tax/book-sale`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ purchaseId: sale.id, country: "JP", taxType: "jct", taxCents: 100 }),
    });
    expect(booked.status).toBe(200);

    // Not the admin: turned away on the page, and the API says 403.
    await creator.goto("/admin/tax");
    await creator.getByText("You don't have permission to access the admin dashboard.").waitFor();
    expect((await creator.request.get("/api/admin/tax/registrations")).status()).toBe(403);
    await creatorCtx.close();

    const { page: admin, context: adminCtx } = await newPage(browser);
    await signIn(admin, "admin@apewall.test");
    await admin.goto("/admin");
    await admin.getByRole("link", { name: "Tax", exact: true }).click();
    await admin.getByRole("heading", { name: "Tax", exact: true }).waitFor();
    const now = new Date();
    await admin.getByLabel("Month", { exact: true }).selectOption(String(now.getUTCMonth() + 1));
    await admin.getByLabel("Year", { exact: true }).selectOption(String(now.getUTCFullYear()));
    const row = admin.getByTestId("tax-report-row").filter({ hasText: "Japan" });
    await row.waitFor();
    expect(await row.textContent()).toContain("JCT");
    expect(await row.textContent()).toContain("$1.00");
    await admin.waitForFunction(() => !document.querySelector('main [role="status"]'));
    await admin.screenshot({ path: screenshotPath("tax-admin-1280"), fullPage: true });

    const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
    const [download] = await Promise.all([
      admin.waitForEvent("download"),
      admin.getByRole("button", { name: "Download CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`tax-${month}.csv`);
    const lines = (await readFile((await download.path())!, "utf8")).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "jurisdiction,country,region,tax_type,sales,net,tax_collected,tax_reversed,tax_owed,currency",
    );
    const japan = lines.find((l) => l.startsWith("Japan,JP,,jct,"));
    expect(japan).toMatch(/^Japan,JP,,jct,\d+,\d+\.\d{2},\d+\.\d{2},\d+\.\d{2},\d+\.\d{2},USD$/);
    const cents = (s: string) => Math.round(Number(s) * 100);
    const body = lines.slice(1, -1).map((l) => l.split(","));
    const total = lines.at(-1)!.split(",");
    expect(total[0]).toBe("Total");
    expect(body.reduce((n, c) => n + cents(c[8]), 0)).toBe(cents(total[8]));

    // A phone: the same figures stacked, nothing wider than the screen.
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.getByTestId("tax-report-card").filter({ hasText: "Japan" }).waitFor();
    expect(await admin.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await admin.screenshot({ path: screenshotPath("tax-admin-390"), fullPage: true });
    await adminCtx.close();
  });
});
