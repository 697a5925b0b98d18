// The checkout says plainly that leaving may bring one reminder, with a box to say no: the choice is
// sent to the checkout as it is made, and kept when the checkout starts again (a code applied).
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, checkoutOpened, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("checkout reminders", () => {
  it("both checkouts' email field says a reminder may come; 'Don't send me a reminder' is saved, and carried to a code applied", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("reminder-creator"));
    const headers = { origin: baseUrl() };
    const created = await page.request.post("/api/content", {
      headers,
      multipart: {
        title: "Field Notes",
        price: "20",
        accessType: "link",
        linkUrl: "https://example.com/x",
        category: "other",
      },
    });
    const id = ((await created.json()) as { id: string }).id;
    expect(
      (
        await page.request.post("/api/discounts", {
          headers,
          data: { code: "TENOFF", kind: "percent", percentOff: 10 },
        })
      ).status(),
    ).toBe(201);
    await context.close();

    const buyer = await newPage(browser);
    await buyer.page.goto(`/p/${id}`);
    await buyer.page.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer.page);
    await buyer.page.getByText("If you leave without paying, we may email you one reminder.").waitFor();
    await buyer.page.getByLabel("Email", { exact: true }).fill(uniqueEmail("reminder-buyer"));
    const saved = buyer.page.waitForRequest(
      (r) =>
        r.url().endsWith("/api/checkout/email") && (r.postDataJSON() as { noReminder?: boolean }).noReminder === true,
    );
    await buyer.page.getByLabel("Don't send me a reminder").check();
    await saved;
    await buyer.page.screenshot({ path: screenshotPath("checkout-no-reminder-1280"), fullPage: true });

    // A code applied changes this same checkout (which keeps the buyer's "no"), and the box stays ticked.
    const changed = buyer.page.waitForRequest((r) => r.url().endsWith("/api/checkout/terms"));
    await buyer.page.getByRole("button", { name: "Have a discount code?" }).click();
    await buyer.page.getByLabel("Discount code").fill("tenoff");
    await buyer.page.getByRole("button", { name: "Apply" }).click();
    expect((await changed).postDataJSON()).toMatchObject({ discountCode: "tenoff" });
    await buyer.page.getByTestId("checkout-discount").getByText("Code TENOFF").waitFor();
    expect(await buyer.page.getByLabel("Don't send me a reminder").isChecked()).toBe(true);

    // The app's checkout (/checkout/{id}, older links) says and saves the same.
    const started = await buyer.page.request.post("/api/create-payment-intent", { headers, data: { contentId: id } });
    const { clientSecret } = (await started.json()) as { clientSecret: string };
    await buyer.page.goto(`/checkout/${id}?payment_intent=${encodeURIComponent(clientSecret)}&amount=20`);
    await buyer.page.getByText("If you leave without paying, we may email you one reminder.").waitFor();
    const appSaved = buyer.page.waitForRequest(
      (r) =>
        r.url().endsWith("/api/checkout/email") && (r.postDataJSON() as { noReminder?: boolean }).noReminder === true,
    );
    await buyer.page.getByLabel("Don't send me a reminder").check();
    expect((await appSaved).postDataJSON()).toEqual({
      paymentIntent: clientSecret.split("_secret_")[0],
      noReminder: true,
    });
    await buyer.context.close();
  });
});
