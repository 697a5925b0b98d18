// API keys: a creator makes a key on /settings → Developers, sees its secret once, calls the
// API with it from outside the browser, revokes it, and the API then refuses it.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, consoleErrors, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
const callApi = (key: string) => fetch(`${baseUrl()}/api/content`, { headers: { authorization: `Bearer ${key}` } });

describe("API keys in /settings", () => {
  it("creates a key shown once, the API answers it, and after Revoke it is refused", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    await signIn(page, uniqueEmail("keys"));
    await page.goto("/settings");
    const section = page.locator("#developers");
    await section.getByText("No API keys yet.", { exact: false }).waitFor();

    await section.getByRole("button", { name: "Create API key" }).click();
    // A name is needed: the error shows beside the field.
    await section.getByRole("button", { name: "Create key" }).click();
    await expect
      .poll(() => section.locator("#api-key-name-error").textContent())
      .toBe("Name must be 1 to 60 characters");
    await section.getByLabel("Name").fill("Store backend");
    await section.getByRole("checkbox", { name: /sales:read/ }).check();
    await section.getByRole("button", { name: "Create key" }).click();

    const shown = section.getByTestId("new-api-key");
    await shown.waitFor();
    expect(await shown.textContent()).toContain("You won't see this key again");
    const key = await shown.getByLabel("Your new API key").inputValue();
    expect(key).toMatch(/^aw_test_[A-Za-z0-9_-]{43}$/);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow(page)).toBe(0);
    await section.screenshot({ path: screenshotPath("api-keys-created-390") });

    const answered = await callApi(key);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toEqual([]);

    await shown.getByRole("button", { name: "I've saved it" }).click();
    await page.reload();
    const row = section.getByTestId("api-key-row");
    await row.waitFor();
    expect(await page.content()).not.toContain(key);
    expect(await row.textContent()).toContain(key.slice(0, 12));

    await row.getByRole("button", { name: "Revoke" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
    await row.getByText("Revoked", { exact: true }).waitFor();
    await section.getByRole("list", { name: "Recent key activity" }).getByText("Revoked", { exact: true }).waitFor();
    expect(await sidewaysOverflow(page)).toBe(0);
    await section.screenshot({ path: screenshotPath("api-keys-revoked-390") });

    expect((await callApi(key)).status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });
});
