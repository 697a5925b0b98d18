// Card testing in a real browser: the paywall's checkout is confirmed by our server, so a card
// declined five times in an hour is refused with a clear message before Stripe is asked, the Pay
// button works again, and another card pays from the same form. Behaviour: docs/security.md
// ("Card testing").
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DECLINE_LIMIT_MESSAGES, DECLINE_LIMITS } from "../../shared/card-testing";
import {
  baseUrl,
  checkoutOpened,
  launch,
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

/** How many payments of `pi` failed at the stand-in (what Stripe saw). */
async function failuresAtStripe(pi: string): Promise<number> {
  const res = await fetch(`${inject("stripeUrl")}/v1/events?type=payment_intent.payment_failed&limit=100`, {
    headers: { authorization: "Bearer sk_test_e2e" },
  });
  const { data } = (await res.json()) as { data: { data: { object: { id: string } } }[] };
  return data.filter((e) => e.data.object.id === pi).length;
}

describe("card testing", () => {
  it("a card declined five times is refused with a clear message, Pay works again, and a good card pays", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("card-testing-creator"));
    const res = await page.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: {
        title: "Field recordings",
        price: "6",
        accessType: "link",
        linkUrl: "https://example.com/recordings",
        category: "other",
      },
    });
    expect(res.status()).toBe(201);
    const { id } = (await res.json()) as { id: string };
    await context.close();

    const buyer = await newPage(browser);
    const p = buyer.page;
    let paymentIntent = "";
    p.on("request", (r) => {
      if (r.url().endsWith("/api/checkout/confirm"))
        paymentIntent = (JSON.parse(r.postData() ?? "{}") as { paymentIntent: string }).paymentIntent;
    });
    await p.goto(`/p/${id}`);
    await p.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(p);
    const email = uniqueEmail("card-tester");
    const problem = p.locator("#pay-error");
    const pay = p.getByRole("button", { name: /^Pay \$/ });
    for (let i = 0; i < DECLINE_LIMITS.card; i++) {
      await payWith(p, "4000 0000 0000 9995", email);
      await expect.poll(() => problem.textContent()).toContain("Your card has insufficient funds.");
      await expect.poll(() => pay.isEnabled()).toBe(true);
    }
    expect(await failuresAtStripe(paymentIntent)).toBe(DECLINE_LIMITS.card);

    await payWith(p, "4000 0000 0000 9995", email);
    await problem.getByText(DECLINE_LIMIT_MESSAGES.card, { exact: true }).waitFor();
    expect(await problem.getByText("Payment Failed", { exact: true }).count()).toBe(1);
    await expect.poll(() => pay.isEnabled()).toBe(true);
    // Refused before Stripe: no sixth failure there.
    expect(await failuresAtStripe(paymentIntent)).toBe(DECLINE_LIMITS.card);
    expect(await p.getByLabel("Email", { exact: true }).inputValue()).toBe(email);
    await p.screenshot({ path: screenshotPath("cardtest-refused-1280"), fullPage: true });
    await p.setViewportSize({ width: 390, height: 844 });
    await problem.getByText(DECLINE_LIMIT_MESSAGES.card, { exact: true }).waitFor();
    expect(await p.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    await p.screenshot({ path: screenshotPath("cardtest-refused-390"), fullPage: true });

    await payWith(p, "4242 4242 4242 4242", email);
    await p.waitForURL(/\/success\?/);
    await p.getByText("Payment Successful!").waitFor();
    expect(new URL(p.url()).searchParams.get("payment_intent")).toBe(paymentIntent);
    await buyer.context.close();
  });
});
