// The one-page checkout in a real browser: 'Unlock' opens the payment form on the paywall
// itself (no navigation), the wallet button Stripe's Express Checkout Element offers pays end to end
// (the stand-in offers Link), and the one-click upsell follows as after a card payment.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  checkoutOpened,
  launch,
  liveFunnelOfItem,
  newPage,
  payWith,
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

describe("the one-page checkout", () => {
  it("opens in place, pays with the wallet button, and the upsell follows", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("one-page-creator"));
    const { mainId } = await liveFunnelOfItem(page);
    await context.close();

    const buyer = await newPage(browser);
    await buyer.page.setViewportSize({ width: 390, height: 844 });
    await buyer.page.goto(`/p/${mainId}`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    expect(new URL(buyer.page.url()).pathname).toBe(`/p/${mainId}`);
    expect(await buyer.page.getByTestId("checkout-total").textContent()).toBe("$20.00");
    // Stripe.js offers a wallet here (the stand-in's Link), above the card form.
    const wallet = buyer.page.getByRole("button", { name: "Pay with Link" });
    await wallet.waitFor();
    await buyer.page.getByText("or pay by card").waitFor();
    await buyer.page.getByTestId("save-card-notice").waitFor();
    await buyer.page.screenshot({ path: screenshotPath("one-page-checkout-390"), fullPage: true });
    await wallet.click();
    await buyer.page.waitForURL(/\/checkout\/upsell\?/);
    await buyer.page.getByTestId("upsell-title").getByText("Add the workbook").waitFor();
    await buyer.page.getByRole("button", { name: "Add this to my order" }).click();
    await buyer.page.waitForURL(/\/success\?/);
    await buyer.page.getByText("Payment Successful!").waitFor();
    await expect.poll(() => buyer.page.getByTestId("order-extra").count()).toBe(1);
    expect(await buyer.page.getByTestId("order-extra").textContent()).toContain("Workbook");
    await buyer.context.close();
  });

  it("a declined card says 'Payment Failed' with Stripe's message, and another card pays from the same form", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("one-page-decline"));
    const res = await page.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: {
        title: "Field notes",
        price: "7",
        accessType: "link",
        linkUrl: "https://example.com/notes",
        category: "other",
      },
    });
    expect(res.status()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await page.goto(`/p/${id}`);
    await page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(page);
    await payWith(page, "4000 0000 0000 0002", uniqueEmail("one-page-declined"));
    const problem = page.getByRole("alert").filter({ hasText: "Payment Failed" });
    await problem.getByText("Your card was declined.", { exact: true }).waitFor();
    expect(await problem.getByText("Payment Failed", { exact: true }).count()).toBe(1);
    expect(new URL(page.url()).pathname).toBe(`/p/${id}`);
    await payWith(page, "4242 4242 4242 4242", uniqueEmail("one-page-paid"));
    await page.waitForURL(/\/success\?/);
    await context.close();
  });

  it("with the order bump ticked, the upsell page's 'Paid' and the order's total charged include the add-on", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("one-page-bump-creator"));
    const { mainId } = await liveFunnelOfItem(page);
    const addOn = await page.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: {
        title: "Audio notes",
        price: "9",
        accessType: "link",
        linkUrl: "https://example.com/audio",
        category: "other",
      },
    });
    const addOnId = ((await addOn.json()) as { id: string }).id;
    const bump = await page.request.put(`/api/content/${mainId}/bump`, {
      headers: { origin: baseUrl() },
      data: { contentId: addOnId, price: "4" },
    });
    expect(bump.status()).toBe(200);
    await context.close();

    const buyer = await newPage(browser);
    await buyer.page.goto(`/p/${mainId}`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    await buyer.page.getByRole("checkbox", { name: /^Add Audio notes for \$4\.00/ }).check();
    await expect.poll(() => buyer.page.getByTestId("checkout-total").textContent()).toBe("$24.00");
    await checkoutOpened(buyer.page);
    await payWith(buyer.page, "4242 4242 4242 4242", uniqueEmail("one-page-bump-buyer"));
    await buyer.page.waitForURL(/\/checkout\/upsell\?/);
    await expect.poll(() => buyer.page.getByTestId("order-paid").textContent()).toContain("✓ Paid $24.00");
    expect(await buyer.page.getByTestId("order-bump").textContent()).toContain("Audio notes ($4.00)");
    await buyer.page.getByRole("button", { name: "Add this to my order" }).click();
    // The funnel's one offer taken, the success page's total is everything charged: $20 + $4 + $15.
    await buyer.page.waitForURL(/\/success\?/);
    await expect.poll(() => buyer.page.getByTestId("order-total").textContent()).toBe("Total charged$39.00");
    await buyer.page.screenshot({ path: screenshotPath("one-page-checkout-bump-success"), fullPage: true });
    await buyer.context.close();
  });
});
