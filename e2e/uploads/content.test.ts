import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, launch, newPage, screenshotPath, signIn, uniqueEmail } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const MiB = 1024 * 1024;

/** After Publish comes "You're live"; its "Go to dashboard" leads home. */
async function leaveLivePage(page: Page, timeout?: number) {
  await page.waitForURL((url) => /^\/content\/[A-Za-z0-9]+\/live$/.test(url.pathname), { timeout });
  await page.getByRole("heading", { name: "You're live" }).waitFor();
  await page.getByRole("link", { name: "Go to dashboard" }).click();
  await page.waitForURL((url) => url.pathname === "/");
}

/** ~30 MB of non-repeating bytes, so a misplaced part would change the stored file's hash. */
function generatedFile(size: number): Buffer {
  const buf = Buffer.alloc(size);
  let seed = 42;
  for (let i = 0; i < size; i += 4) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    buf.writeUInt32LE(seed, i);
  }
  return buf;
}

describe("publishing a file and its paywall", () => {
  it("uploads a 30 MB file in parts with a preview image, shows it on the dashboard and on /p/{id}", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("publisher"));
    await page.getByText("Content & Uploads").waitFor();
    await page.getByText("No content yet").waitFor();

    await page.goto("/upload");
    const bytes = generatedFile(30 * MiB);
    const parts: string[] = [];
    page.on("request", (req) => {
      if (req.method() === "PUT" && req.url().includes("/parts/")) parts.push(req.url());
    });
    await page
      .getByTestId("file-input")
      .setInputFiles({ name: "field-recording.wav", mimeType: "audio/wav", buffer: bytes });
    await page
      .getByTestId("preview-input")
      .setInputFiles({ name: "cover.png", mimeType: "image/png", buffer: PNG_1X1 });
    await page.getByLabel("Title *").fill("Field Recording");
    await page.getByLabel("Description").fill("Thirty megabytes of rainforest.");
    await page.getByLabel("Price (USD) *").fill("7.50");
    await page.getByRole("button", { name: "Publish" }).click();

    await page.getByTestId("upload-progress").waitFor();
    await leaveLivePage(page);
    expect(new Set(parts).size).toBe(3);

    const row = page.getByTestId("content-row").filter({ hasText: "Field Recording" });
    await row.waitFor();
    expect(await row.getByTestId("content-size").textContent()).toBe("30.00 MB");
    expect(await row.textContent()).toContain("$7.50");
    await page.screenshot({ path: screenshotPath("dashboard-content"), fullPage: true });

    const id = (await row.getByRole("link", { name: "Open paywall" }).getAttribute("href"))!.split("/").pop()!;
    const visitor = await browser.newContext({ baseURL: baseUrl() });
    const paywall = await visitor.newPage();
    await paywall.goto(`/p/${id}`);
    await paywall.getByRole("heading", { name: "Field Recording" }).waitFor();
    expect(await paywall.getByTestId("paywall-price").textContent()).toBe("$7.50");
    expect(await paywall.getByText("field-recording.wav · 30 MB").isVisible()).toBe(true);
    const img = paywall.getByRole("img", { name: "Field Recording" });
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1);
    await paywall.screenshot({ path: screenshotPath("paywall"), fullPage: true });
    await visitor.close();
    await context.close();
  });

  it("retries a failed part, and after a reload resumes by sending only the missing parts", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("resumer"));
    // A file on disk, so picking it again gives the same name, size and modification time.
    const path = join(tmpdir(), `resume-${Date.now()}.bin`);
    await writeFile(path, generatedFile(35 * MiB));

    // First visit: part 1 fails once (and is retried); the page is reloaded once two parts are in.
    const sent: number[] = [];
    let failedOnce = false;
    await page.route("**/api/uploads/*/parts/*", async (route) => {
      const n = Number(route.request().url().split("/").pop());
      if (n === 1 && !failedOnce) {
        failedOnce = true;
        return route.abort("connectionreset");
      }
      sent.push(n);
      return route.continue();
    });
    await page.goto("/upload");
    await page.getByLabel("Title *").fill("Resumable");
    await page.getByLabel("Price (USD) *").fill("4");
    await page.getByTestId("file-input").setInputFiles(path);
    const finished = new Set<number>();
    page.on("requestfinished", async (req) => {
      if (req.method() === "PUT" && req.url().includes("/parts/") && (await req.response())?.ok())
        finished.add(Number(req.url().split("/").pop()));
    });
    await page.getByRole("button", { name: "Publish" }).click();
    await expect.poll(() => finished.size, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    await page.unroute("**/api/uploads/*/parts/*");
    expect(failedOnce).toBe(true);

    await page.reload();
    const storedBeforeReload = [...finished];
    // The typed details survived the reload; the file is picked again.
    expect(await page.getByLabel("Title *").inputValue()).toBe("Resumable");
    const afterReload: number[] = [];
    page.on("request", (req) => {
      if (req.method() === "PUT" && req.url().includes("/parts/")) afterReload.push(Number(req.url().split("/").pop()));
    });
    await page.getByTestId("file-input").setInputFiles(path);
    await page.getByRole("button", { name: "Publish" }).click();
    await leaveLivePage(page, 30_000);
    const row = page.getByTestId("content-row").filter({ hasText: "Resumable" });
    await row.waitFor();
    expect(await row.getByTestId("content-size").textContent()).toBe("35.00 MB");
    // 35 MiB is 4 parts: those stored before the reload were not sent again.
    expect(storedBeforeReload.length).toBeGreaterThanOrEqual(2);
    expect(afterReload.filter((n) => storedBeforeReload.includes(n))).toEqual([]);
    expect(afterReload.length).toBeLessThanOrEqual(4 - storedBeforeReload.length);
    await context.close();
  });

  it("serves Open Graph tags in the HTML of /p/{id} to a client without a browser", async () => {
    const res = await fetch(`${baseUrl()}/p/demoFieldGuide01`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<meta property="og:title" content="The Ape Field Guide · $5.00" />');
    expect(html).toContain('<meta property="og:type" content="product" />');
    expect(html).toContain('<meta name="twitter:card"');
    expect(html).toContain("<title>The Ape Field Guide · ApeWall</title>");
  });

  it("a pay-what-you-want amount below the minimum shows the spec's message", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/p/demoJungleLink01");
    await page.getByRole("heading", { name: "Jungle Beats Playlist" }).waitFor();
    await page.getByLabel("Name your price").fill("1");
    await page.getByRole("button", { name: "Unlock" }).click();
    await page.getByText("Amount too low", { exact: true }).waitFor();
    // In the toast and beside the amount field.
    expect(await page.getByText("Minimum amount is $3.00", { exact: true }).first().isVisible()).toBe(true);
    await context.close();
  });

  it("a missing item shows 'Content Not Found'", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/p/notAnItem123");
    await page.getByText("Content Not Found").waitFor();
    expect(await page.getByText("This content may have been removed or doesn't exist.").isVisible()).toBe(true);
    await context.close();
  });

  it("publishes a link restored from the landing, then deletes it with the spec's confirmation", async () => {
    const { page, context } = await newPage(browser);
    await signIn(page, uniqueEmail("linkpub"));
    await page.goto("/upload");
    await page.getByRole("radio", { name: "Link" }).click();
    await page.getByLabel("Link URL *").fill("https://example.com/private-course");
    await page.getByLabel("Title *").fill("Private Course");
    await page.getByRole("button", { name: "Publish" }).click();
    await page.getByText("Please fill in title and price", { exact: true }).waitFor();
    await page.getByLabel("Price (USD) *").fill("15");
    await page.getByRole("button", { name: "Publish" }).click();
    await leaveLivePage(page);

    const row = page.getByTestId("content-row").filter({ hasText: "Private Course" });
    await row.waitFor();
    await row.getByRole("button", { name: "Delete" }).click();
    await page.getByText('Are you sure you want to delete "Private Course"? This cannot be undone.').waitFor();
    await page.getByRole("button", { name: "Delete", exact: true }).last().click();
    await page.getByText("No content yet").waitFor();
    await context.close();
  });
});
