// The stand-in Payment Element's billing fields, as Stripe's collects them for a card by default:
// Country from the browser's language region, and the postal code where it is asked (a US ZIP,
// required); what was typed reaches the ConfirmationToken's billing details. See docs/tax.md ("The stand-in").
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launch, screenshotPath, TEST_ZIP } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

type Result = { error?: { code?: string; message: string }; confirmationToken?: { id: string } };

/** A page with only the stand-in's Stripe.js and a Payment Element, in the browser language `locale`. */
async function paymentElement(locale: string, width = 1280): Promise<Page> {
  const context = await browser.newContext({ locale, viewport: { width, height: 800 } });
  const page = await context.newPage();
  await page.setContent(
    `<!doctype html><html><body style="font-family:system-ui;margin:16px"><div id="pe"></div></body></html>`,
  );
  await page.addScriptTag({ url: `${inject("stripeUrl")}/v3` });
  await page.evaluate(() => {
    const w = window as unknown as { Stripe: (pk: string) => unknown; standin: unknown };
    const stripe = w.Stripe("pk_test_billing") as {
      elements: () => { create: (t: string) => { mount: (s: string) => void } };
    };
    const elements = stripe.elements();
    elements.create("payment").mount("#pe");
    w.standin = { stripe, elements };
  });
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiration date").fill("12 / 34");
  await page.getByLabel("Security code").fill("123");
  return page;
}

const tokenOf = (page: Page) =>
  page.evaluate(async () => {
    type Standin = {
      stripe: { createConfirmationToken: (o: { elements: unknown }) => Promise<unknown> };
      elements: unknown;
    };
    const { stripe, elements } = (window as unknown as { standin: Standin }).standin;
    return (await stripe.createConfirmationToken({ elements })) as Result;
  });

const readToken = async (id: string) =>
  (await (
    await fetch(`${inject("stripeUrl")}/v1/confirmation_tokens/${id}`, {
      headers: { authorization: "Bearer sk_test_e2e" },
    })
  ).json()) as { payment_method_preview: { billing_details: { address: Record<string, string | null> } } };

describe("the stand-in Payment Element's billing fields", () => {
  it("a US browser: Country United States and a required ZIP, carried into the ConfirmationToken", async () => {
    const page = await paymentElement("en-US");
    expect(await page.getByLabel("Country").inputValue()).toBe("US");
    const zip = page.getByLabel("ZIP", { exact: true });
    expect(await zip.isVisible()).toBe(true);
    expect((await tokenOf(page)).error).toMatchObject({ code: "incomplete_zip", message: "Your ZIP is incomplete." });
    await zip.fill("123");
    expect((await tokenOf(page)).error).toMatchObject({ code: "invalid_zip", message: "Your ZIP is invalid." });
    await zip.fill(TEST_ZIP);
    const made = await tokenOf(page);
    expect(made.error).toBeUndefined();
    const token = await readToken(made.confirmationToken!.id);
    expect(token.payment_method_preview.billing_details.address).toEqual({
      city: null,
      country: "US",
      line1: null,
      line2: null,
      postal_code: TEST_ZIP,
      state: null,
    });
    await page.context().close();
  });

  it("a French browser: Country France and no postal code; Canada asks for one", async () => {
    const page = await paymentElement("fr-FR", 390);
    expect(await page.getByLabel("Country").inputValue()).toBe("FR");
    expect(await page.locator("[data-postal]").isVisible()).toBe(false);
    await page.screenshot({ path: screenshotPath("tax-standin-billing-fields-390"), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
    const made = await tokenOf(page);
    const token = await readToken(made.confirmationToken!.id);
    expect(token.payment_method_preview.billing_details.address).toMatchObject({ country: "FR", postal_code: null });

    await page.getByLabel("Country").selectOption("CA");
    const postal = page.getByLabel("Postal code", { exact: true });
    expect(await postal.isVisible()).toBe(true);
    expect((await tokenOf(page)).error?.code).toBe("incomplete_postal_code");
    await postal.fill("M5V 2T6");
    const canadian = await readToken((await tokenOf(page)).confirmationToken!.id);
    expect(canadian.payment_method_preview.billing_details.address).toMatchObject({
      country: "CA",
      postal_code: "M5V 2T6",
    });
    await page.context().close();
  });
});
