// A change of a checkout's terms that fails never leaves the screen showing another total than
// Stripe would charge: the terms on screen are sent again and paying waits for them; when that fails
// too, paying stays off and the page says to reload. Both checkouts (the paywall's at 390 px, the
// app's /checkout/{id} at 1280). Behaviour: docs/checkout-and-codes.md ("Changing a checkout's terms").
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHECKOUT_TERMS_MESSAGES } from "../../shared/paywall";
import { baseUrl, checkoutOpened, launch, newPage, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** The stand-in's own record of a PaymentIntent's amount (what Stripe would charge). */
async function standinAmount(id: string): Promise<number> {
  const res = await fetch(`${inject("stripeUrl")}/v1/payment_intents/${id}`, {
    headers: { authorization: "Bearer sk_test_e2e" },
  });
  return ((await res.json()) as { amount: number }).amount;
}

/** A creator's $price item with a $5 add-on; answers the item's id. */
async function itemWithBump(tag: string, title: string, price: string): Promise<string> {
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail(tag));
  const headers = { origin: baseUrl() };
  const item = async (name: string, amount: string) =>
    (
      await (
        await page.request.post("/api/content", {
          headers,
          multipart: {
            title: name,
            price: amount,
            accessType: "link",
            linkUrl: "https://example.com/x",
            category: "other",
          },
        })
      ).json()
    ).id as string;
  const mainId = await item(title, price);
  const addOnId = await item("Workbook", "12");
  const bump = await page.request.put(`/api/content/${mainId}/bump`, {
    headers,
    data: { contentId: addOnId, price: "5" },
  });
  expect(bump.status()).toBe(200);
  await context.close();
  return mainId;
}

const STRIPE_DOWN = { status: 502, json: { message: CHECKOUT_TERMS_MESSAGES.stripeDown } };
/** The server does the change, but its answer is lost as a 502 (Stripe applied the update, then the call failed). */
const appliedThen502 = async (route: Route) => {
  await route.fetch();
  await route.fulfill(STRIPE_DOWN);
};

/**
 * First the change applied but answered 502, then the terms on screen sent again for real; answers
 * the PaymentIntent the page names (once it has called).
 */
async function failOnceAfterApplying(page: Page): Promise<() => string> {
  let calls = 0;
  let paymentIntent = "";
  await page.route("**/api/checkout/terms", (route) => {
    paymentIntent = (route.request().postDataJSON() as { paymentIntent: string }).paymentIntent;
    return calls++ === 0 ? appliedThen502(route) : route.continue();
  });
  return () => paymentIntent;
}

describe("changes of terms that fail or overlap", () => {
  it("the paywall's checkout sends the terms on screen again, so the total shown is what Stripe charges", async () => {
    const mainId = await itemWithBump("terms-errors-creator", "Masterclass", "20");
    const { page: p, context } = await newPage(browser);
    await p.setViewportSize({ width: 390, height: 844 });
    await p.goto(`/p/${mainId}`);
    await p.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(p);
    await expect.poll(() => p.getByRole("button", { name: "Pay $20.00" }).isEnabled()).toBe(true);
    const intentOf = await failOnceAfterApplying(p);
    const box = p.getByRole("checkbox", { name: "Add Workbook for $5.00" });
    await box.check();
    await p.getByText(CHECKOUT_TERMS_MESSAGES.stripeDown).waitFor();
    await expect.poll(() => p.getByRole("button", { name: "Pay $20.00" }).isEnabled()).toBe(true);
    expect(await box.isChecked()).toBe(false);
    expect(await p.getByTestId("checkout-total").textContent()).toBe("$20.00");
    expect(await standinAmount(intentOf())).toBe(2000);
    expect(await p.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);

    // The terms on screen cannot be sent again either: paying stays off, and the page says to reload.
    await p.unroute("**/api/checkout/terms");
    await p.route("**/api/checkout/terms", (route) => route.fulfill(STRIPE_DOWN));
    await box.check();
    await p.getByText(CHECKOUT_TERMS_MESSAGES.stuck).waitFor();
    await expect.poll(() => p.getByRole("button", { name: "Pay $20.00", exact: true }).isDisabled()).toBe(true);
    await context.close();
  });

  it("the app's checkout page does the same", async () => {
    const mainId = await itemWithBump("terms-errors-spa-creator", "Course", "30");
    const { page: p, context } = await newPage(browser);
    await p.setViewportSize({ width: 1280, height: 900 });
    const started = await p.request.post("/api/create-payment-intent", {
      headers: { origin: baseUrl() },
      data: { contentId: mainId },
    });
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    const paymentIntent = clientSecret.split("_secret_")[0];
    await p.goto(`/checkout/${mainId}?payment_intent=${encodeURIComponent(clientSecret)}&amount=30`);
    await p.getByTestId("payment-element").locator("input").first().waitFor();
    await expect.poll(() => p.getByRole("button", { name: "Pay $30.00" }).isEnabled()).toBe(true);

    await failOnceAfterApplying(p);
    const box = p.getByRole("checkbox", { name: "Add Workbook for $5.00" });
    await box.check();
    await p.getByText(CHECKOUT_TERMS_MESSAGES.stripeDown).waitFor();
    await expect.poll(() => p.getByRole("button", { name: "Pay $30.00" }).isEnabled()).toBe(true);
    expect(await box.isChecked()).toBe(false);
    expect(await p.getByTestId("checkout-total").textContent()).toBe("$30.00");
    expect(await standinAmount(paymentIntent)).toBe(3000);

    await p.unroute("**/api/checkout/terms");
    await p.route("**/api/checkout/terms", (route) => route.fulfill(STRIPE_DOWN));
    await box.check();
    await p.getByText(CHECKOUT_TERMS_MESSAGES.stuck).waitFor();
    await expect.poll(() => p.getByRole("button", { name: "Pay $30.00" }).isDisabled()).toBe(true);
    await context.close();
  });

  it("the app's checkout page makes one change at a time: a code applied while the bump is changing waits", async () => {
    const mainId = await itemWithBump("terms-guard-creator", "Guide", "30");
    const { page: p, context: buyer } = await newPage(browser);
    await p.setViewportSize({ width: 1280, height: 900 });
    const started = await p.request.post("/api/create-payment-intent", {
      headers: { origin: baseUrl() },
      data: { contentId: mainId },
    });
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    await p.goto(`/checkout/${mainId}?payment_intent=${encodeURIComponent(clientSecret)}&amount=30`);
    await p.getByTestId("payment-element").locator("input").first().waitFor();
    // The bump's change is held at the network until the code has been tried.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const sent: unknown[] = [];
    await p.route("**/api/checkout/terms", async (route) => {
      sent.push(route.request().postDataJSON());
      await held;
      await route.continue();
    });
    await p.getByRole("checkbox", { name: "Add Workbook for $5.00" }).check();
    await p.getByRole("button", { name: "Have a discount code?" }).click();
    await p.getByLabel("Discount code").fill("ANYCODE");
    await p.getByRole("button", { name: "Apply" }).click();
    await p.getByText("Please wait a moment and try again.").waitFor();
    release();
    await expect.poll(() => p.getByTestId("checkout-total").textContent()).toBe("$35.00");
    expect(sent).toHaveLength(1);
    await buyer.close();
  });
});
