// Who the buyer pays: a creator fills in a public profile in /settings, and a buyer's
// paywall says "by {name}" with the avatar and a way to contact the creator.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  checkoutOpened,
  consoleErrors,
  launch,
  newPage,
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

/** How far the page scrolls sideways (0 on a screen that fits). */
const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** A 1×1 PNG. */
const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe("the creator's public profile", () => {
  it("a creator sets a name, avatar and support email; the buyer's paywall says 'by {name}' with the avatar and a contact link", async () => {
    const { page: creator, context: creatorContext } = await newPage(browser);
    await signIn(creator, uniqueEmail("profile"));
    const published = await creator.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: { title: "Field Notes", price: "7", accessType: "link", linkUrl: "https://example.com/notes" },
    });
    expect(published.status()).toBe(201);
    const { id } = (await published.json()) as { id: string };

    await creator.goto("/settings");
    const form = creator.getByRole("form", { name: "Public profile" });
    await form.waitFor();
    // A bad address is refused beside its field, not only in a toast.
    await creator.getByLabel("Display name").fill("Maya's Field Studio");
    await creator.getByLabel("Support email").fill("not-an-email");
    await creator.getByRole("button", { name: "Save profile" }).click();
    await expect
      .poll(() => form.getByRole("alert").textContent())
      .toBe("Enter a valid support email address, like help@example.com");

    await creator.getByLabel("Support email").fill("help@maya.example");
    await creator.getByRole("button", { name: "Save profile" }).click();
    await creator.getByText("Profile Saved", { exact: true }).first().waitFor();
    await creator.locator("#profile-avatar").setInputFiles({ name: "me.png", mimeType: "image/png", buffer: PNG_1X1 });
    await creator.getByTestId("profile-avatar").waitFor();
    await creator.screenshot({ path: screenshotPath("creator-profile-settings"), fullPage: true });
    await creator.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow(creator)).toBe(0);
    await creator.screenshot({ path: screenshotPath("creator-profile-settings-390"), fullPage: true });
    await creatorContext.close();

    const { page: buyer, context: buyerContext } = await newPage(browser);
    const errors = consoleErrors(buyer);
    await buyer.goto(`/p/${id}`);
    const byline = buyer.getByTestId("creator-byline");
    expect(await byline.getByTestId("creator-name").textContent()).toBe("by Maya's Field Studio");
    const avatar = byline.getByTestId("creator-avatar");
    await expect.poll(() => avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(1);
    // Its box is reserved: the image is drawn at the size the page gave it.
    expect(await avatar.boundingBox()).toMatchObject({ width: 32, height: 32 });
    const contact = byline.getByRole("link", { name: "Contact the creator" });
    expect(await contact.getAttribute("href")).toBe("mailto:help@maya.example");
    await buyer.screenshot({ path: screenshotPath("creator-profile-paywall") });

    // Checkout names the same creator.
    await buyer.getByRole("button", { name: "Unlock" }).click();
    await checkoutOpened(buyer);
    await buyer.getByTestId("creator-name").waitFor();
    expect(await buyer.getByTestId("creator-name").textContent()).toBe("by Maya's Field Studio");
    expect(await buyer.getByTestId("creator-contact").getAttribute("href")).toBe("mailto:help@maya.example");
    await buyer.setViewportSize({ width: 390, height: 844 });
    expect(await sidewaysOverflow(buyer)).toBe(0);
    await buyer.screenshot({ path: screenshotPath("creator-profile-checkout-390") });
    await buyer.goto(`/p/${id}`);
    expect(await sidewaysOverflow(buyer)).toBe(0);
    await buyer.screenshot({ path: screenshotPath("creator-profile-paywall-390") });
    expect(errors).toEqual([]);
    await buyerContext.close();
  });
});
