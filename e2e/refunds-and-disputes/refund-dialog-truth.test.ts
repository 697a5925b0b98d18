// A creator refunds from their phone (390 px): each sale is a stacked row with its amount, status (in
// words, capitalised) and Refund; the dialog says how much leaves the creator's balance, as the server
// computes it from the ledger, and its reasons in words; the buyer's refund email answers to the
// creator's support address (Reply-To). Behaviour: docs/refunds-and-disputes.md.
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, confirmAsStripeJs, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

const PHONE = { width: 390, height: 844 };
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const origin = () => ({ origin: baseUrl() });

/** A buyer pays $20 for `itemId` as Stripe.js would, with `email` as the receipt address. */
async function buy(page: Page, itemId: string, email: string) {
  const res = await page.request.post("/api/create-payment-intent", {
    headers: origin(),
    data: { contentId: itemId, buyerEmail: email },
  });
  expect(res.status(), await res.text()).toBe(200);
  const { clientSecret } = (await res.json()) as { clientSecret: string };
  const confirm = await confirmAsStripeJs(clientSecret, "4242424242424242", { receipt_email: email });
  expect(confirm.status, await confirm.text()).toBe(200);
}

/** The element a person sees at the middle of `target` (scrolled into view vertically only) is it. */
async function seenWhole(target: Locator): Promise<boolean> {
  return target.evaluate((el) => {
    const r0 = el.getBoundingClientRect();
    window.scrollBy(0, r0.top - innerHeight / 2);
    const r = el.getBoundingClientRect();
    if (r.left < 0 || r.right > innerWidth || r.width === 0) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!hit && (el === hit || el.contains(hit));
  });
}

type Mail = { to: string; subject: string; replyTo?: string };

describe("refunding on a phone", () => {
  it("the sale's row shows amount, status and Refund; the dialog says what leaves the balance; the email's Reply reaches the creator", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("phone-refunder"));
    const support = uniqueEmail("help");
    const profile = await page.request.put("/api/profile", { headers: origin(), data: { supportEmail: support } });
    expect(profile.status(), await profile.text()).toBe(200);
    const item = await page.request.post("/api/content", {
      headers: origin(),
      multipart: { title: "Lightroom Presets", price: "20", accessType: "link", linkUrl: "https://example.com/x" },
    });
    expect(item.status()).toBe(201);
    const itemId = ((await item.json()) as { id: string }).id;
    const buyer = uniqueEmail("phone-refund-buyer");
    await buy(page, itemId, buyer);
    // The stand-in's webhook books the sale; the sales tab reads it once it is there.
    await expect
      .poll(async () => JSON.stringify(await (await page.request.get("/api/creator/sales")).json()), {
        timeout: 20_000,
      })
      .toContain(buyer);

    await page.setViewportSize(PHONE);
    await page.goto("/");
    await page.getByRole("tab", { name: "Sales & Buyers" }).click();
    await page.getByText(buyer).first().waitFor();
    await page.screenshot({ path: screenshotPath("dashboard-phone-sales-390"), fullPage: true });

    await page.getByRole("button", { name: `Refund Lightroom Presets sale to ${buyer}` }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("Refund this sale").waitFor();
    await page.screenshot({ path: screenshotPath("dashboard-phone-refund-dialog-390") });
    // 80% of $20.00 was the creator's: the full refund takes $16.00 of their balance.
    await dialog.getByTestId("refund-share").getByText("$16.00 leaves your balance").waitFor({ timeout: 10_000 });
    await dialog.getByLabel(/^Amount/).fill("5");
    await dialog.getByTestId("refund-share").getByText("$4.00 leaves your balance").waitFor();

    // Reasons in words, also when one is missing.
    expect(await dialog.getByLabel("Reason").locator("option").allTextContents()).toEqual([
      "The buyer asked for it",
      "Duplicate payment",
      "Fraudulent payment",
      "Other (write a note)",
    ]);
    await dialog.getByLabel("Reason").selectOption({ label: "Other (write a note)" });
    await dialog.getByRole("button", { name: "Refund $5.00" }).click();
    await dialog.getByText("Write a note saying why you are refunding (up to 500 characters)").waitFor();
    expect(await dialog.textContent()).not.toMatch(/requested_by_customer|duplicate,|fraudulent,/);
    await dialog.getByLabel("Reason").selectOption({ label: "Duplicate payment" });
    await dialog.getByRole("button", { name: "Refund $5.00" }).click();

    // The phone's row: amount, status in words and Refund, on the screen without scrolling sideways.
    const sale = page.getByTestId("sale-item").filter({ hasText: buyer });
    await sale.getByText("Partly refunded $5.00").waitFor();
    expect(await sale.getByText("Completed", { exact: true }).count()).toBe(1);
    await page.screenshot({ path: screenshotPath("dashboard-phone-sales-refunded-390"), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    expect(await seenWhole(sale.getByText("$20.00", { exact: true }))).toBe(true);
    expect(await seenWhole(sale.getByText("Completed", { exact: true }))).toBe(true);
    expect(await seenWhole(sale.getByRole("button", { name: /^Refund/ }))).toBe(true);

    // The ledger took what the dialog said, and the next refund's share is the rest of it.
    const timeline = (await (await page.request.get("/api/earnings/timeline")).json()) as {
      items: { purchaseId: string; refund: { amount: number } | null }[];
    };
    expect(timeline.items[0].refund?.amount).toBe(-4);
    await sale.getByRole("button", { name: /^Refund/ }).click();
    await page.getByRole("dialog").getByTestId("refund-share").getByText("$12.00 leaves your balance").waitFor();
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();

    // The buyer's refund email: its Reply goes to the creator's support address, as the mailbox shows.
    let mail: Mail | undefined;
    await expect
      .poll(
        async () => {
          const mails = (await (await fetch(`${baseUrl()}/dev/mail.json?limit=1000`)).json()) as Mail[];
          mail = mails.find((m) => m.to === buyer && m.subject.startsWith("Your refund of $5.00"));
          return !!mail;
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    expect(mail?.replyTo).toBe(support);
    await page.goto("/dev/mail");
    await page.getByText(`Reply-To ${support}`).first().waitFor();
    await context.close();
  });
});
