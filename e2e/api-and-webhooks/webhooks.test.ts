// Outgoing webhooks: a creator adds an endpoint on /settings → Developers, a sale is
// delivered to it over the network (a receiver in this test verifies the Standard Webhooks signature
// with the `standardwebhooks` package), the delivery log shows the attempt with status 200, and
// Resend makes a second attempt under the same webhook-id.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  consoleErrors,
  launch,
  newPage,
  payByApi,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
let server: Server;
let secret = "";
const received: { id: string; verified: boolean; type?: string }[] = [];

beforeAll(async () => {
  browser = await launch();
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      try {
        const event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as { type: string };
        received.push({ id: String(req.headers["webhook-id"]), verified: true, type: event.type });
        res.writeHead(200).end("thanks");
      } catch {
        received.push({ id: String(req.headers["webhook-id"]), verified: false });
        res.writeHead(400).end("bad signature");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe("webhooks in /settings", () => {
  it("adds an endpoint, a sale is delivered and verified, the log shows 200, Resend makes a second attempt", async () => {
    const { page } = await newPage(browser);
    const errors = consoleErrors(page);
    await signIn(page, uniqueEmail("hooks"));
    await page.goto("/settings");
    const card = page.locator("#webhooks");
    await card.getByText("No webhook endpoints yet.", { exact: false }).waitFor();

    await card.getByRole("button", { name: "Add endpoint" }).click();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/apewall`;
    await card.getByLabel("Endpoint URL").fill(url);
    await card.getByRole("button", { name: "Add endpoint" }).click();
    const row = card.getByTestId("webhook-endpoint");
    await row.waitFor();
    expect(await row.textContent()).toContain("sale.completed");
    await row.getByRole("button", { name: "Reveal signing secret" }).click();
    secret = await row.getByLabel("Signing secret").inputValue();
    expect(secret).toMatch(/^whsec_/);

    const made = await page.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: {
        title: "Hooked",
        price: "12",
        accessType: "link",
        linkUrl: "https://example.com/hooked",
        category: "other",
      },
    });
    expect(made.status()).toBe(201);
    const { page: buyer, context: buyerCtx } = await newPage(browser);
    await payByApi(buyer, (await made.json()).id);
    await buyerCtx.close();

    await expect.poll(() => received.length, { timeout: 15_000 }).toBe(1);
    expect(received[0]).toMatchObject({ verified: true, type: "sale.completed" });

    await row.getByRole("button", { name: "Deliveries" }).click();
    const delivery = row.getByTestId("webhook-delivery");
    await delivery.getByTestId("webhook-attempt").first().waitFor();
    expect(await delivery.getByTestId("webhook-attempt").first().textContent()).toContain("200");
    expect(await delivery.textContent()).toContain(received[0].id);

    await delivery.getByRole("button", { name: "Resend" }).click();
    await expect.poll(() => received.length, { timeout: 15_000 }).toBe(2);
    expect(received[1]).toMatchObject({ id: received[0].id, verified: true });
    await expect.poll(() => delivery.getByTestId("webhook-attempt").count(), { timeout: 10_000 }).toBe(2);

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
    await card.screenshot({ path: screenshotPath("webhooks-390") });
    expect(errors).toEqual([]);
  });
});
