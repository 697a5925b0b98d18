// A paid, taxed order's success page offers its invoice: at 390 px, "Download invoice (PDF)" fits
// the phone and saves ApeWall-invoice-AW-….pdf, a PDF that says "Tax invoice"; the buyer's library
// card offers it too. The checkout's tax
// and the invoice row are seeded as checkout and payment write them (POST /dev/seed-tax-invoice).
// Behaviour: docs/tax.md ("Invoices").
import { readFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PASSED_CHECK } from "../../dev/local-app.mjs";
import {
  baseUrl,
  confirmAsStripeJs,
  consoleErrors,
  launch,
  mailCount,
  mailedLink,
  newPage,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("the invoice of a taxed order", () => {
  it("a French buyer's success page at 390 px downloads the invoice PDF, and so does their library card", async () => {
    const creator = await newPage(browser);
    await signIn(creator.page, uniqueEmail("invoice-seller"));
    const made = await creator.page.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: {
        category: "other",
        title: "Lightroom presets for foggy mornings",
        price: "10",
        accessType: "link",
        linkUrl: "https://example.com/presets",
      },
    });
    expect(made.status()).toBe(201);
    const itemId = ((await made.json()) as { id: string }).id;
    await creator.context.close();

    const { page } = await newPage(browser);
    const errors = consoleErrors(page);
    const buyerEmail = uniqueEmail("invoice-buyer");
    const started = await page.request.post("/api/create-payment-intent", {
      headers: { origin: baseUrl(), ...PASSED_CHECK },
      data: { contentId: itemId, buyerEmail },
    });
    expect(started.status()).toBe(200);
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    const paymentIntent = clientSecret.split("_secret_")[0];
    const seeded = await page.request.post("/dev/seed-tax-invoice", {
      headers: { origin: baseUrl() },
      data: { paymentIntent, country: "FR", ratePercent: "20" },
    });
    expect(seeded.status()).toBe(200);
    const number = `AW-${String(((await seeded.json()) as { number: number }).number).padStart(6, "0")}`;
    expect((await confirmAsStripeJs(clientSecret, "4242424242424242", { receipt_email: buyerEmail })).status).toBe(200);

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`/success?payment_intent=${paymentIntent}&content_id=${itemId}&redirect_status=succeeded`);
    await page.getByText("Payment Successful!").waitFor();
    const link = page.getByRole("link", { name: "Download invoice (PDF)" });
    await link.waitFor();
    await expect(page.getByTestId("invoice-link").textContent()).resolves.toContain(`Invoice ${number}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await page.screenshot({ path: screenshotPath("tax-invoices-success-390") });

    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe(`ApeWall-invoice-${number}.pdf`);
    const pdf = readFileSync((await download.path())!).toString("latin1");
    expect(pdf.startsWith("%PDF-1.4")).toBe(true);
    for (const text of [
      "(Tax invoice) Tj",
      `(Invoice ${number}) Tj`,
      "(VAT \\(20%, France\\)) Tj",
      "($1.67) Tj",
      "($10.00) Tj",
    ])
      expect(pdf).toContain(text);

    await page.setViewportSize({ width: 1280, height: 860 });
    await page.screenshot({ path: screenshotPath("tax-invoices-success-1280") });

    expect(errors).toEqual([]);

    // The buyer's library card offers the same invoice (the signed-out page's session probe answers 401).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/library");
    const seen = await mailCount(buyerEmail, "Your ApeWall library link");
    await page.getByLabel("The email you paid with").fill(buyerEmail);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByTestId("library-link-sent").waitFor();
    await page.goto(await mailedLink(buyerEmail, seen, "Your ApeWall library link"));
    await page.getByRole("button", { name: "Open my library" }).click();
    const card = page.getByTestId("library-purchase");
    const cardLink = card.getByRole("link", { name: "Download invoice (PDF)" });
    await cardLink.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await card.screenshot({ path: screenshotPath("tax-invoices-library-390") });
    const [again] = await Promise.all([page.waitForEvent("download"), cardLink.click()]);
    expect(again.suggestedFilename()).toBe(`ApeWall-invoice-${number}.pdf`);
    expect(errors.filter((e) => !e.includes("401 (Unauthorized)"))).toEqual([]);
  });
});
