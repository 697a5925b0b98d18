// A buyer who typed the wrong email changes it on the success page: the old address is told, the new
// one gets the access link, which opens the item; a browser holding only the access link cannot.
// At 1280 and 390 px. Behaviour: docs/payments.md ("Changing a purchase's email").
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PURCHASE_EMAIL_MESSAGES } from "../../shared/purchase-email";
import {
  baseUrl,
  checkoutOpened,
  consoleErrors,
  launch,
  mailedLink,
  mailCount,
  newPage,
  payWith,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
let itemId: string;
const TITLE = "Field notes";
const SECRET = "Chapter one: the river bends twice.";

beforeAll(async () => {
  browser = await launch();
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail("email-change-seller"));
  const res = await page.request.post("/api/content", {
    headers: { origin: baseUrl() },
    multipart: { title: TITLE, price: "4", category: "other", accessType: "view", textContent: SECRET },
  });
  expect(res.status()).toBe(201);
  itemId = ((await res.json()) as { id: string }).id;
  await context.close();
});
afterAll(async () => {
  await browser?.close();
});

async function buy(page: Page, email: string) {
  await page.goto(`/p/${itemId}`);
  await page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(page);
  await payWith(page, "4242 4242 4242 4242", email);
  await page.waitForURL(/\/success\?/);
  await page.getByText("Payment Successful!").waitFor();
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe.each([
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
])("at $width px", ({ width, height }) => {
  it("the browser that paid changes the email: the old address is told, the new one's link opens the item", async () => {
    const oldEmail = uniqueEmail(`typo${width}`);
    const newEmail = uniqueEmail(`right${width}`);
    const { page, context } = await newPage(browser);
    await page.setViewportSize({ width, height });
    const errors = consoleErrors(page);
    await buy(page, oldEmail);
    const card = page.getByTestId("email-access");
    await card.getByText(`We emailed your receipt and access link to ${oldEmail[0]}…@example.com.`).waitFor();

    await page.getByRole("button", { name: "Wrong email? Change it" }).click();
    const field = page.getByLabel("Where should your receipt and access link go?");
    await field.fill("not-an-email");
    await page.getByRole("button", { name: "Change email" }).click();
    await card.getByRole("alert").getByText("Enter a valid email address").waitFor();
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    await page.screenshot({ path: screenshotPath(`emailchange-error-${width}`), fullPage: true });
    expect(await noSidewaysScroll(page)).toBe(true);

    await field.fill(newEmail.toUpperCase());
    await page.getByRole("button", { name: "Change email" }).click();
    await page
      .getByTestId("change-email-done")
      .getByText(
        `Done: your receipt and access link are on their way to ${newEmail}. We told the old address about the change.`,
      )
      .waitFor();
    // The page's own line now names the new address (masked, as the Worker gives it).
    await card.getByText(`We emailed your receipt and access link to ${newEmail[0]}…@example.com.`).waitFor();
    await page.screenshot({ path: screenshotPath(`emailchange-done-${width}`), fullPage: true });
    expect(await noSidewaysScroll(page)).toBe(true);
    expect(errors).toEqual([]);

    // The old address is told, and is not shown the new one in full.
    await expect
      .poll(() => mailCount(oldEmail, `The email on your order of ${TITLE} was changed`), { timeout: 15_000 })
      .toBe(1);
    const mails = (await (await fetch(`${baseUrl()}/dev/mail.json?limit=1000`)).json()) as {
      to: string;
      subject: string;
      text: string;
    }[];
    const notice = mails.find((m) => m.to === oldEmail && m.subject.startsWith("The email on your order"))!;
    expect(notice.text).toContain(`was changed to ${newEmail[0]}…@example.com.`);
    expect(notice.text).not.toContain(newEmail);

    // The new address gets the access link; it opens the item in a fresh browser.
    const link = await mailedLink(newEmail, 0, `Your access to ${TITLE}`);
    const fresh = await newPage(browser);
    await fresh.page.setViewportSize({ width, height });
    await fresh.page.goto(link);
    await fresh.page.getByText("Payment Successful!").waitFor();
    expect(await fresh.page.getByTestId("text-content").textContent()).toBe(SECRET);

    // That browser holds the access link only: it cannot move the purchase again.
    await fresh.page.getByRole("button", { name: "Wrong email? Change it" }).click();
    await fresh.page.getByLabel("Where should your receipt and access link go?").fill(uniqueEmail("thief"));
    await fresh.page.getByRole("button", { name: "Change email" }).click();
    await fresh.page.getByText(PURCHASE_EMAIL_MESSAGES.notThisBrowser).waitFor();
    if (width === 390) await fresh.page.screenshot({ path: screenshotPath("emailchange-not-this-browser-390") });
    await fresh.context.close();
    expect(await mailCount(newEmail)).toBe(1);
    await context.close();
  });
});
