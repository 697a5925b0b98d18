// Emails: the creator hears of each sale (unless turned off) and gets a receipt for each Pro
// charge; a buyer's order with one-click upsells arrives as one email, and an upsell added after it
// went out gets its own short "Added to your order".
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../index";
import type { EmailJob } from "../../services/mail/templates";
import {
  advanceTestClock,
  call,
  checkout,
  confirmAsStripeJs,
  contentForm,
  deliver,
  env,
  eventFor,
  outbox,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
  waitForMail,
} from "../support/helpers";

const json = (method: string, path: string, body: unknown, cookie?: string) =>
  call(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

async function item(cookie: string, title: string, price = "10") {
  const res = await postForm(
    "/api/content",
    contentForm({ title, price, accessType: "link", linkUrl: `https://example.com/${encodeURIComponent(title)}` }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

/** Pays for an item as a fresh browser and delivers Stripe's payment_intent.succeeded. */
async function buyAndDeliver(contentId: string, email: string) {
  const paid = await checkout(contentId, { email });
  expect((await deliver(await eventFor("payment_intent.succeeded", paid.paymentIntent))).status).toBe(200);
  const purchase = (await row<{ id: string }>(
    "select id from purchases where payment_intent_id = ?",
    paid.paymentIntent,
  ))!;
  return { ...paid, purchaseId: purchase.id };
}

// The buyer's emails about their order; a checkout reminder (written at checkout, dropped at delivery once paid: recovery.ts) is not one.
const jobsTo = (to: string) =>
  rows<{ id: string; job: string }>(
    "select id, job from outbox_emails where json_extract(job, '$.to') = ? and id not like 'checkout-reminder:%' order by created_at",
    to,
  );

describe("You made a sale", () => {
  it("the creator is emailed the item, what the buyer paid and their net from the ledger; turned off in /settings, no email is written", async () => {
    const cookie = await signIn("sale-mail@example.com");
    const itemId = await item(cookie, "Sale guide");
    expect((await (await call("/api/profile", { cookie })).json<{ emailOnSale: boolean }>()).emailOnSale).toBe(true);

    const first = await buyAndDeliver(itemId, "sale-mail-buyer@example.com");
    const mail = await vi.waitUntil(
      async () =>
        (await outbox()).find((m) => m.to === "sale-mail@example.com" && m.subject.startsWith("You made a sale")),
      { timeout: 10_000 },
    );
    expect(mail.subject).toBe("You made a sale: Sale guide");
    expect(mail.text).toContain("$10.00");
    // The creator's share as booked (80% on the free plan), not a figure computed elsewhere.
    const net = await row<{ c: number }>(
      "select amount_cents as c from ledger_entries where idempotency_key = ?",
      `sale:${first.purchaseId}:creator`,
    );
    expect(net!.c).toBe(800);
    expect(mail.text).toContain("$8.00");
    expect(mail.text).toContain("sale-mail-buyer@example.com");
    expect(mail.links.some((l) => l.endsWith("/dashboard"))).toBe(true);
    // A repeated webhook writes nothing more.
    await deliver(await eventFor("payment_intent.succeeded", first.paymentIntent));
    expect((await jobsTo("sale-mail@example.com")).filter((j) => j.id.startsWith("sale:"))).toHaveLength(1);

    const off = await json(
      "PUT",
      "/api/profile",
      { displayName: "", bio: "", supportEmail: "", emailOnSale: false },
      cookie,
    );
    expect(off.status).toBe(200);
    expect((await off.json<{ emailOnSale: boolean }>()).emailOnSale).toBe(false);
    expect((await (await call("/api/profile", { cookie })).json<{ emailOnSale: boolean }>()).emailOnSale).toBe(false);
    const second = await buyAndDeliver(itemId, "sale-mail-buyer2@example.com");
    expect(
      await row("select status from purchases where id = ? and status = 'paid'", second.purchaseId),
    ).not.toBeNull();
    expect(await row("select id from outbox_emails where id = ?", `sale:${second.purchaseId}`)).toBeNull();
  });
});

// ---- Pro receipts ----

type Ev = { id: string; type: string; data: { object: { id: string; customer?: string } } };
const DAY = 86_400;

async function deliverBilling(customerId: string, seen: Set<string>) {
  const { body } = await standin<{ data: Ev[] }>("GET", "/v1/events", { limit: "100" });
  const mine = body.data
    .filter(
      (e) =>
        !seen.has(e.id) &&
        (e.type.startsWith("customer.subscription.") || e.type.startsWith("invoice.")) &&
        e.data.object.customer === customerId,
    )
    .reverse();
  for (const e of mine) {
    seen.add(e.id);
    expect((await deliver(e as never)).status, e.type).toBe(200);
  }
  return mine;
}

describe("Receipt for ApeWall Pro", () => {
  it("each paid Pro invoice (the first, a duplicated webhook of it, the renewal) emails the creator one receipt", async () => {
    const email = "pro-receipt@example.com";
    const cookie = await signIn(email);
    const res = await postJson("/api/create-subscription", {}, cookie);
    const { clientSecret } = await res.json<{ clientSecret: string }>();
    const customer = (await row<{ c: string }>("select stripe_customer_id as c from users where email = ?", email))!.c;
    const clock = await standin<{ id: string }>("POST", "/v1/test_helpers/test_clocks", {
      frozen_time: String(Math.floor(Date.now() / 1000)),
    });
    await standin("POST", `/_standin/customers/${customer}/test_clock`, { test_clock: clock.body.id });
    await confirmAsStripeJs(clientSecret);
    const seen = new Set<string>();
    const delivered = await deliverBilling(customer, seen);
    const paidEvent = delivered.find((e) => e.type === "invoice.paid")!;
    expect(paidEvent).toBeDefined();
    // Stripe may deliver an event twice, even as another event about the same invoice.
    expect((await deliver({ ...paidEvent, id: `${paidEvent.id}_again` } as never)).status).toBe(200);

    const receipt = await vi.waitUntil(
      async () => (await outbox()).find((m) => m.to === email && m.subject === "Receipt for ApeWall Pro"),
      { timeout: 10_000 },
    );
    expect(receipt.text).toContain("$99.00");
    expect(receipt.text).toContain("4242");
    const invoice = (
      await standin<{ id: string; number: string | null }>("GET", `/v1/invoices/${paidEvent.data.object.id}`)
    ).body;
    expect(receipt.text).toContain(invoice.number ?? invoice.id);
    expect(receipt.links.some((l) => l.endsWith("/settings"))).toBe(true);
    const receipts = async () => (await jobsTo(email)).filter((j) => j.id.startsWith("pro-receipt:"));
    expect(await receipts()).toHaveLength(1);

    const end = Date.parse(
      (await (await call("/api/subscription", { cookie })).json<{ currentPeriodEnd: string }>()).currentPeriodEnd,
    );
    await advanceTestClock(clock.body.id, Math.floor(end / 1000) + DAY);
    expect((await deliverBilling(customer, seen)).map((e) => e.type)).toContain("invoice.paid");
    expect(await receipts()).toHaveLength(2);
    await vi.waitUntil(
      async () =>
        (await outbox()).filter((m) => m.to === email && m.subject === "Receipt for ApeWall Pro").length === 2,
      { timeout: 10_000 },
    );
  });
});

// ---- the buyer's order email ----

async function priceId(cookie: string, name: string, price: number) {
  const res = await postJson(
    "/api/stripe/create-upsell-product",
    { name, description: `${name} offer`, price },
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ priceId: string }>()).priceId;
}

/** A live funnel on a $10 item with two upsells: $15 and $5. */
async function twoUpsells(email: string) {
  const cookie = await signIn(email);
  const mainId = await item(cookie, "Main course");
  const workbookId = await item(cookie, "Workbook");
  const sheetId = await item(cookie, "Cheat sheet");
  const funnel = await (await postJson("/api/funnels", { name: "Order funnel" }, cookie)).json<{ id: string }>();
  expect((await postJson(`/api/funnels/${funnel.id}/products`, { contentIds: [mainId] }, cookie)).status).toBe(200);
  const step = async (title: string, contentId: string, name: string, price: number) =>
    (
      await postJson(
        `/api/funnels/${funnel.id}/steps`,
        { title, offerPriceId: await priceId(cookie, name, price), stepType: "upsell", contentId },
        cookie,
      )
    ).json<{ id: string }>();
  const first = await step("Add the workbook", workbookId, "Workbook", 15);
  const second = await step("Add the cheat sheet", sheetId, "Cheat sheet", 5);
  expect((await json("PATCH", `/api/funnels/${funnel.id}`, { testMode: false }, cookie)).status).toBe(200);
  return { mainId, first, second };
}

const showOffer = (purchaseId: string, cookie: string) =>
  call(`/api/upsell/offer?purchaseId=${purchaseId}`, { cookie });
const accept = async (purchaseId: string, stepId: string, cookie: string) => {
  await showOffer(purchaseId, cookie);
  const res = await postJson("/api/upsell/accept", { purchaseId, stepId }, cookie);
  expect(res.status).toBe(200);
  return res.json<{ status: string; purchaseId: string }>();
};

/** Delivers the order email's queued job now, as the queue would at its deadline. */
async function runDeadline(jobId: string) {
  const stored = await row<{ job: string }>("select job from outbox_emails where id = ?", jobId);
  expect(stored).not.toBeNull();
  const batch = createMessageBatch<EmailJob>("apewall-emails", [
    { id: "deadline", timestamp: new Date(), attempts: 1, body: JSON.parse(stored!.job) },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch, env as never, ctx);
  return getQueueResult(batch, ctx);
}

describe("one order email", () => {
  it("an order with 2 accepted upsells arrives as one buyer email listing the 3 items, each with its access link, and the total charged", async () => {
    const { mainId, first, second } = await twoUpsells("order-creator@example.com");
    const buyer = "order-buyer@example.com";
    const { purchaseId, buyerCookie } = await buyAndDeliver(mainId, buyer);
    expect((await accept(purchaseId, first.id, buyerCookie)).status).toBe("paid");
    expect((await accept(purchaseId, second.id, buyerCookie)).status).toBe("paid");

    const mail = await waitForMail(buyer);
    expect(mail.subject).toBe("Your order: Main course and 2 more");
    for (const title of ["Main course", "Workbook", "Cheat sheet"]) expect(mail.text).toContain(title);
    expect(mail.text).toContain("Total charged: $30.00");
    expect(mail.links.filter((l) => l.includes("access="))).toHaveLength(3);
    // One email to the buyer for the whole order, however the queue delivers.
    expect(await jobsTo(buyer)).toHaveLength(1);
    await vi.waitUntil(
      async () =>
        (await row<{ s: number | null }>("select sent_at as s from outbox_emails where id = ?", `order:${purchaseId}`))
          ?.s,
      { timeout: 10_000 },
    );
    expect((await outbox()).filter((m) => m.to === buyer)).toHaveLength(1);
  });

  it("the order email waits for its deadline (the sweep leaves it alone until then); declining the last offer sends it at once", async () => {
    const { mainId, first, second } = await twoUpsells("wait-creator@example.com");
    const buyer = "wait-buyer@example.com";
    const { purchaseId, buyerCookie } = await buyAndDeliver(mainId, buyer);
    const key = `order:${purchaseId}`;
    const stored = await row<{ job: string; created_at: number; attempts: number }>(
      "select job, created_at, attempts from outbox_emails where id = ?",
      key,
    );
    const job = JSON.parse(stored!.job) as EmailJob;
    expect(job.sendAt! - stored!.created_at).toBe(10 * 60 * 1000);
    // Six minutes on, the sweep would resend anything stuck; not this one, which is not due yet.
    const { sweepOutbox } = await import("../../services/mail/email-outbox");
    await sweepOutbox(env.DB, env.EMAILS, stored!.created_at + 6 * 60 * 1000);
    expect((await row<{ attempts: number }>("select attempts from outbox_emails where id = ?", key))!.attempts).toBe(
      stored!.attempts,
    );
    expect(await jobsTo(buyer)).toHaveLength(1);

    await showOffer(purchaseId, buyerCookie);
    await postJson("/api/upsell/decline", { purchaseId, stepId: first.id }, buyerCookie);
    await showOffer(purchaseId, buyerCookie);
    const end = await (await postJson("/api/upsell/decline", { purchaseId, stepId: second.id }, buyerCookie)).json<{
      next: unknown;
    }>();
    expect(end.next).toBeNull();
    const mail = await waitForMail(buyer);
    expect(mail.subject).toBe("Your order: Main course");
    expect(mail.text).toContain("Total charged: $10.00");
  });

  it("an upsell accepted after the order email went out (its deadline passed) gets its own 'Added to your order' email", async () => {
    const { mainId, first } = await twoUpsells("late-creator@example.com");
    const buyer = "late-buyer@example.com";
    const { purchaseId, buyerCookie } = await buyAndDeliver(mainId, buyer);
    await showOffer(purchaseId, buyerCookie);
    await runDeadline(`order:${purchaseId}`);
    const order = await waitForMail(buyer);
    expect(order.subject).toBe("Your order: Main course");
    expect(order.text).toContain("Total charged: $10.00");

    expect((await accept(purchaseId, first.id, buyerCookie)).status).toBe("paid");
    const added = await waitForMail(buyer, 1);
    expect(added.subject).toBe("Added to your order: Workbook");
    expect(added.text).toContain("$15.00");
    expect(added.links.filter((l) => l.includes("access="))).toHaveLength(1);
  });
});
