import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, mailedLink, mailCount, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe("landing, signed out", () => {
  it("shows the hero, the drop zone, the link and text cards and the feature cards", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/");
    await page.getByText("Drag & drop your file here, or click to upload").waitFor();
    for (const text of [
      "Support for images, videos, PDFs, documents, and more",
      "Maximum file size: 5 GB",
      "Paywall a Link",
      "Paywall Text Content",
      "Instant Paywalls",
      "Set Your Price",
      "Track Everything",
    ]) {
      expect(await page.getByText(text, { exact: true }).count(), text).toBeGreaterThan(0);
    }
    expect(await page.getByRole("button", { name: "Ape It" }).isVisible()).toBe(true);
    expect(await page.getByRole("link", { name: "View Pricing" }).isVisible()).toBe(true);
    expect(await page.getByRole("link", { name: "Sign In" }).isVisible()).toBe(true);
    await page.screenshot({ path: screenshotPath("landing"), fullPage: true });
    await context.close();
  });

  it("does nothing for an empty link or text", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/");
    await page.getByText("Paywall a Link").waitFor();
    await page.getByRole("button", { name: "Create Paywall" }).first().click();
    await page.getByRole("button", { name: "Create Paywall" }).nth(1).click();
    expect(new URL(page.url()).pathname).toBe("/");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await context.close();
  });
});

describe("pending upload intent survives sign-in", () => {
  it("pick a file -> sign in with the emailed link -> /upload shows the restored intent", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("picker");
    await page.goto("/");
    await page
      .getByTestId("file-input")
      .setInputFiles({ name: "my-course.pdf", mimeType: "application/pdf", buffer: Buffer.alloc(2048, 1) });
    await page.waitForURL(/\/sign-in\?returnTo=/);
    expect(await page.evaluate(() => JSON.parse(sessionStorage.getItem("uploadFile")!))).toEqual({
      name: "my-course.pdf",
      size: 2048,
      type: "application/pdf",
    });

    const seen = await mailCount(email);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByText("Check your email").waitFor();
    await page.goto(await mailedLink(email, seen));

    await page.waitForURL((url) => url.pathname === "/upload");
    const intent = page.getByTestId("restored-intent");
    await intent.waitFor();
    expect(await intent.textContent()).toContain("my-course.pdf");
    expect(await intent.textContent()).toContain("2 KB");
    expect(await page.getByText("Upload", { exact: true }).first().isVisible()).toBe(true);
    await context.close();
  });

  it("a pasted link is restored on /upload after sign-in", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("linker");
    await page.goto("/");
    await page.getByLabel("Link to paywall").fill("https://example.com/secret-video");
    await page.getByRole("button", { name: "Create Paywall" }).first().click();
    await page.waitForURL(/\/sign-in/);
    const seen = await mailCount(email);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Email me a sign-in link" }).click();
    await page.getByText("Check your email").waitFor();
    // The link opens in a new tab, as it would from a mail client: the waiting tab continues by itself.
    const other = await context.newPage();
    await other.goto(await mailedLink(email, seen));
    await page.waitForURL((url) => url.pathname === "/upload", { timeout: 15_000 });
    await page.getByTestId("restored-intent").waitFor();
    expect(await page.getByTestId("restored-intent").textContent()).toContain("https://example.com/secret-video");
    await context.close();
  });
});

describe("guards", () => {
  it("signed out: creator paths ask to sign in, an unknown path is a 404 with the public header; funnels say so in their words", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/no-such-page");
    await page.getByText("404 Page Not Found").waitFor();
    expect(await page.getByRole("link", { name: "Go to Home" }).isVisible()).toBe(true);
    expect(await page.getByRole("link", { name: "View Pricing" }).isVisible()).toBe(true);
    for (const path of ["/upload", "/checkout/upsell"]) {
      await page.goto(path);
      await page.getByText("Sign In Required").waitFor();
      expect(await page.getByText("This page requires authentication. Please sign in to continue.").isVisible()).toBe(
        true,
      );
      expect(await page.getByRole("button", { name: "Sign In to Continue" }).isVisible()).toBe(true);
    }
    await page.goto("/funnels");
    await page.getByText("Authentication Required").waitFor();
    await page.goto("/content/abc/edit-funnel");
    await page.getByText("Please log in to edit funnels").waitFor();
    await page.goto("/dashboard");
    await page.getByText("Drag & drop your file here, or click to upload").waitFor();
    await context.close();
  });

  it("signed in: unknown paths show 404 with a way back; the dashboard shell renders", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("guard");
    await signIn(page, email);
    await page.getByText("Content & Uploads").waitFor();
    expect(await page.getByText("Sales & Buyers").isVisible()).toBe(true);
    expect(await page.getByText("Payouts Not Set Up").isVisible()).toBe(true);
    await page.getByText("Total Earnings").waitFor();
    await page.getByTestId("stat-cards").getByText("$0.00").first().waitFor();
    await page.screenshot({ path: screenshotPath("dashboard"), fullPage: true });

    await page.getByRole("tab", { name: "Sales & Buyers" }).click();
    await page.getByText("No sales yet").waitFor();

    await page.goto("/no-such-page");
    await page.getByText("404 Page Not Found").waitFor();
    expect(await page.getByText("The page you're looking for doesn't exist.").isVisible()).toBe(true);
    await page.getByRole("link", { name: "Go to Dashboard" }).click();
    await page.getByText("Content & Uploads").waitFor();

    await page.goto("/admin");
    await page.getByText("Access Denied").waitFor();
    expect(await page.getByText("You don't have permission to access the admin dashboard.").isVisible()).toBe(true);

    // Logout ends the session: the landing shows again.
    await page.goto("/");
    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByText("Drag & drop your file here, or click to upload").waitFor();
    await context.close();
  });

  it("the admin sees the Admin link and the admin dashboard", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, "admin@apewall.test");
    await page.getByRole("link", { name: "Admin" }).click();
    await page.getByText("Admin Dashboard").waitFor();
    await page.getByText("Platform Commission").waitFor();
    await context.close();
  });
});

describe("feedback", () => {
  it("asks for the required fields, then stores the feedback", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/feedback");
    await page.getByRole("button", { name: "Submit Feedback" }).click();
    await page.getByText("Please fill in all required fields.", { exact: true }).waitFor();
    expect(await page.getByText("Missing Information", { exact: true }).isVisible()).toBe(true);

    // A native select since the page is the Worker's (docs/pages.md).
    await page.getByLabel("Type").selectOption({ label: "Feature request" });
    await page.getByLabel("Subject *").fill("Dark mode");
    await page.getByLabel("Message *").fill("Please add a dark mode for the dashboard.");
    await page.getByRole("button", { name: "Submit Feedback" }).click();
    await page.getByText("Thank you for your feedback!").waitFor();
    await context.close();
  });

  it("prefills the signed-in user's email", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("feedback");
    await signIn(page, email);
    await page.goto("/feedback");
    await page.waitForFunction(
      (e) => (document.getElementById("fb-email") as HTMLInputElement | null)?.value === e,
      email,
    );
    await context.close();
  });
});

describe("pricing", () => {
  it("shows the Creator plan with its 20% fee and Pro at $99/month", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/pricing");
    await page.getByText("+ 20% platform fee").waitFor();
    expect(await page.getByText("/month · zero commission").isVisible()).toBe(true);
    expect(await page.getByRole("link", { name: "Get Started Free" }).isVisible()).toBe(true);
    await context.close();
  });
});
