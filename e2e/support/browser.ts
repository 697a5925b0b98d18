// Chromium for the browser tests (which one: dev/chromium.mjs), driven by playwright-core.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { inject } from "vitest";
import { CHROMIUM_FLAGS, chromiumBinary } from "../../dev/chromium.mjs";
import { PASSED_CHECK } from "../../dev/local-app.mjs";

export const baseUrl = () => inject("baseUrl");
const ARTIFACTS = join(import.meta.dirname, "../.artifacts");

let chromiumProcess: Promise<Browser> | undefined;

/**
 * The run's Chromium: launched by the first file, then shared by every file of the project (they
 * run one after another in one process, vitest.config.ts). A file gets a handle whose close() closes
 * the contexts it opened, not the browser; the browser ends with the process. Launching one per file
 * cost a second or two each. Launched here rather than connected to over a websocket, because a
 * remote browser cannot hand a download's local path to a test.
 */
export async function launch(): Promise<Browser> {
  chromiumProcess ??= chromiumBinary().then((binary) =>
    chromium.launch({
      executablePath: binary.executablePath,
      args: [...binary.args, "--headless", ...CHROMIUM_FLAGS],
      // playwright-core gives each launch a fresh, empty profile directory of its own.
    }),
  );
  const browser = await chromiumProcess;
  const opened = new Set<BrowserContext>();
  return new Proxy(browser, {
    get(target, name) {
      if (name === "newContext")
        return async (...args: Parameters<Browser["newContext"]>) => {
          const context = await target.newContext(...args);
          opened.add(context);
          return context;
        };
      if (name === "newPage")
        return async (...args: Parameters<Browser["newPage"]>) => {
          const page = await target.newPage(...args);
          opened.add(page.context());
          return page;
        };
      if (name === "close") return async () => void (await Promise.all([...opened].map((c) => c.close())));
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Each browser context is its own client, as each buyer or creator is in real life. The local
 * runtime sets CF-Connecting-IP to 127.0.0.1 for everyone, so without this every test would share
 * one per-client rate limit (10 sign-in links a minute) and the suite would trip it. In production
 * Cloudflare sets this header itself and a client cannot choose it.
 */
export const clientAddress = () => ({
  "cf-connecting-ip": `10.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 250)}`,
});

const pageErrors = new WeakMap<Page, string[]>();

/** Every console error and uncaught exception of `page` from the first call on (one list per page). */
export function consoleErrors(page: Page): string[] {
  let errors = pageErrors.get(page);
  if (!errors) {
    const list: string[] = [];
    page.on("console", (m) => void (m.type() === "error" && list.push(m.text())));
    page.on("pageerror", (e) => void list.push(e.message));
    pageErrors.set(page, list);
    errors = list;
  }
  return errors;
}

export async function newPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: baseUrl(),
    viewport: { width: 1280, height: 860 },
    extraHTTPHeaders: clientAddress(),
  });
  const page = await context.newPage();
  return { context, page };
}

type Mail = { to: string; subject: string; links: string[] };

/** Waits for a mail to `to` in the dev outbox (newer than `seen` of them) and returns its first link. */
/** `subject`: only mails with it count (a creator also gets "You made a sale" and Pro receipts). */
export async function mailedLink(to: string, seen = 0, subject?: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const mails = (await (await fetch(`${baseUrl()}/dev/mail.json?limit=1000`)).json()) as Mail[];
    const mine = mails.filter((m) => m.to === to && (!subject || m.subject === subject));
    if (mine.length > seen) return mine[0].links[0];
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no mail to ${to} within 15s`);
}

export async function mailCount(to: string, subject?: string): Promise<number> {
  const mails = (await (await fetch(`${baseUrl()}/dev/mail.json?limit=1000`)).json()) as Mail[];
  return mails.filter((m) => m.to === to && (!subject || m.subject === subject)).length;
}

const SIGN_IN_SUBJECT = "Your ApeWall sign-in link";

/**
 * The admin is one fixed address, and a mailbox gets at most LOGIN_LINKS_PER_WINDOW (5) links per
 * 15 minutes, while six browser tests sign the admin in: the session the first one got through the
 * emailed link is kept (per server, in .artifacts) and reused while the server still accepts it, as
 * a browser stays signed in. Every other address signs in through the link each time.
 */
const ADMIN_EMAIL = "admin@apewall.test";
const adminSessionFile = () => join(ARTIFACTS, `admin-session-${new URL(baseUrl()).port}.json`);

/** Signs `page`'s context in as `email` through the real emailed-link flow. */
export async function signIn(page: Page, email: string): Promise<void> {
  if (email === ADMIN_EMAIL && existsSync(adminSessionFile())) {
    await page.context().addCookies(JSON.parse(readFileSync(adminSessionFile(), "utf8")));
    if ((await page.request.get("/api/auth/user")).ok()) {
      await page.goto("/");
      return;
    }
    await page.context().clearCookies();
  }
  const seen = await mailCount(email, SIGN_IN_SUBJECT);
  // As the sign-in form sends it, with the bot check passed (the stand-in's test token).
  const res = await page.request.post("/api/auth/email", { data: { email }, headers: PASSED_CHECK });
  if (res.status() !== 202) throw new Error(`sign-in request failed: ${res.status()}`);
  await page.goto(await mailedLink(email, seen, SIGN_IN_SUBJECT));
  if (email === ADMIN_EMAIL) {
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(
      adminSessionFile(),
      JSON.stringify((await page.context().cookies()).filter((c) => c.name === "aw_session")),
    );
  }
}

export function screenshotPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, `${name}.png`);
}

export const uniqueEmail = (tag: string) => `${tag}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;

/**
 * The ZIP the card form asks for when the browser's country is the US (the stand-in's Payment
 * Element, like Stripe's): Portland, Oregon, where no sales tax is due, so totals stay tax-free.
 */
export const TEST_ZIP = "97201";

/** Fills the checkout's email and the stand-in card form, then presses 'Pay $…'. */
export async function payWith(page: Page, card: string, email: string): Promise<void> {
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Card number").fill(card);
  await page.getByLabel("Expiration date").fill("12 / 34");
  await page.getByLabel("Security code").fill("123");
  await page.getByLabel("ZIP", { exact: true }).fill(TEST_ZIP);
  await page.getByRole("button", { name: /^Pay \$/ }).click();
}

/**
 * After 'Unlock' on a paywall: the payment form opens in place (web/paywall/checkout.ts), the URL
 * unchanged, with the card form ready to type in.
 */
export async function checkoutOpened(page: Page): Promise<void> {
  await page.locator('[data-testid="one-page-checkout"][data-ready="true"]').waitFor();
}

/** Confirms a PaymentIntent at the Stripe stand-in as Stripe.js would: publishable key, client secret, a card. */
export function confirmAsStripeJs(
  clientSecret: string,
  card = "4242424242424242",
  extra: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${inject("stripeUrl")}/v1/payment_intents/${clientSecret.split("_secret_")[0]}/confirm`, {
    method: "POST",
    headers: { authorization: "Bearer pk_test_e2e", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_secret: clientSecret,
      "payment_method_data[type]": "card",
      "payment_method_data[card][number]": card,
      "payment_method_data[card][exp_month]": "12",
      "payment_method_data[card][exp_year]": String(new Date().getFullYear() + 3),
      "payment_method_data[card][cvc]": "123",
      ...extra,
    }),
  });
}

/**
 * A buyer pays `contentId` by card as Stripe.js would: the checkout's PaymentIntent confirmed at the
 * Stripe stand-in with `card` (4000 0000 0000 0077: funds available at once, so the platform can pay
 * a transfer); the stand-in then sends the webhook that books the sale.
 */
export async function payByApi(page: Page, contentId: string, card = "4242424242424242"): Promise<void> {
  const res = await page.request.post("/api/create-payment-intent", {
    headers: { origin: baseUrl(), ...PASSED_CHECK },
    data: { contentId, buyerEmail: "fan@example.com" },
  });
  if (res.status() !== 200) throw new Error(`create-payment-intent ${res.status()}: ${await res.text()}`);
  const { clientSecret } = (await res.json()) as { clientSecret: string };
  const confirm = await confirmAsStripeJs(clientSecret, card, { receipt_email: "fan@example.com" });
  if (confirm.status !== 200) throw new Error(`confirm ${confirm.status}: ${await confirm.text()}`);
}

/**
 * Through the API as the signed-in creator of `page`: "Masterclass" ($20) sold with a live funnel
 * whose one step offers "Workbook" at $15 ("Add the workbook").
 */
export async function liveFunnelOfItem(page: Page): Promise<{ mainId: string; funnelId: string }> {
  const headers = { origin: baseUrl() };
  const post = async (path: string, data: unknown) => {
    const res = await page.request.post(path, { headers, data });
    if (res.status() >= 300) throw new Error(`${path} ${res.status()}: ${await res.text()}`);
    return res.json();
  };
  const item = async (title: string) =>
    (
      await (
        await page.request.post("/api/content", {
          headers,
          multipart: { title, price: "20", accessType: "link", linkUrl: "https://example.com/x", category: "other" },
        })
      ).json()
    ).id as string;
  const mainId = await item("Masterclass");
  const workbookId = await item("Workbook");
  const funnel = await post("/api/funnels", { name: "Masterclass funnel" });
  await post(`/api/funnels/${funnel.id}/products`, { contentIds: [mainId] });
  const price = await post("/api/stripe/create-upsell-product", { name: "Workbook", description: "", price: 15 });
  await post(`/api/funnels/${funnel.id}/steps`, {
    title: "Add the workbook",
    offerPriceId: price.priceId,
    stepType: "upsell",
    contentId: workbookId,
  });
  const live = await page.request.patch(`/api/funnels/${funnel.id}`, { headers, data: { testMode: false } });
  if (live.status() !== 200) throw new Error(`going live: ${live.status()}`);
  return { mainId, funnelId: funnel.id };
}
