// A payment that settles later (Link from a bank account, `processing` at Stripe): the paywall of the
// browser that paid says it is on its way instead of offering 'Unlock' again, and unlocks once
// Stripe reports it succeeded. The stand-in sends the webhooks to the app, as Stripe would.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PAYWALL_TEXT } from "../../shared/paywall";
import { baseUrl, launch, newPage } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const stripe = (path: string, key: string, params: Record<string, string>) =>
  fetch(`${inject("stripeUrl")}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });

describe("a payment still processing", () => {
  it("the paywall shows it on its way, not 'Unlock'; it unlocks when the payment succeeds", async () => {
    const { context, page } = await newPage(browser);
    const item = "demoFieldGuide01";
    const email = `slow-${Date.now()}+bank@example.com`;
    const started = await page.request.post("/api/create-payment-intent", {
      headers: { origin: baseUrl() },
      data: { contentId: item, buyerEmail: email },
    });
    expect(started.status()).toBe(200);
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    const intent = clientSecret.split("_secret_")[0];
    // The Link wallet, paying from its bank account.
    const confirmed = await stripe(`/v1/payment_intents/${intent}/confirm`, "pk_test_e2e", {
      client_secret: clientSecret,
      "payment_method_data[type]": "link",
      "payment_method_data[billing_details][email]": email,
      receipt_email: email,
    });
    expect(((await confirmed.json()) as { status: string }).status).toBe("processing");
    await expect
      .poll(
        async () =>
          ((await (await page.request.get(`/api/content/${item}/access`)).json()) as { status?: string }).status,
        { timeout: 15_000 },
      )
      .toBe("processing");

    await page.goto(`/p/${item}`);
    await page.getByText(PAYWALL_TEXT.processing).waitFor();
    expect(await page.getByRole("button", { name: "Unlock" }).isVisible()).toBe(false);

    expect(
      (await stripe(`/_standin/payment_intents/${intent}/settle`, "sk_test_e2e", { outcome: "succeeded" })).status,
    ).toBe(200);
    await expect
      .poll(
        async () =>
          ((await (await page.request.get(`/api/content/${item}/access`)).json()) as { owned: boolean }).owned,
        { timeout: 15_000 },
      )
      .toBe(true);
    await page.reload();
    await page.locator('[data-part="owned"]:not([hidden])').waitFor();
    expect(await page.getByText(PAYWALL_TEXT.processing).isVisible()).toBe(false);
    await context.close();
  });
});
