// Abandoned-checkout recovery (issue 19): a checkout left with an email gets one reminder an hour
// later, written in the checkout's batch; at delivery it never reaches a payer, an unsubscribed
// address or an item with reminders off; its link restarts checkout at the same price, and that sale
// counts as recovered.
import { describe, expect, it } from "vitest";
import type { AnalyticsStats } from "../../shared/types";
import { handleEmailBatch } from "../queue/emails";
import type { EmailJob } from "../services/mail/templates";
import { REMINDER_DELAY_MS } from "../services/recovery";
import { call, confirmAsStripeJs, contentForm, cookieValue, deliver, env, eventFor, outbox, postForm, postJson, row, rows, signIn, standin } from "./helpers";

async function creatorWithItem(email: string, fields: Record<string, string> = {}) {
  const cookie = await signIn(email);
  const res = await postForm("/api/content", contentForm({ title: "Deep Work Course", price: "30", accessType: "link", linkUrl: "https://example.com/course", ...fields }), cookie);
  if (res.status !== 201) throw new Error(await res.text());
  return { cookie, item: await res.json<{ id: string }>() };
}

/** 'Unlock' on the paywall (no email yet), as a new browser. */
async function unlock(contentId: string, body: Record<string, unknown> = {}, buyerCookie?: string) {
  const res = await postJson("/api/create-payment-intent", { contentId, ...body }, buyerCookie);
  expect(res.status).toBe(200);
  const json = await res.json<{ clientSecret: string; amount: number }>();
  return { ...json, paymentIntent: json.clientSecret.split("_secret_")[0], buyerCookie: buyerCookie ?? `aw_buyer=${cookieValue(res, "aw_buyer")}` };
}
const typeEmail = (paymentIntent: string, email: string, buyerCookie: string) => postJson("/api/checkout/email", { paymentIntent, email }, buyerCookie);
const reminderJobs = (to: string) => rows<{ id: string; job: string }>("select id, job from outbox_emails where id like 'checkout-reminder:%' and json_extract(job, '$.to') = ?", to);

/** Runs the email consumer on `job`, as the queue does when its hour is over. */
async function deliverNow(due: EmailJob) {
  const job = { ...due, sendAt: Date.now() };
  const acked: string[] = [];
  await handleEmailBatch({ queue: "apewall-emails", messages: [{ id: "m", timestamp: new Date(), attempts: 1, body: job, ack: () => acked.push("ack"), retry: () => acked.push("retry") }] } as unknown as MessageBatch<EmailJob>, env as never);
  expect(acked).toEqual(["ack"]);
}
const mailsTo = async (to: string) => (await outbox()).filter((m) => m.to === to);
async function dueReminder(to: string): Promise<EmailJob> {
  const [only] = await reminderJobs(to);
  return JSON.parse(only.job) as EmailJob;
}

describe("abandoned-checkout recovery", () => {
  it("one reminder an hour after a checkout left with an email: its link returns at the same price, and the sale counts as recovered", async () => {
    const { cookie, item } = await creatorWithItem("rec-main@example.com", { pricingModel: "pay_what_you_want", minimumPrice: "10", price: "10" });
    const buyer = "rec-main-buyer@example.com";
    // Unlock with $25 chosen, then the email typed at checkout (twice, and in another case).
    const first = await unlock(item.id, { customAmount: 25 });
    const before = Date.now();
    expect((await typeEmail(first.paymentIntent, buyer, first.buyerCookie)).status).toBe(200);
    expect((await typeEmail(first.paymentIntent, buyer.toUpperCase(), first.buyerCookie)).status).toBe(200);
    // A second checkout of the same item by the same buyer: still one reminder.
    await unlock(item.id, { buyerEmail: buyer });
    const jobs = await reminderJobs(buyer);
    expect(jobs).toHaveLength(1);
    const job = JSON.parse(jobs[0].job) as EmailJob;
    expect(job.sendAt! - before).toBeGreaterThanOrEqual(REMINDER_DELAY_MS - 1000);
    expect(job.sendAt! - before).toBeLessThan(REMINDER_DELAY_MS + 60_000);

    // Another browser cannot put an address on this checkout.
    const stranger = await unlock(item.id);
    expect((await typeEmail(first.paymentIntent, "mallory@example.com", stranger.buyerCookie)).status).toBe(404);

    // Handed over early (before its hour), it is not sent: retried later.
    const early: string[] = [];
    await handleEmailBatch({ queue: "apewall-emails", messages: [{ id: "e", timestamp: new Date(), attempts: 1, body: job, ack: () => early.push("ack"), retry: () => early.push("retry") }] } as unknown as MessageBatch<EmailJob>, env as never);
    expect(early).toEqual(["retry"]);
    expect(await mailsTo(buyer)).toEqual([]);
    await deliverNow(job);
    const [mail] = await mailsTo(buyer);
    expect(mail.subject).toBe("You left Deep Work Course at checkout");
    expect(mail.text).toContain("$25.00");
    const link = new URL(mail.links.find((l) => l.includes("recover="))!);
    // A repeat of the delivery sends nothing more.
    await deliverNow(job);
    expect(await mailsTo(buyer)).toHaveLength(1);

    // The link's token restarts checkout at the amount left, in any browser; a tampered one is refused.
    const token = link.searchParams.get("recover")!;
    const bad = await postJson("/api/create-payment-intent", { contentId: item.id, recoverToken: `${token.slice(0, -2)}xx` });
    expect(bad.status).toBe(400);
    expect((await bad.json<{ message: string }>()).message).toBe("recoverToken: This checkout link has expired or is not valid. Open the item's page to buy it.");
    const back = await postJson("/api/create-payment-intent", { contentId: item.id, recoverToken: token });
    const backBody = await back.json<{ clientSecret: string; amount: number }>();
    expect(backBody.amount).toBe(25);
    expect((await standin<{ amount: number; receipt_email: string }>("GET", `/v1/payment_intents/${backBody.clientSecret.split("_secret_")[0]}`)).body).toMatchObject({ amount: 2500, receipt_email: buyer });
    expect((await confirmAsStripeJs(backBody.clientSecret, undefined, { receipt_email: buyer })).status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", backBody.clientSecret.split("_secret_")[0]))).status).toBe(200);
    const stats = await (await call("/api/analytics/stats?days=7", { cookie })).json<AnalyticsStats>();
    expect(stats.recovered).toEqual({ sales: 1, revenue: 25 });
    expect(link.pathname).toBe(`/checkout/${item.id}`);
  });

  it("never reaches a buyer who paid meanwhile, an unsubscribed address, an item with reminders off, or a checkout without an email", async () => {
    const { cookie, item } = await creatorWithItem("rec-never@example.com");
    // Paid between the checkout and the reminder.
    const payer = "rec-payer@example.com";
    const paying = await unlock(item.id, { buyerEmail: payer });
    expect((await confirmAsStripeJs(paying.clientSecret, undefined, { receipt_email: payer })).status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", paying.paymentIntent))).status).toBe(200);
    await deliverNow(await dueReminder(payer));
    expect((await mailsTo(payer)).map((m) => m.subject)).not.toContain("You left Deep Work Course at checkout");

    // Unsubscribed through a reminder's link: GET asks (and changes nothing), POST records it.
    const leaver = "rec-unsub@example.com";
    await unlock(item.id, { buyerEmail: leaver });
    await deliverNow(await dueReminder(leaver));
    const [reminder] = await mailsTo(leaver);
    const unsubscribeLink = new URL(reminder.links.find((l) => l.includes("/api/unsubscribe"))!);
    const page = await call(unsubscribeLink.pathname + unsubscribeLink.search);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Stop reminders");
    expect(await row("select email from email_unsubscribes where email = ?", leaver)).toBeNull();
    const form = new URLSearchParams({ token: unsubscribeLink.searchParams.get("token")! });
    const done = await call("/api/unsubscribe", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form.toString() });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("No more checkout reminders will go to <strong>rec-unsub@example.com</strong>");
    const forged = await call("/api/unsubscribe", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ token: `${btoa("victim@example.com")}.nope` }).toString() });
    expect(forged.status).toBe(400);
    // A new item's checkout: no reminder row at all for an unsubscribed address.
    const other = await postForm("/api/content", contentForm({ title: "Second", price: "5", accessType: "link", linkUrl: "https://example.com/2" }), cookie);
    await unlock((await other.json<{ id: string }>()).id, { buyerEmail: leaver });
    expect(await reminderJobs(leaver)).toHaveLength(1);

    // The creator turns reminders off: a pending one is dropped when due, and no new one is written.
    const offBuyer = "rec-off@example.com";
    await unlock(item.id, { buyerEmail: offBuyer });
    const off = await call(`/api/content/${item.id}/checkout-reminders`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ enabled: false }), cookie });
    expect(await off.json()).toEqual({ checkoutReminders: false });
    await deliverNow(await dueReminder(offBuyer));
    expect(await mailsTo(offBuyer)).toEqual([]);
    await unlock(item.id, { buyerEmail: "rec-off-later@example.com" });
    expect(await reminderJobs("rec-off-later@example.com")).toEqual([]);
    // Someone else's item: 404.
    const stranger = await signIn("rec-stranger@example.com");
    expect((await call(`/api/content/${item.id}/checkout-reminders`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ enabled: true }), cookie: stranger })).status).toBe(404);

    // No email, no reminder.
    const before = await row<{ n: number }>("select count(*) as n from outbox_emails where id like 'checkout-reminder:%'");
    await unlock(item.id);
    expect(await row<{ n: number }>("select count(*) as n from outbox_emails where id like 'checkout-reminder:%'")).toEqual(before);
  });
});
