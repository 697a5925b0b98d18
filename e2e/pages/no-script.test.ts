// Every public page with JavaScript off (docs/pages.md): the Worker's HTML alone carries the spec's
// texts (spec §2, word for word), at a phone's width, with no horizontal scroll. Each page's own file
// in this folder tests its states and its island; this one walks them all as a visitor without script.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PASSED_CHECK } from "../../dev/local-app.mjs";
import { baseUrl, clientAddress, confirmAsStripeJs, launch } from "../support/browser";

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** Each public page and the spec's texts it shows a signed-out visitor. */
const PAGES: [path: string, texts: string[]][] = [
  [
    "/",
    [
      "View Pricing",
      "Sign In",
      "Drag & drop your file here, or click to upload",
      "Support for images, videos, PDFs, documents, and more",
      "Images",
      "Videos",
      "Documents",
      "Ape It",
      "Paywall a Link",
      "Paywall Text Content",
      "Create Paywall",
      "Instant Paywalls",
      "Set Your Price",
      "Track Everything",
    ],
  ],
  ["/dashboard", ["Drag & drop your file here, or click to upload", "Ape It"]],
  ["/pricing", ["Creator", "+ 20% platform fee", "$99", "/month · zero commission", "Frequently asked questions"]],
  ["/feedback", ["Send us feedback", "Subject *", "Message *"]],
  ["/sign-in", ["Sign in to ApeWall", "No password needed: we'll email you a link."]],
  ["/library", ["Your library", "Email me a sign-in link"]],
  ["/p/demoFieldGuide01", ["Unlock"]],
  ["/p/noSuchItem000", ["Content Not Found", "This content may have been removed or doesn't exist."]],
  ["/success?payment_intent=pi_doesnotexist", ["Purchase Not Found", "Back to Home"]],
];

it("every public page shows its spec texts with JavaScript off, at 390 px", async () => {
  const context = await browser.newContext({
    baseURL: baseUrl(),
    javaScriptEnabled: false,
    viewport: { width: 390, height: 844 },
    extraHTTPHeaders: clientAddress(),
  });
  const page = await context.newPage();

  // A paid order's success page, in this browser: the checkout sets its buyer cookie, the card is
  // confirmed at the Stripe stand-in as Stripe.js would, and the page is asked with Stripe's return query.
  const checkout = await page.request.post("/api/create-payment-intent", {
    headers: { origin: baseUrl(), ...PASSED_CHECK },
    data: { contentId: "demoFieldGuide01", buyerEmail: "no-script@example.com" },
  });
  expect(checkout.status()).toBe(200);
  const { clientSecret } = (await checkout.json()) as { clientSecret: string };
  expect((await confirmAsStripeJs(clientSecret)).status).toBe(200);
  const paid = `/success?payment_intent=${clientSecret.split("_secret_")[0]}&content_id=demoFieldGuide01&redirect_status=succeeded`;
  const pages: [string, string[]][] = [
    ...PAGES,
    [paid, ["Payment Successful!", "Copy Access Link", "Email Access Link"]],
  ];

  for (const [path, texts] of pages) {
    const res = await page.goto(path);
    // The two missing things answer 404; every page answers without a server error.
    expect(res?.status(), path).toBe(/noSuch|doesnotexist/.test(path) ? 404 : 200);
    // What the visitor sees: the page's rendered text (closed <details> and hidden parts left out).
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is the point here
    const seen = (await page.locator("body").innerText()).replace(/\s+/g, " ");
    for (const text of texts) expect(seen, `${path}: ${text}`).toContain(text);
    // Playwright's own evaluation still runs with the page's scripts off.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), path).toBe(true);
  }
  await context.close();
});
