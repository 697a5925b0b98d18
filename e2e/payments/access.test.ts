// Buyers keep what they bought: after paying, every paywall reopens unlocked with the control its
// item needs (link, text, file), in the browser that paid and through the access link in a fresh
// one; 'Unlock' is never offered to the owner; lost access links come back by email.
import { createHash, randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseUrl,
  checkoutOpened,
  consoleErrors,
  launch,
  mailCount,
  mailedLink,
  newPage,
  payWith,
  screenshotPath,
  signIn,
  uniqueEmail,
} from "../support/browser";

let browser: Browser;
const fileBytes = randomBytes(2 * 1024 * 1024 + 77);
const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
const items: Record<"link" | "text" | "file", { id: string }> = {} as never;
// A page this machine can open (no internet here): the app's own feedback page stands in for a members' area.
const secretUrl = () => `${baseUrl()}/feedback?room=members-secret`;
const SECRET_TEXT = "The password is banana-42. Keep it to yourself.";

beforeAll(async () => {
  browser = await launch();
  const { page, context } = await newPage(browser);
  await signIn(page, uniqueEmail("access-seller"));
  const publish = async (multipart: Record<string, string | { name: string; mimeType: string; buffer: Buffer }>) => {
    const res = await page.request.post("/api/content", {
      headers: { origin: baseUrl() },
      multipart: { price: "3", category: "other", ...multipart },
    });
    expect(res.status()).toBe(201);
    return (await res.json()) as { id: string };
  };
  items.link = await publish({ title: "Members room", accessType: "link", linkUrl: secretUrl() });
  items.text = await publish({ title: "The secret", accessType: "view", textContent: SECRET_TEXT });
  items.file = await publish({
    title: "Raw footage",
    accessType: "download",
    file: { name: "footage.bin", mimeType: "application/octet-stream", buffer: fileBytes },
  });
  await context.close();
});
afterAll(async () => {
  await browser?.close();
});

async function buy(page: Page, id: string, email: string) {
  await page.goto(`/p/${id}`);
  await page.getByRole("button", { name: "Unlock" }).click();
  await checkoutOpened(page);
  await payWith(page, "4242 4242 4242 4242", email);
  await page.waitForURL(/\/success\?/);
  await page.getByText("Payment Successful!").waitFor();
}

/** The paywall of `id` shows the owner's control and never 'Unlock' or a download error. */
async function expectOwnerControls(page: Page, kind: keyof typeof items) {
  // Nothing the owner's controls do is refused by the page's Content-Security-Policy, or fails.
  const errors = consoleErrors(page);
  const seen = errors.length;
  await page.goto(`/p/${items[kind].id}`);
  const unlocked = page.getByTestId("purchase-access");
  await unlocked.waitFor();
  expect(await page.getByRole("button", { name: "Unlock" }).count()).toBe(0);
  expect(await page.getByText("Locked", { exact: true }).count()).toBe(0);
  await page.getByText("Unlocked", { exact: true }).waitFor();
  if (kind === "link") {
    const open = page.getByRole("link", { name: "Open Link" });
    expect(await open.getAttribute("href")).toBe(secretUrl());
    expect(await page.getByRole("button", { name: /Download/ }).count()).toBe(0);
    const [popup] = await Promise.all([page.waitForEvent("popup"), open.click()]);
    await popup.waitForURL(secretUrl());
    await popup.close();
  } else if (kind === "text") {
    expect(await page.getByTestId("text-content").textContent()).toBe(SECRET_TEXT);
    expect(await page.getByRole("button", { name: /Download/ }).count()).toBe(0);
  } else {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download footage.bin" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("footage.bin");
    // A navigation to a signed URL, not a blob built in page memory.
    expect(download.url()).toMatch(/\/api\/purchases\/\w+\/download\?expires=\d+&sig=/);
    expect(sha256(await readFile((await download.path())!))).toBe(sha256(fileBytes));
  }
  expect(await page.getByText("Download Error").count()).toBe(0);
  expect(errors.slice(seen)).toEqual([]);
}

describe("owners see what they bought", () => {
  let buyerContext: BrowserContext;
  let buyerPage: Page;
  const buyer = uniqueEmail("owner");

  it("buys a link, a text and a file; each paywall reopens unlocked with its own control", async () => {
    ({ page: buyerPage, context: buyerContext } = await newPage(browser));
    for (const kind of ["link", "text", "file"] as const) {
      await buy(buyerPage, items[kind].id, buyer);
      await expectOwnerControls(buyerPage, kind);
    }
    await buyerPage.screenshot({ path: screenshotPath("paywall-owner-file"), fullPage: true });
    // Unlock is offered to nobody else.
    const { page: stranger, context } = await newPage(browser);
    await stranger.goto(`/p/${items.text.id}`);
    await stranger.getByRole("button", { name: "Unlock" }).waitFor();
    expect(await stranger.getByTestId("text-content").count()).toBe(0);
    await context.close();
  });

  it("the emailed access link unlocks the paywall in a fresh browser too", async () => {
    await expect.poll(() => mailCount(buyer), { timeout: 15_000 }).toBe(3);
    const mails = (await (await fetch(`${baseUrl()}/dev/mail.json?limit=1000`)).json()) as {
      to: string;
      subject: string;
      links: string[];
    }[];
    for (const kind of ["link", "text", "file"] as const) {
      const title = { link: "Members room", text: "The secret", file: "Raw footage" }[kind];
      const mail = mails.find((m) => m.to === buyer && m.subject === `Your access to ${title}`)!;
      const { page, context } = await newPage(browser);
      await page.goto(mail.links[0]);
      await page.getByText("Payment Successful!").waitFor();
      await expectOwnerControls(page, kind);
      await context.close();
    }
    await buyerContext.close();
  });
});

describe("Lost your access?", () => {
  it("sends every access link to a buyer's email and answers an unknown email identically", async () => {
    const buyer = uniqueEmail("forgetful");
    const { page: payer, context: payerContext } = await newPage(browser);
    await buy(payer, items.text.id, buyer);
    await payerContext.close();
    await expect.poll(() => mailCount(buyer), { timeout: 15_000 }).toBe(1);

    const ask = async (email: string) => {
      const { page, context } = await newPage(browser);
      await page.goto(`/p/${items.text.id}`);
      await page.getByRole("button", { name: "Lost your access?" }).click();
      await page.getByLabel(/Lost your access\? Enter the email/).fill(email);
      await page.getByRole("button", { name: "Send links" }).click();
      const answer = await page.getByTestId("lost-access-sent").textContent();
      await context.close();
      return answer;
    };
    const known = await ask(buyer);
    const unknown = await ask(uniqueEmail("never-bought"));
    expect(known).toContain("we've sent it an email with every access link");
    expect(unknown).toBe(known);

    const link = await mailedLink(buyer, 1);
    const { page, context } = await newPage(browser);
    await page.goto(link);
    await page.getByText("Payment Successful!").waitFor();
    await expectOwnerControls(page, "text");
    await context.close();
  });
});
