// The signed-out landing as the Worker renders it (docs/pages.md): complete with JavaScript off; with
// it on, the drop zone and the link and text cards keep the visitor's intent through sign-in to the
// upload page, as the SPA's landing did. At 1280 and 390 px, no sideways scroll, no console error.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  clientAddress,
  consoleErrors,
  launch,
  mailCount,
  mailedLink,
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

const SPEC_TEXTS = [
  "Drag & drop your file here, or click to upload",
  "Support for images, videos, PDFs, documents, and more",
  "Maximum file size: 5 GB",
  "Images",
  "Videos",
  "Documents",
  "Paywall a Link",
  "Paywall Text Content",
  "Instant Paywalls",
  "Set Your Price",
  "Track Everything",
];

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** Both widths of the page as it is now: a screenshot each, and no sideways scroll at either. */
async function bothWidths(page: Page, name: string) {
  for (const [width, height] of [
    [1280, 860],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    expect(await noSidewaysScroll(page), `${name} @${width}`).toBe(true);
    await page.screenshot({ path: screenshotPath(`${name}-${width}`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** Signs in through the emailed link from the sign-in page the landing sent the visitor to. */
async function signInFromHere(page: Page, email: string) {
  await page.waitForURL(/\/sign-in\?returnTo=/);
  const seen = await mailCount(email);
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await page.getByText("Check your email").waitFor();
  await page.goto(await mailedLink(email, seen));
  await page.waitForURL((url) => url.pathname === "/upload");
}

describe("the landing with JavaScript off", () => {
  it("shows every spec text, the top bar and the forms, at 1280 and 390 px", async () => {
    const context = await browser.newContext({
      baseURL: baseUrl(),
      javaScriptEnabled: false,
      extraHTTPHeaders: clientAddress(),
    });
    const page = await context.newPage();
    for (const path of ["/", "/dashboard"]) {
      await page.goto(path);
      for (const text of SPEC_TEXTS) {
        expect(await page.getByText(text, { exact: true }).first().isVisible(), `${path}: ${text}`).toBe(true);
      }
    }
    expect(await page.getByRole("button", { name: "Ape It" }).isVisible()).toBe(true);
    expect(await page.getByRole("link", { name: "View Pricing" }).getAttribute("href")).toBe("/pricing");
    expect(await page.getByRole("link", { name: "Feedback" }).first().getAttribute("href")).toBe("/feedback");
    expect(await page.getByRole("link", { name: "Sign In" }).getAttribute("href")).toBe("/api/login");
    expect(await page.getByRole("button", { name: "Create Paywall" }).count()).toBe(2);
    expect(await page.getByPlaceholder("https://example.com/your-private-content").isVisible()).toBe(true);
    expect(await page.getByLabel("Text to paywall").getAttribute("rows")).toBe("3");
    expect(await page.getByTestId("selected-file").isVisible()).toBe(false);
    await bothWidths(page, "landing-no-js");
    // Without the island a form still leads to sign-in (the intent is kept only with JavaScript).
    await page.getByRole("button", { name: "Ape It" }).click();
    await page.waitForURL(/\/sign-in/);
    await context.close();
  });
});

describe("the landing with JavaScript on", () => {
  it("looks as the SPA's did, logs no error, and shows 'Drop your file here!' while a file is over it", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    await page.goto("/");
    const zone = page.getByTestId("drop-zone");
    await zone.waitFor();
    await bothWidths(page, "landing");
    const drag = await page.evaluateHandle(() => new DataTransfer());
    await zone.dispatchEvent("dragover", { dataTransfer: drag });
    await page.getByText("Drop your file here!", { exact: true }).waitFor();
    await page.screenshot({ path: screenshotPath("landing-drag-over-1280") });
    await zone.dispatchEvent("dragleave", { dataTransfer: drag });
    await page.getByText("Drag & drop your file here, or click to upload", { exact: true }).waitFor();

    // A file over the maximum is silently ignored (spec §5): nothing kept, no sign-in.
    await page.evaluate(() => {
      const big = new File(["x"], "huge.mov", { type: "video/quicktime" });
      Object.defineProperty(big, "size", { value: 5 * 1024 ** 3 + 1 });
      const drop = new Event("drop", { bubbles: true, cancelable: true });
      Object.defineProperty(drop, "dataTransfer", { value: { files: [big] } });
      document.querySelector('[data-testid="drop-zone"]')?.dispatchEvent(drop);
    });
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await page.getByRole("button", { name: "Ape It" }).isVisible()).toBe(true);

    // Empty link or text: nothing happens.
    await page.getByRole("button", { name: "Create Paywall" }).first().click();
    await page.getByRole("button", { name: "Create Paywall" }).nth(1).click();
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("a chosen file reads 'Upload {name}' and can be removed (sign-in held back to look)", async () => {
    const { page, context } = await newPage(browser);
    // A 204 answer to a navigation leaves the page as it is: the chosen file stays in view.
    await page.route("**/api/login", (route) => route.fulfill({ status: 204 }));
    await page.goto("/");
    await page
      .getByTestId("file-input")
      .setInputFiles({ name: "my-course.pdf", mimeType: "application/pdf", buffer: Buffer.alloc(2048, 1) });
    await page.getByRole("button", { name: "Upload my-course.pdf" }).waitFor();
    expect(await page.getByTestId("selected-file").textContent()).toContain("2 KB");
    await bothWidths(page, "landing-file-chosen");
    await page.getByRole("button", { name: "Remove file" }).click();
    await page.getByRole("button", { name: "Ape It" }).waitFor();
    expect(await page.getByTestId("selected-file").isVisible()).toBe(false);
    await context.close();
  });

  it("a file picked by drag & drop -> sign in -> /upload shows the restored intent", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("landing-drop");
    await page.goto("/");
    const drop = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(3072)], "zine.pdf", { type: "application/pdf" }));
      return data;
    });
    await page.getByTestId("drop-zone").dispatchEvent("drop", { dataTransfer: drop });
    await page.waitForURL(/\/sign-in\?returnTo=/);
    expect(await page.evaluate(() => JSON.parse(sessionStorage.getItem("uploadFile") ?? "null"))).toEqual({
      name: "zine.pdf",
      size: 3072,
      type: "application/pdf",
    });
    await signInFromHere(page, email);
    const intent = page.getByTestId("restored-intent");
    await intent.waitFor();
    expect(await intent.textContent()).toContain("zine.pdf");
    expect(await intent.textContent()).toContain("3 KB");
    await context.close();
  });

  it("the text card's text is restored on /upload after sign-in", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("landing-text");
    await page.goto("/");
    await page.getByLabel("Text to paywall").fill("The secret recipe: bananas.");
    await page.getByRole("button", { name: "Create Paywall" }).nth(1).click();
    await signInFromHere(page, email);
    await page.getByTestId("restored-intent").waitFor();
    expect(await page.getByTestId("restored-intent").textContent()).toContain("The secret recipe: bananas.");
    await context.close();
  });
});

describe("/ and /dashboard by session", () => {
  it("a signed-in creator gets the dashboard; the app signed out goes to the Worker's landing with a full page load", async () => {
    const { page, context } = await newPage(browser);
    // Signed out inside the app (its not-found screen): 'Go to Home' leaves the app for the landing.
    await page.goto("/no-such-page");
    await page.getByText("404 Page Not Found").waitFor();
    // From here on (the not-found page's own 404 is the console's one expected line).
    const errors = consoleErrors(page);
    await page.getByRole("link", { name: "Go to Home" }).click();
    await page.getByText("Drag & drop your file here, or click to upload").waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.locator("#root").count()).toBe(0);

    await signIn(page, uniqueEmail("landing-session"));
    for (const path of ["/", "/dashboard"]) {
      await page.goto(path);
      await page.getByText("Content & Uploads").waitFor();
      expect(await page.getByText("Drag & drop your file here, or click to upload").count()).toBe(0);
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
