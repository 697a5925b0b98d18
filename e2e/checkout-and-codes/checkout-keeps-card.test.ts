// The one-page checkout keeps what the buyer typed: ticking the order bump, applying a code and
// removing it change the PaymentIntent's amount in place (the card details stay), the form lists
// what is paid for, the paywall's struck-through price stays in view, and Stripe charges the total
// the server worked out. Behaviour: docs/checkout-and-codes.md ("Changing a checkout's terms").
import type { Page } from "playwright-core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  baseUrl,
  checkoutOpened,
  launch,
  newPage,
  screenshotPath,
  signIn,
  TEST_ZIP,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** The stand-in's own record of a PaymentIntent (what Stripe would charge). */
async function standinIntent(id: string): Promise<{ amount: number; amount_received: number; status: string }> {
  const res = await fetch(`${inject("stripeUrl")}/v1/payment_intents/${id}`, {
    headers: { authorization: "Bearer sk_test_e2e" },
  });
  return res.json();
}

const cardFields = async (page: Page) => [
  await page.getByLabel("Card number").inputValue(),
  await page.getByLabel("Expiration date").inputValue(),
  await page.getByLabel("Security code").inputValue(),
];
const lines = (page: Page) =>
  page
    .getByTestId("checkout-lines")
    .locator("[data-line]")
    .evaluateAll((rows) => rows.map((r) => Array.from(r.children, (c) => (c.textContent ?? "").trim()).join(" ")));

describe("the checkout keeps the card typed", () => {
  it("ticking the bump, applying and removing a code keep the card details; the lines and the charge agree", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("keeps-card-creator"));
    const headers = { origin: baseUrl() };
    const item = async (title: string, price: string) =>
      (
        await (
          await page.request.post("/api/content", {
            headers,
            multipart: { title, price, accessType: "link", linkUrl: `https://example.com/${title}`, category: "other" },
          })
        ).json()
      ).id as string;
    const mainId = await item("Masterclass", "20");
    const addOnId = await item("Workbook", "12");
    const bump = await page.request.put(`/api/content/${mainId}/bump`, {
      headers,
      data: { contentId: addOnId, price: "5" },
    });
    expect(`${bump.status()} ${await bump.text()}`).toMatch(/^200 /);
    const code = await page.request.post("/api/discounts", {
      headers,
      data: { code: "SPRING", kind: "fixed", amountOff: "3.50", contentId: mainId },
    });
    expect(`${code.status()} ${await code.text()}`).toMatch(/^201 /);

    const buyer = await newPage(browser);
    const p = buyer.page;
    await p.setViewportSize({ width: 390, height: 844 });
    await p.goto(`/p/${mainId}`);
    await p.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(p);
    const email = uniqueEmail("keeps-card-buyer");
    await p.getByLabel("Email", { exact: true }).fill(email);
    await p.getByLabel("Card number").fill("4242 4242 4242 4242");
    await p.getByLabel("Expiration date").fill("12 / 34");
    await p.getByLabel("Security code").fill("123");
    await p.getByLabel("ZIP", { exact: true }).fill(TEST_ZIP);
    const typed = ["4242 4242 4242 4242", "12 / 34", "123"];

    await p.getByRole("checkbox", { name: "Add Workbook for $5.00" }).check();
    await expect.poll(() => p.getByTestId("checkout-total").textContent()).toBe("$25.00");
    await p.getByRole("button", { name: "Have a discount code?" }).click();
    await p.getByLabel("Discount code").fill("spring");
    await p.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => p.getByTestId("checkout-total").textContent()).toBe("$21.50");
    await p.screenshot({ path: screenshotPath("checkout-keeps-card-390"), fullPage: true });

    // The card typed before is still there, and the form says what is paid for.
    expect(await cardFields(p)).toEqual(typed);
    expect(await p.getByLabel("Email", { exact: true }).inputValue()).toBe(email);
    expect(await lines(p)).toEqual([
      "Masterclass $20.00",
      "Code SPRING −$3.50",
      "Workbook (add-on) +$5.00",
      "Total $21.50",
    ]);
    // The paywall's price stays in view, struck through with the code's price beside it.
    expect(await p.getByTestId("paywall-list-price").isVisible()).toBe(true);
    expect(await p.getByTestId("paywall-list-price").textContent()).toBe("$20.00");
    expect(await p.getByTestId("paywall-price").textContent()).toContain("$16.50");
    expect(await p.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);

    // A code can be removed: the price goes back, the card stays.
    await p.getByRole("button", { name: "Remove code SPRING" }).click();
    await expect.poll(() => p.getByTestId("checkout-total").textContent()).toBe("$25.00");
    expect(await lines(p)).toEqual(["Masterclass $20.00", "Workbook (add-on) +$5.00", "Total $25.00"]);
    expect(await p.getByTestId("paywall-list-price").count()).toBe(0);
    expect(await cardFields(p)).toEqual(typed);

    // Applied again and paid without retyping anything: Stripe charges the total shown.
    await p.getByRole("button", { name: "Have a discount code?" }).click();
    await p.getByLabel("Discount code").fill("SPRING");
    await p.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => p.getByTestId("checkout-total").textContent()).toBe("$21.50");
    expect(await cardFields(p)).toEqual(typed);
    await p.setViewportSize({ width: 1280, height: 900 });
    await p.screenshot({ path: screenshotPath("checkout-keeps-card-1280"), fullPage: true });
    await p.getByRole("button", { name: "Pay $21.50" }).click();
    await p.waitForURL(/\/success\?/);
    await p.getByText("Payment Successful!").waitFor();
    const intentId = new URL(p.url()).searchParams.get("payment_intent")!;
    const intent = await standinIntent(intentId);
    expect([intent.status, intent.amount, intent.amount_received]).toEqual(["succeeded", 2150, 2150]);
    await buyer.context.close();

    // The creator's sales: the item at its code's price, the add-on at its bump price.
    await expect
      .poll(async () => {
        const sales = (await (await page.request.get("/api/creator/sales")).json()) as {
          productName: string;
          amount: number;
          status: string;
          buyerEmail: string | null;
        }[];
        return sales
          .filter((s) => s.buyerEmail === email)
          .map((s) => `${s.productName} ${s.amount} ${s.status}`)
          .sort();
      })
      .toEqual(["Masterclass 16.5 completed", "Workbook 5 completed"]);
    await context.close();
  });
  it("the app's checkout page (/checkout/{id}) keeps the card too: the bump and a code change the total in place", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("keeps-card-spa-creator"));
    const headers = { origin: baseUrl() };
    const item = async (title: string, price: string) =>
      (
        await (
          await page.request.post("/api/content", {
            headers,
            multipart: { title, price, accessType: "link", linkUrl: `https://example.com/${title}`, category: "other" },
          })
        ).json()
      ).id as string;
    const mainId = await item("Course", "30");
    const addOnId = await item("Cheat sheet", "9");
    await page.request.put(`/api/content/${mainId}/bump`, { headers, data: { contentId: addOnId, price: "5" } });
    await page.request.post("/api/discounts", {
      headers,
      data: { code: "TENOFF", kind: "fixed", amountOff: "10", contentId: mainId },
    });
    await context.close();

    const buyer = await newPage(browser);
    const p = buyer.page;
    await p.setViewportSize({ width: 1280, height: 900 });
    const started = await p.request.post("/api/create-payment-intent", { headers, data: { contentId: mainId } });
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    await p.goto(`/checkout/${mainId}?payment_intent=${encodeURIComponent(clientSecret)}&amount=30`);
    await p.getByTestId("payment-element").locator("input").first().waitFor();
    await p.getByLabel("Card number").fill("4242 4242 4242 4242");
    await p.getByLabel("Expiration date").fill("12 / 34");
    await p.getByLabel("Security code").fill("123");
    await p.getByLabel("ZIP", { exact: true }).fill(TEST_ZIP);
    const typed = ["4242 4242 4242 4242", "12 / 34", "123"];
    await p.getByRole("checkbox", { name: "Add Cheat sheet for $5.00" }).check();
    await expect.poll(() => p.getByTestId("checkout-total").textContent()).toBe("$35.00");
    await p.getByRole("button", { name: "Have a discount code?" }).click();
    await p.getByLabel("Discount code").fill("tenoff");
    await p.getByRole("button", { name: "Apply" }).click();
    await expect.poll(() => p.getByTestId("checkout-total").textContent()).toBe("$25.00");
    await p.screenshot({ path: screenshotPath("checkout-keeps-card-spa-1280"), fullPage: true });
    expect(await cardFields(p)).toEqual(typed);
    expect(await p.getByTestId("checkout-discount").textContent()).toBe("Code TENOFF−$10.00");
    expect(await p.getByTestId("checkout-bump-line").textContent()).toBe("Cheat sheet (add-on)+$5.00");
    await p.getByRole("button", { name: "Remove code TENOFF" }).click();
    await expect.poll(() => p.getByTestId("checkout-total").textContent()).toBe("$35.00");
    expect(await cardFields(p)).toEqual(typed);
    await p.getByLabel("Email", { exact: true }).fill(uniqueEmail("keeps-card-spa-buyer"));
    await p.getByRole("button", { name: "Pay $35.00" }).click();
    await p.waitForURL(/\/success\?/);
    const intent = await standinIntent(new URL(p.url()).searchParams.get("payment_intent")!);
    expect([intent.status, intent.amount_received]).toEqual(["succeeded", 3500]);
    await buyer.context.close();
  });
});
