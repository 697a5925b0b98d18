// What the developer screens say is true: a failed webhook delivery names its cause (refused,
// timed out, the name not resolving, the status answered), /docs/api leads back to the app and shows
// the creator's own key prefix, "Sign in again" while creating a key keeps what was typed and says
// why, and a created key shows every character (underscores too). docs/api-and-webhooks.md.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY_MESSAGES } from "../../shared/developer";
import { baseUrl, consoleErrors, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
let server: Server;
const hung: (() => void)[] = [];

beforeAll(async () => {
  browser = await launch();
  server = createServer((req, res) => {
    req.resume();
    if (req.url === "/fail") res.writeHead(500).end("Internal Server Error");
    // What Cloudflare's edge answers a Worker's fetch() for a name that does not resolve (error 1016).
    else if (req.url === "/edge-dns") res.writeHead(530, { "content-type": "text/plain" }).end("error code: 1016");
    else if (req.url === "/slow") hung.push(() => res.destroy());
    else res.writeHead(200).end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await browser?.close();
  for (const end of hung) end();
  await new Promise((resolve) => server?.close(resolve));
});

const sideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
const local = (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

async function endpointWithTestEvent(page: Page, url: string) {
  const made = await page.request.post("/api/developer/webhooks", {
    headers: { origin: baseUrl() },
    data: { url, events: ["sale.completed"], description: "" },
  });
  expect(made.status()).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const sent = await page.request.post(`/api/developer/webhooks/${id}/test`, { headers: { origin: baseUrl() } });
  expect(sent.status()).toBe(201);
}

const firstAttempt = (row: Locator) => row.getByTestId("webhook-attempt").first();

describe("developer screens tell the truth", () => {
  it("a failed delivery names its cause: refused, timed out, name not resolved, the status answered; no internals", async () => {
    const { page, context } = await newPage(browser);
    const errors = consoleErrors(page);
    await signIn(page, uniqueEmail("dev-cause"));
    const cases = [
      { url: "http://127.0.0.1:9/closed", cause: "Connection refused or closed" },
      { url: local("/fail"), cause: "Answered 500" },
      { url: local("/edge-dns"), cause: "Could not resolve host" },
      { url: "http://no-such-host.invalid/hook", cause: "Could not connect" },
      { url: local("/slow"), cause: "Timed out after 10 s" },
    ];
    for (const c of cases) await endpointWithTestEvent(page, c.url);

    await page.goto("/settings");
    const card = page.locator("#webhooks");
    for (const c of cases) {
      const row = card.getByTestId("webhook-endpoint").filter({ hasText: c.url });
      await row.getByRole("button", { name: "Deliveries" }).click();
      // The log looks again every 2 s while a delivery is pending (a failed one is, awaiting its retry).
      await expect.poll(() => firstAttempt(row).count(), { timeout: 25_000, interval: 500 }).toBe(1);
    }
    await card.screenshot({ path: screenshotPath("developer-webhook-cause-1280") });
    for (const c of cases) {
      const attempt = firstAttempt(card.getByTestId("webhook-endpoint").filter({ hasText: c.url }));
      expect(await attempt.textContent()).toContain(c.cause);
      expect(await attempt.locator("[data-cause]").textContent()).toBe(c.cause);
    }
    const log = await card.textContent();
    expect(log).not.toMatch(/internal error|reference =|Network connection lost|aborted/i);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await sideways(page)).toBe(0);
    await card.screenshot({ path: screenshotPath("developer-webhook-cause-390") });
    expect(errors).toEqual([]);
    await context.close();
  });

  it("/docs/api leads back to the app and shows the signed-in creator's own key prefix; a generic one when signed out", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("dev-docs"));
    const made = await page.request.post("/api/developer/keys", {
      headers: { origin: baseUrl() },
      data: { name: "Store backend", scopes: ["content:read"] },
    });
    expect(made.status()).toBe(201);
    const { prefix } = (await made.json()) as { prefix: string };
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/docs/api");
    await page.getByRole("heading", { name: "ApeWall API", level: 1 }).waitFor({ timeout: 20_000 });
    await page.screenshot({ path: screenshotPath("developer-docs-api-390") });
    const bar = page.getByRole("navigation", { name: "ApeWall" });
    expect(await bar.getByRole("link", { name: "← Back to Dashboard" }).getAttribute("href", { timeout: 2000 })).toBe(
      "/dashboard",
    );
    expect(await bar.getByRole("link", { name: "Developer settings" }).getAttribute("href")).toBe(
      "/settings#developers",
    );
    expect(await bar.textContent()).toContain(`Your key “Store backend” starts ${prefix}…`);
    // The reference's own words name this deployment's keys (test keys here), not production's.
    await page.locator("code", { hasText: "Authorization: Bearer aw_test_…" }).first().waitFor();
    expect(await page.locator("code", { hasText: "Bearer aw_live_" }).count()).toBe(0);
    expect(await sideways(page)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.screenshot({ path: screenshotPath("developer-docs-api-1280") });
    await bar.getByRole("link", { name: "Developer settings" }).click();
    await page.waitForURL(/\/settings#developers$/);
    await page.locator("#developers").getByTestId("api-key-row").getByText("Store backend").waitFor();
    await context.close();

    const { page: guest, context: guestCtx } = await newPage(browser);
    await guest.goto("/docs/api");
    await guest.getByRole("heading", { name: "ApeWall API", level: 1 }).waitFor({ timeout: 20_000 });
    const guestBar = guest.getByRole("navigation", { name: "ApeWall" });
    expect(await guestBar.getByRole("link", { name: "← Back to ApeWall" }).getAttribute("href")).toBe("/");
    expect(await guestBar.textContent()).toContain("API keys look like aw_test_…");
    await guestCtx.close();
  });

  it("'Sign in again' while creating a key says why and keeps the name and scopes typed", async () => {
    const { page, context } = await newPage(browser);
    const email = uniqueEmail("dev-reauth");
    await signIn(page, email);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/settings");
    const section = page.locator("#developers");
    await section.getByRole("button", { name: "Create API key" }).click();
    await section.getByLabel("Name").fill("Zapier sync");
    await section.getByRole("checkbox", { name: /sales:read/ }).check();
    await section.getByRole("checkbox", { name: /content:read/ }).uncheck();
    // The server's 403 for a sign-in older than 10 minutes, played for this one request (the rule
    // itself: worker/test/api-and-webhooks/api-keys.test.ts).
    await page.route(
      "**/api/developer/keys",
      (route) =>
        route.request().method() === "POST"
          ? route.fulfill({
              status: 403,
              contentType: "application/json",
              body: JSON.stringify({ message: API_KEY_MESSAGES.signInAgain }),
            })
          : route.fallback(),
      { times: 1 },
    );
    await section.getByRole("button", { name: "Create key" }).click();
    await section.getByRole("alert").first().waitFor();
    await section.screenshot({ path: screenshotPath("developer-key-reauth-390") });
    const notice = section.getByTestId("api-key-sign-in-again");
    expect(await notice.textContent({ timeout: 2000 })).toContain(
      "For your security, creating an API key needs a sign-in from the last 10 minutes.",
    );
    expect(await notice.textContent()).toContain("What you typed here is kept.");
    await notice.getByRole("button", { name: "Sign in again" }).click();
    await page.waitForURL(/\/sign-in\?returnTo=/);

    await signIn(page, email);
    await page.goto("/settings#developers");
    await section.getByText("We kept what you typed.", { exact: false }).waitFor();
    expect(await section.getByLabel("Name").inputValue()).toBe("Zapier sync");
    expect(await section.getByRole("checkbox", { name: /sales:read/ }).isChecked()).toBe(true);
    expect(await section.getByRole("checkbox", { name: /content:read/ }).isChecked()).toBe(false);
    await section.screenshot({ path: screenshotPath("developer-key-kept-390") });
    await section.getByRole("button", { name: "Create key" }).click();
    await section.getByTestId("new-api-key").waitFor();
    expect(await section.getByTestId("api-key-row").first().textContent()).toContain("sales:read");

    // Shown once: the next visit starts empty.
    await page.reload();
    await section.getByTestId("api-key-row").first().waitFor();
    expect(await section.getByText("We kept what you typed.", { exact: false }).count()).toBe(0);
    await context.close();
  });

  it("the created key shows every character, its underscores too, at 390 and 1280", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("dev-underscore"));
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/settings");
    const section = page.locator("#developers");
    await section.getByRole("button", { name: "Create API key" }).click();
    await section.getByLabel("Name").fill("CLI");
    await section.getByRole("button", { name: "Create key" }).click();
    const shown = section.getByTestId("new-api-key");
    await shown.waitFor();
    const field = shown.getByLabel("Your new API key");
    await shown.screenshot({ path: screenshotPath("developer-key-underscores-390") });
    const key = await field.inputValue();
    expect(key).toMatch(/^aw_test_[A-Za-z0-9_-]{43}$/);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      // Nothing cut: the whole key fits its box across and down, and each line is tall enough for "_"
      // (an underscore sits below the baseline; a line as tall as the font clips it).
      const box = await field.evaluate((el) => {
        const style = getComputedStyle(el);
        return {
          across: el.scrollWidth - el.clientWidth,
          down: el.scrollHeight - el.clientHeight,
          lineRatio: Number.parseFloat(style.lineHeight) / Number.parseFloat(style.fontSize),
          mono: /mono/i.test(style.fontFamily),
        };
      });
      expect(box).toEqual({ across: 0, down: 0, lineRatio: expect.any(Number), mono: true });
      expect(box.lineRatio).toBeGreaterThanOrEqual(1.4);
      expect(await sideways(page)).toBe(0);
    }
    await shown.screenshot({ path: screenshotPath("developer-key-underscores-1280") });
    await context.close();
  });
});
