// Every screen on a phone (390 x 844): each page of the SPA's route tree (a page added tomorrow fails
// this test until it is visited here), the paywall, and the not-found screen, in the states a visitor,
// a creator with sales, the admin and a buyer see. A page must not scroll sideways, and no money on it
// may be cut (an ellipsis, or clipped by a box). A few screens are checked at 1280 px too, and some
// have checks of their own: a long file name whole, /discounts' amount field, the funnel editor's name
// uncovered, the sales table's amount, status and Refund in view. Measures: ../support/layout.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routeTreePaths } from "../../shared/spa-routes";
import { baseUrl, launch, newPage, payByApi, screenshotPath, signIn, uniqueEmail } from "../support/browser";
import { coveredText, cutNames, layoutProblems } from "../support/layout";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };
// The case: a 35-character title beside its prices in the checkout's order summary.
const LONG_TITLE = "The Complete Sourdough Baking Guide";
// A file item's name as a buyer sees it once they own it: whole, or shortened in the middle.
const FILE_NAME = "Portra-400-Film-Presets-Complete-Collection-vol1.zip";
const FUNNEL_NAME = "Masterclass spring launch funnel with the workbook offer";

type Who = "visitor" | "creator" | "admin" | "buyer";
type Visit = {
  /** The route-tree pattern this visit covers (null: no SPA page, e.g. the paywall or a wrong URL). */
  pattern: string | null;
  name: string;
  who: Who;
  path: () => string;
  /** What shows once the page has settled. */
  ready: (page: Page) => Promise<unknown>;
  /** Also checked at 1280 px, with screenshots at both widths (the screens this issue changed). */
  desktop?: boolean;
  /** The screen's own checks, once it has settled: what is wrong, in words. */
  checks?: (page: Page, width: number) => Promise<string[]>;
};

let browser: Browser;
const SETTLE_MS = 10_000;
const pages = {} as Record<Who, Page>;
const ids = { long: "", main: "", upsell: "", longAccess: "", upsellPath: "", checkout: "", file: "", fileAccess: "" };

const origin = () => ({ origin: baseUrl() });

async function publish(page: Page, title: string, price: string): Promise<string> {
  const res = await page.request.post("/api/content", {
    headers: origin(),
    multipart: { title, price, accessType: "link", linkUrl: "https://example.com/secret", category: "other" },
  });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

beforeAll(async () => {
  browser = await launch();
  const [visitor, creator, admin, buyer] = await Promise.all([
    newPage(browser),
    newPage(browser),
    newPage(browser),
    newPage(browser),
  ]);
  Object.assign(pages, { visitor: visitor.page, creator: creator.page, admin: admin.page, buyer: buyer.page });
  await Promise.all([signIn(pages.creator, uniqueEmail("phone-creator")), signIn(pages.admin, "admin@apewall.test")]);

  // A creator with sales: 80% of $1,543.20 is $1,234.56 of earnings; a funnel on a second item.
  ids.long = await publish(pages.creator, LONG_TITLE, "1543.20");
  ids.main = await publish(pages.creator, "Masterclass", "20");
  ids.upsell = await publish(pages.creator, "Workbook with every exercise worked through", "15");
  const funnel = (await (
    await pages.creator.request.post("/api/funnels", { headers: origin(), data: { name: FUNNEL_NAME } })
  ).json()) as { id: string };
  expect(
    (
      await pages.creator.request.post(`/api/funnels/${funnel.id}/products`, {
        headers: origin(),
        data: { contentIds: [ids.main] },
      })
    ).status(),
  ).toBeLessThan(300);
  expect(
    (
      await pages.creator.request.post(`/api/funnels/${funnel.id}/steps`, {
        headers: origin(),
        data: { title: "Workbook with every exercise worked through", contentId: ids.upsell },
      })
    ).status(),
  ).toBeLessThan(300);
  expect(
    (
      await pages.creator.request.patch(`/api/funnels/${funnel.id}`, { headers: origin(), data: { testMode: false } })
    ).status(),
  ).toBe(200);
  // A discount code on the long-titled item, with limits and an expiry (the longest row /discounts shows).
  const code = await pages.creator.request.post("/api/discounts", {
    headers: origin(),
    data: {
      code: "SPRING-LAUNCH-2026-EARLY-BIRDS",
      kind: "fixed",
      amountOff: "1234.56",
      contentId: ids.long,
      expiresOn: "2099-12-31",
      maxUses: 1000,
      maxUsesPerBuyer: 1,
    },
  });
  expect(code.status(), await code.text()).toBe(201);

  const file = await pages.creator.request.post("/api/content", {
    headers: origin(),
    multipart: {
      title: "Portra 400 Film Presets",
      price: "12",
      accessType: "download",
      category: "other",
      file: { name: FILE_NAME, mimeType: "application/zip", buffer: Buffer.alloc(4096, 7) },
    },
  });
  expect(file.status(), await file.text()).toBe(201);
  ids.file = ((await file.json()) as { id: string }).id;

  // The buyer's browser pays for all three (its aw_buyer cookie unlocks them).
  // The admin's feedback inbox has a message with a long subject and address.
  const feedback = await pages.visitor.request.post("/api/feedback", {
    headers: origin(),
    data: {
      type: "bug",
      subject: "The checkout summary cuts off my prices on a small phone screen",
      message: "Seen on a 390 px wide phone.",
      email: "a.very.long.address.for.testing@example-phone-layouts.com",
      priority: "high",
    },
  });
  expect(feedback.status(), await feedback.text()).toBeLessThan(300);

  // The visitor's checkout, as 'Unlock' on the paywall opens it.
  const started = await pages.visitor.request.post("/api/create-payment-intent", {
    headers: origin(),
    data: { contentId: ids.long },
  });
  expect(started.status(), await started.text()).toBe(200);
  const { clientSecret, amount } = (await started.json()) as { clientSecret: string; amount: number };
  ids.checkout = `/checkout/${ids.long}?payment_intent=${encodeURIComponent(clientSecret)}&amount=${amount}`;

  await payByApi(pages.buyer, ids.long);
  await payByApi(pages.buyer, ids.main);
  await payByApi(pages.buyer, ids.file);
  // The sales are booked by the stand-in's webhooks; each purchase's access link opens its success page.
  ids.longAccess = (await paidPurchase(pages.buyer, ids.long)).accessPath;
  ids.fileAccess = (await paidPurchase(pages.buyer, ids.file)).accessPath;
  // The funnel's offer, as the success page sends the paying browser on to it.
  ids.upsellPath = `/checkout/upsell?purchase=${(await paidPurchase(pages.buyer, ids.main)).purchaseId}`;
  for (const p of Object.values(pages)) await p.setViewportSize(PHONE);
});

afterAll(async () => {
  await browser?.close();
});

/** The access link and id of `page`'s purchase of `contentId`, once the webhook has booked it as paid. */
async function paidPurchase(page: Page, contentId: string): Promise<{ accessPath: string; purchaseId: string }> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const body = (await (await page.request.get(`/api/content/${contentId}/access`)).json()) as {
      owned: boolean;
      verification?: { accessUrl: string; purchase: { id: string } };
    };
    if (body.owned && body.verification) {
      const u = new URL(body.verification.accessUrl, baseUrl());
      return { accessPath: u.pathname + u.search, purchaseId: body.verification.purchase.id };
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the purchase of ${contentId} was not booked as paid within 15 s`);
}

const text = (s: string | RegExp) => (page: Page) => page.getByText(s).first().waitFor({ timeout: SETTLE_MS });
const heading = (s: string | RegExp) => (page: Page) =>
  page.getByRole("heading", { name: s }).first().waitFor({ timeout: SETTLE_MS });

/** Every place the file's name shows keeps its end ("…-vol1.zip") and stays inside the screen. */
const fileNameWhole = (page: Page) => page.evaluate(cutNames, [FILE_NAME.slice(0, 10), "vol1.zip"] as [string, string]);

/** Each field of /discounts' form spans its column: the amount as wide as the code (and its label). */
async function amountFieldWide(page: Page): Promise<string[]> {
  const code = (await page.getByLabel("Code", { exact: true }).boundingBox())?.width ?? 0;
  const amount = (await page.getByLabel("Percent off", { exact: true }).boundingBox())?.width ?? 0;
  return Math.abs(code - amount) > 1
    ? [`the amount field is ${Math.round(amount)}px, the code's ${Math.round(code)}px`]
    : [];
}

/** The first sale's amount, status and Refund are on the screen where a person looks, no sideways scroll. */
async function saleInView(page: Page): Promise<string[]> {
  const sale = page.locator('[data-testid="sale-item"], tr').filter({ hasText: LONG_TITLE }).first();
  const found: string[] = [];
  for (const [what, target] of [
    ["amount", sale.getByText("$1,543.20", { exact: true })],
    ["status", sale.getByText("Completed", { exact: true })],
    ["Refund", sale.getByRole("button", { name: /^Refund/ })],
  ] as const) {
    const seen =
      (await target.count()) > 0 &&
      (await target.first().evaluate((el) => {
        window.scrollBy(0, el.getBoundingClientRect().top - innerHeight / 2);
        const r = el.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return r.left >= 0 && r.right <= innerWidth && !!hit && (el === hit || el.contains(hit));
      }));
    if (!seen) found.push(`the sale's ${what} is not in view`);
  }
  return found;
}

const VISITS: Visit[] = [
  {
    pattern: "/",
    name: "landing",
    who: "visitor",
    path: () => "/",
    ready: text("Drag & drop your file here, or click to upload"),
    desktop: true,
  },
  { pattern: "/sign-in", name: "sign-in", who: "visitor", path: () => "/sign-in", ready: text("Sign in to ApeWall") },
  {
    pattern: null,
    name: "pricing",
    who: "visitor",
    path: () => "/pricing",
    ready: heading("Simple, creator-first pricing"),
  },
  {
    pattern: "/feedback",
    name: "feedback",
    who: "visitor",
    path: () => "/feedback",
    ready: heading("Send us feedback"),
  },
  // The library signed in, with purchases, is measured at 390 and 1280 by e2e/library/library.test.ts.
  {
    pattern: null, // rendered by the Worker (docs/pages.md)
    name: "library-sign-in",
    who: "visitor",
    path: () => "/library",
    ready: heading("Your library"),
  },
  {
    pattern: "/upload",
    name: "upload-signed-out",
    who: "visitor",
    path: () => "/upload",
    ready: text("Sign In Required"),
  },
  {
    pattern: "/checkout/$id",
    name: "checkout",
    who: "visitor",
    path: () => ids.checkout,
    ready: (p) => p.getByLabel("Card number").waitFor({ timeout: SETTLE_MS }),
    desktop: true,
  },
  {
    pattern: null,
    name: "paywall",
    who: "visitor",
    path: () => `/p/${ids.long}`,
    ready: (p) => p.getByRole("button", { name: "Unlock" }).waitFor({ timeout: SETTLE_MS }),
  },
  {
    pattern: null,
    name: "not-found-signed-out",
    who: "visitor",
    path: () => "/no-such-page",
    ready: text("404 Page Not Found"),
    desktop: true,
  },

  { pattern: "/", name: "home", who: "creator", path: () => "/", ready: text("Content & Uploads") },
  {
    pattern: "/dashboard",
    name: "dashboard",
    who: "creator",
    path: () => "/dashboard",
    ready: (p) =>
      p
        .getByTestId("stat-cards")
        .getByText(/\$1,\d{3}\.\d{2}/)
        .first()
        .waitFor({ timeout: SETTLE_MS }),
    desktop: true,
  },
  {
    pattern: "/dashboard",
    name: "dashboard-sales",
    who: "creator",
    path: () => "/dashboard",
    ready: async (p) => {
      await p.getByRole("tab", { name: "Sales & Buyers" }).click({ timeout: SETTLE_MS });
      await p
        .locator('[data-testid="sale-item"], tr')
        .filter({ hasText: LONG_TITLE })
        .first()
        .waitFor({ timeout: SETTLE_MS });
    },
    desktop: true,
    checks: saleInView,
  },
  {
    pattern: "/dashboard",
    name: "dashboard-filters",
    who: "creator",
    path: () => "/dashboard",
    ready: async (p) => {
      await p.getByRole("button", { name: "Filters" }).click({ timeout: SETTLE_MS });
      await p.getByText(/Showing \d+ of \d+ items/).waitFor({ timeout: SETTLE_MS });
    },
  },
  { pattern: "/upload", name: "upload", who: "creator", path: () => "/upload", ready: text("Create a paywall") },
  { pattern: "/settings", name: "settings", who: "creator", path: () => "/settings", ready: text("How payouts work") },
  {
    pattern: "/connect",
    name: "connect",
    who: "creator",
    path: () => "/connect",
    ready: heading(/Bank payouts|Setup Interrupted|Bank Account Connected!/),
  },
  { pattern: "/subscribe", name: "subscribe", who: "creator", path: () => "/subscribe", ready: text("ApeWall Pro") },
  {
    pattern: null,
    name: "pricing-creator",
    who: "creator",
    path: () => "/pricing",
    ready: heading("Simple, creator-first pricing"),
  },
  {
    pattern: "/feedback",
    name: "feedback-creator",
    who: "creator",
    path: () => "/feedback",
    ready: heading("Send us feedback"),
  },
  {
    pattern: "/discounts",
    name: "discounts",
    who: "creator",
    path: () => "/discounts",
    ready: (p) => p.getByTestId("discount-row").first().waitFor({ timeout: SETTLE_MS }),
    desktop: true,
  },
  {
    pattern: "/discounts",
    name: "discounts-form",
    who: "creator",
    path: () => "/discounts",
    ready: async (p) => {
      await p.getByRole("button", { name: "New code" }).click({ timeout: SETTLE_MS });
      await p.getByLabel("Code", { exact: true }).waitFor({ timeout: SETTLE_MS });
    },
    desktop: true,
    checks: amountFieldWide,
  },
  {
    pattern: "/funnels",
    name: "funnels",
    who: "creator",
    path: () => "/funnels",
    ready: (p) => p.getByTestId("funnel-item").first().waitFor({ timeout: SETTLE_MS }),
  },
  {
    pattern: "/funnels",
    name: "funnel-steps",
    who: "creator",
    path: () => "/funnels",
    ready: async (p) => {
      await p.getByTestId("funnel-item").first().click({ timeout: SETTLE_MS });
      await p.getByTestId("step-row").first().waitFor({ timeout: SETTLE_MS });
    },
    desktop: true,
  },
  {
    pattern: "/content/$contentId/edit",
    name: "content-edit",
    who: "creator",
    path: () => `/content/${ids.long}/edit`,
    ready: text("Edit item"),
  },
  {
    pattern: "/content/$contentId/live",
    name: "content-live",
    who: "creator",
    path: () => `/content/${ids.long}/live`,
    ready: (p) => p.getByTestId("live-link").waitFor({ timeout: SETTLE_MS }),
  },
  {
    pattern: "/content/$contentId/edit-funnel",
    name: "edit-funnel",
    who: "creator",
    path: () => `/content/${ids.main}/edit-funnel`,
    ready: (p) => p.getByTestId("funnel-name").waitFor({ timeout: SETTLE_MS }),
    desktop: true,
    checks: (p) => p.evaluate(coveredText, "funnel-name"),
  },
  { pattern: null, name: "paywall-owner", who: "creator", path: () => `/p/${ids.long}`, ready: text(LONG_TITLE) },
  {
    pattern: null,
    name: "not-found-signed-in",
    who: "creator",
    path: () => "/dashboard/nope",
    ready: text("404 Page Not Found"),
    desktop: true,
  },

  {
    pattern: "/admin",
    name: "admin",
    who: "admin",
    path: () => "/admin",
    ready: (p) =>
      p
        .getByText("The checkout summary cuts off my prices on a small phone screen")
        .first()
        .waitFor({ timeout: SETTLE_MS }),
    desktop: true,
  },
  {
    pattern: "/admin/tax",
    name: "admin-tax",
    who: "admin",
    path: () => "/admin/tax",
    // Settled once every section has loaded (no spinner left).
    ready: async (p) => {
      await p.getByRole("heading", { name: "Tax", exact: true }).waitFor({ timeout: SETTLE_MS });
      await p.waitForFunction(() => !document.querySelector('main [role="status"]'), null, { timeout: SETTLE_MS });
    },
  },

  {
    pattern: null,
    name: "success",
    who: "buyer",
    path: () => ids.longAccess,
    ready: text("Payment Successful!"),
  },
  {
    pattern: "/checkout/upsell",
    name: "upsell",
    who: "buyer",
    path: () => ids.upsellPath,
    ready: (p) => p.getByTestId("upsell-title").waitFor({ timeout: SETTLE_MS }),
    desktop: true,
  },
  { pattern: null, name: "paywall-unlocked", who: "buyer", path: () => `/p/${ids.long}`, ready: text("Unlocked") },
  {
    pattern: null,
    name: "paywall-owned-file",
    who: "buyer",
    path: () => `/p/${ids.file}`,
    ready: (p) => p.getByRole("button", { name: /^Download/ }).waitFor({ timeout: SETTLE_MS }),
    desktop: true,
    checks: fileNameWhole,
  },
  {
    pattern: null,
    name: "success-file",
    who: "buyer",
    path: () => ids.fileAccess,
    ready: text("Payment Successful!"),
    checks: fileNameWhole,
  },
];

async function check(page: Page, visit: Visit, width: number): Promise<string[]> {
  await page.goto(visit.path());
  try {
    await visit.ready(page);
  } catch (e) {
    await page.screenshot({ path: screenshotPath(`phone-unsettled-${visit.name}`), fullPage: true });
    return [`${visit.name} @${width}: did not settle (${(e as Error).message.split("\n")[0]})`];
  }
  // The page's fonts are in (text widths are final) before measuring.
  await page.evaluate(() => document.fonts.ready);
  const p = await page.evaluate(layoutProblems);
  const found: string[] = [];
  if (p.overflow > 0)
    found.push(
      `${visit.name} @${width}: scrolls sideways by ${p.overflow}px; widest: ${p.wide.join(" | ") || "(none found)"}`,
    );
  for (const m of p.cutMoney) found.push(`${visit.name} @${width}: cut money ${m}`);
  for (const o of p.overlaps) found.push(`${visit.name} @${width}: overlapping text ${o}`);
  for (const c of (await visit.checks?.(page, width)) ?? []) found.push(`${visit.name} @${width}: ${c}`);
  return found;
}

describe("every screen on a phone", () => {
  it("every page of the route tree is visited here", () => {
    const tree = routeTreePaths(readFileSync(join(import.meta.dirname, "../../web/route-tree.gen.ts"), "utf8"));
    const visited = new Set(VISITS.map((v) => v.pattern).filter(Boolean));
    expect(
      tree.filter((p) => !visited.has(p)),
      "pages of web/routes/ that e2e/security/phone.test.ts does not visit",
    ).toEqual([]);
  });

  it("no screen scrolls sideways or cuts money at 390 px (and the changed ones at 1280 px)", async () => {
    const problems: string[] = [];
    for (const visit of VISITS) {
      const page = pages[visit.who];
      problems.push(...(await check(page, visit, PHONE.width)));
      if (visit.desktop) {
        await page.screenshot({ path: screenshotPath(`phone-${visit.name}`), fullPage: true });
        await page.setViewportSize(DESKTOP);
        problems.push(...(await check(page, visit, DESKTOP.width)));
        await page.screenshot({ path: screenshotPath(`desktop-${visit.name}`), fullPage: true });
        await page.setViewportSize(PHONE);
      }
    }
    expect(problems).toEqual([]);
  }, 240_000);

  it("a wrong URL is a 404 screen inside the app's header, signed out and signed in", async () => {
    const out = pages.visitor;
    const res = await out.goto("/content/abc/nope");
    expect(res?.status()).toBe(404);
    await out.getByText("404 Page Not Found").waitFor();
    await out.getByText("The page you're looking for doesn't exist.").waitFor();
    expect(await out.getByRole("banner").getByRole("link", { name: "View Pricing" }).isVisible()).toBe(true);
    await out.getByRole("link", { name: "Go to Home" }).click();
    await out.getByText("Drag & drop your file here, or click to upload").waitFor();

    const creator = pages.creator;
    expect((await creator.goto("/nope"))?.status()).toBe(404);
    await creator.getByText("404 Page Not Found").waitFor();
    expect(await creator.getByRole("banner").getByRole("button", { name: "Menu" }).isVisible()).toBe(true);
    await creator.getByRole("link", { name: "Go to Dashboard" }).click();
    await creator.getByText("Content & Uploads").waitFor();

    // An unknown item keeps its own answers: the editor's not-found screen (in the header), the paywall's 404 page.
    await creator.goto("/content/no-such-item/edit");
    await creator.getByText("404 Page Not Found").waitFor();
    expect(await creator.getByRole("banner").getByRole("button", { name: "Menu" }).isVisible()).toBe(true);
    expect((await out.goto("/p/no-such-item"))?.status()).toBe(404);
    await out.getByRole("heading", { name: "Content Not Found" }).waitFor();
  });
});
