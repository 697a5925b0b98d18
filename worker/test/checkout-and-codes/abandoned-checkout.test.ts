// Abandoned-checkout recovery: a checkout left with an email gets one reminder an hour
// later, written in the checkout's batch; at delivery it never reaches a payer, an unsubscribed
// address or an item with reminders off; its link restarts checkout at the same price, and that sale
// counts as recovered.
import { describe, expect, it } from "vitest";
import type { AnalyticsStats } from "../../../shared/analytics";
import { handleEmailBatch } from "../../queue/emails";
import type { EmailJob } from "../../services/mail/templates";
import { createDb } from "../../db/client";
import { composeReminder, REMINDER_DELAY_MS, REMINDERS_PER_ADDRESS_PER_WEEK } from "../../services/purchases/recovery";
import {
  call,
  confirmAsStripeJs,
  contentForm,
  cookieValue,
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
} from "../support/helpers";

async function creatorWithItem(email: string, fields: Record<string, string> = {}) {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({
      title: "Deep Work Course",
      price: "30",
      accessType: "link",
      linkUrl: "https://example.com/course",
      ...fields,
    }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return { cookie, item: await res.json<{ id: string }>() };
}

/** 'Unlock' on the paywall (no email yet), as a new browser. */
async function unlock(contentId: string, body: Record<string, unknown> = {}, buyerCookie?: string) {
  const res = await postJson("/api/create-payment-intent", { contentId, ...body }, buyerCookie);
  expect(res.status).toBe(200);
  const json = await res.json<{ clientSecret: string; amount: number }>();
  return {
    ...json,
    paymentIntent: json.clientSecret.split("_secret_")[0],
    buyerCookie: buyerCookie ?? `aw_buyer=${cookieValue(res, "aw_buyer")}`,
  };
}
const typeEmail = (paymentIntent: string, email: string, buyerCookie: string) =>
  postJson("/api/checkout/email", { paymentIntent, email }, buyerCookie);
/** The reminder rows of one checkout, as jobs. */
const jobsOf = async (purchaseId: string) =>
  (
    await rows<{ job: string }>(
      "select job from outbox_emails where id like 'checkout-reminder:%' and json_extract(job, '$.data.purchaseId') = ?",
      purchaseId,
    )
  ).map((r) => JSON.parse(r.job) as EmailJob);
const reminderJobs = (to: string) =>
  rows<{ id: string; job: string }>(
    "select id, job from outbox_emails where id like 'checkout-reminder:%' and json_extract(job, '$.to') = ?",
    to,
  );

/** Runs the email consumer on `job`, as the queue does when its hour is over. */
async function deliverNow(due: EmailJob) {
  const job = { ...due, sendAt: Date.now() };
  const acked: string[] = [];
  await handleEmailBatch(
    {
      queue: "apewall-emails",
      messages: [
        {
          id: "m",
          timestamp: new Date(),
          attempts: 1,
          body: job,
          ack: () => acked.push("ack"),
          retry: () => acked.push("retry"),
        },
      ],
    } as unknown as MessageBatch<EmailJob>,
    env as never,
  );
  expect(acked).toEqual(["ack"]);
}
const mailsTo = async (to: string) => (await outbox()).filter((m) => m.to === to);
async function dueReminder(to: string): Promise<EmailJob> {
  const [only] = await reminderJobs(to);
  return JSON.parse(only.job) as EmailJob;
}

describe("abandoned-checkout recovery", () => {
  it("one reminder an hour after a checkout left with an email: its link returns at the same price, and the sale counts as recovered", async () => {
    const { cookie, item } = await creatorWithItem("rec-main@example.com", {
      pricingModel: "pay_what_you_want",
      minimumPrice: "10",
      price: "10",
    });
    const buyer = "rec-main-buyer@example.com";
    // Unlock with $25 chosen, then the email typed at checkout (twice, and in another case).
    const first = await unlock(item.id, { customAmount: 25 });
    const before = Date.now();
    expect((await typeEmail(first.paymentIntent, buyer, first.buyerCookie)).status).toBe(200);
    expect((await typeEmail(first.paymentIntent, buyer.toUpperCase(), first.buyerCookie)).status).toBe(200);
    const firstId = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ?",
      first.paymentIntent,
    ))!.id;
    const [job] = await jobsOf(firstId);
    expect(await jobsOf(firstId)).toHaveLength(1);
    // A second checkout of the same item by the same buyer, in another browser: its own row, but one reminder reaches them.
    const second = await unlock(item.id, { buyerEmail: buyer });
    const secondId = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ?",
      second.paymentIntent,
    ))!.id;
    expect(job.sendAt! - before).toBeGreaterThanOrEqual(REMINDER_DELAY_MS - 1000);
    expect(job.sendAt! - before).toBeLessThan(REMINDER_DELAY_MS + 60_000);

    // Another browser cannot put an address on this checkout.
    const stranger = await unlock(item.id);
    expect((await typeEmail(first.paymentIntent, "mallory@example.com", stranger.buyerCookie)).status).toBe(404);

    // Handed over early (before its hour), it is not sent: retried later.
    const early: string[] = [];
    await handleEmailBatch(
      {
        queue: "apewall-emails",
        messages: [
          {
            id: "e",
            timestamp: new Date(),
            attempts: 1,
            body: job,
            ack: () => early.push("ack"),
            retry: () => early.push("retry"),
          },
        ],
      } as unknown as MessageBatch<EmailJob>,
      env as never,
    );
    expect(early).toEqual(["retry"]);
    expect(await mailsTo(buyer)).toEqual([]);
    await deliverNow(job);
    const [mail] = await mailsTo(buyer);
    expect(mail.subject).toBe("You left Deep Work Course at checkout");
    expect(mail.text).toContain("$25.00");
    const link = new URL(mail.links.find((l) => l.includes("recover="))!);
    // A repeat of the delivery, or the other checkout's reminder, sends nothing more.
    await deliverNow(job);
    for (const other of await jobsOf(secondId)) await deliverNow(other);
    expect(await mailsTo(buyer)).toHaveLength(1);

    // The link's token restarts checkout at the amount left, in any browser; a tampered one is refused.
    const token = link.searchParams.get("recover")!;
    const bad = await postJson("/api/create-payment-intent", {
      contentId: item.id,
      recoverToken: `${token.slice(0, -2)}xx`,
    });
    expect(bad.status).toBe(400);
    expect((await bad.json<{ message: string }>()).message).toBe(
      "recoverToken: This checkout link has expired or is not valid. Open the item's page to buy it.",
    );
    // It is the reminder's address's checkout: it keeps that address, and refuses another.
    const other = await postJson("/api/create-payment-intent", {
      contentId: item.id,
      recoverToken: token,
      buyerEmail: "mallory@example.com",
    });
    expect(other.status).toBe(400);
    expect((await other.json<{ message: string }>()).message).toBe(
      "buyerEmail: This checkout link is for the address the reminder was sent to.",
    );
    const back = await postJson("/api/create-payment-intent", { contentId: item.id, recoverToken: token });
    const backBody = await back.json<{ clientSecret: string; amount: number; buyerEmail: string }>();
    expect(backBody).toMatchObject({ amount: 25, buyerEmail: buyer });
    const backIntent = backBody.clientSecret.split("_secret_")[0];
    expect(
      (await standin<{ amount: number; receipt_email: string }>("GET", `/v1/payment_intents/${backIntent}`)).body,
    ).toMatchObject({ amount: 2500, receipt_email: buyer });
    const backCookie = `aw_buyer=${cookieValue(back, "aw_buyer")}`;
    expect((await typeEmail(backIntent, "mallory@example.com", backCookie)).status).toBe(400);
    expect((await confirmAsStripeJs(backBody.clientSecret, undefined, { receipt_email: buyer })).status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", backIntent))).status).toBe(200);
    // Paid: the link has done its one thing.
    const spent = await postJson("/api/create-payment-intent", { contentId: item.id, recoverToken: token });
    expect(spent.status).toBe(409);
    expect((await spent.json<{ message: string }>()).message).toBe(
      "recoverToken: This checkout is already paid. Your access link is in your receipt email.",
    );
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
    const done = await call("/api/unsubscribe", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(done.status).toBe(200);
    expect(await done.text()).toContain("No more checkout reminders will go to <strong>rec-unsub@example.com</strong>");
    const forged = await call("/api/unsubscribe", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: `${btoa("victim@example.com")}.nope` }).toString(),
    });
    expect(forged.status).toBe(400);
    // A new item's checkout: no reminder row at all for an unsubscribed address.
    const other = await postForm(
      "/api/content",
      contentForm({ title: "Second", price: "5", accessType: "link", linkUrl: "https://example.com/2" }),
      cookie,
    );
    await unlock((await other.json<{ id: string }>()).id, { buyerEmail: leaver });
    expect(await reminderJobs(leaver)).toHaveLength(1);

    // The creator turns reminders off: a pending one is dropped when due, and no new one is written.
    const offBuyer = "rec-off@example.com";
    await unlock(item.id, { buyerEmail: offBuyer });
    const off = await call(`/api/content/${item.id}/checkout-reminders`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ enabled: false }),
      cookie,
    });
    expect(await off.json()).toEqual({ checkoutReminders: false });
    await deliverNow(await dueReminder(offBuyer));
    expect(await mailsTo(offBuyer)).toEqual([]);
    await unlock(item.id, { buyerEmail: "rec-off-later@example.com" });
    expect(await reminderJobs("rec-off-later@example.com")).toEqual([]);
    // Someone else's item: 404.
    const stranger = await signIn("rec-stranger@example.com");
    expect(
      (
        await call(`/api/content/${item.id}/checkout-reminders`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ enabled: true }),
          cookie: stranger,
        })
      ).status,
    ).toBe(404);

    // No email, no reminder.
    const before = await row<{ n: number }>(
      "select count(*) as n from outbox_emails where id like 'checkout-reminder:%'",
    );
    await unlock(item.id);
    expect(
      await row<{ n: number }>("select count(*) as n from outbox_emails where id like 'checkout-reminder:%'"),
    ).toEqual(before);
  });
  it("a reminder's link holds its code again like any checkout: a code that no longer applies gives the full price and says why", async () => {
    const { cookie, item } = await creatorWithItem("rec-code@example.com");
    const createCode = async (body: Record<string, unknown>) =>
      expect((await postJson("/api/discounts", body, cookie)).status).toBe(201);
    await createCode({
      code: "HALFOFF",
      kind: "percent",
      percentOff: 50,
      expiresOn: new Date(Date.now() + 86400000).toISOString().slice(0, 10),
    });
    await createCode({ code: "JUSTONE", kind: "percent", percentOff: 50, maxUses: 1 });
    await createCode({ code: "STILLON", kind: "percent", percentOff: 50 });
    const linkOf = async (buyer: string, discountCode: string) => {
      const left = await unlock(item.id, { buyerEmail: buyer, discountCode });
      expect(left.amount).toBe(15);
      await deliverNow(await dueReminder(buyer));
      const [mail] = await mailsTo(buyer);
      return new URL(mail.links.find((l) => l.includes("recover="))!).searchParams.get("recover")!;
    };
    const restart = async (recoverToken: string) =>
      (await postJson("/api/create-payment-intent", { contentId: item.id, recoverToken })).json<{
        amount: number;
        notice?: string;
        discount?: { code: string };
      }>();

    const expired = await linkOf("rec-code-expired@example.com", "HALFOFF");
    const usedUp = await linkOf("rec-code-used@example.com", "JUSTONE");
    const still = await linkOf("rec-code-still@example.com", "STILLON");
    await env.DB.prepare("update discount_codes set expires_at = ? where code = 'HALFOFF'")
      .bind(Date.now() - 1000)
      .run();
    // JUSTONE's use: the abandoned checkout's hold lapsed, and someone else paid with it.
    await env.DB.prepare(
      "update discount_redemptions set created_at = created_at - ? where code_id in (select id from discount_codes where code = 'JUSTONE')",
    )
      .bind(31 * 60_000)
      .run();
    const payer = await unlock(item.id, { buyerEmail: "rec-code-payer@example.com", discountCode: "JUSTONE" });
    expect(
      (await confirmAsStripeJs(payer.clientSecret, undefined, { receipt_email: "rec-code-payer@example.com" })).status,
    ).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", payer.paymentIntent))).status).toBe(200);

    expect(await restart(expired)).toMatchObject({
      amount: 30,
      notice: "Code HALFOFF no longer applies (this code has expired), so this checkout is at the full price.",
    });
    expect(await restart(usedUp)).toMatchObject({
      amount: 30,
      notice: "Code JUSTONE no longer applies (this code has been used up), so this checkout is at the full price.",
    });
    const kept = await restart(still);
    expect(kept).toMatchObject({ amount: 15, discount: { code: "STILLON" } });
    expect(kept.notice).toBeUndefined();
  });

  it("a reminder's link ends when the checkout it names is paid after all", async () => {
    const { item } = await creatorWithItem("rec-paid-after@example.com");
    const buyer = "rec-paid-after-buyer@example.com";
    const left = await unlock(item.id, { buyerEmail: buyer });
    await deliverNow(await dueReminder(buyer));
    const [mail] = await mailsTo(buyer);
    const token = new URL(mail.links.find((l) => l.includes("recover="))!).searchParams.get("recover")!;
    expect((await confirmAsStripeJs(left.clientSecret, undefined, { receipt_email: buyer })).status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", left.paymentIntent))).status).toBe(200);
    const res = await postJson("/api/create-payment-intent", { contentId: item.id, recoverToken: token });
    expect(res.status).toBe(409);
    expect((await res.json<{ message: string }>()).message).toBe(
      "recoverToken: This checkout is already paid. Your access link is in your receipt email.",
    );
  });

  it("goes to the checkout's email as it is when due, never when the buyer said no, and at most three a week to one address", async () => {
    const { item } = await creatorWithItem("rec-limits@example.com");
    // A typo corrected: the reminder goes to the corrected address only.
    const typo = await unlock(item.id);
    expect((await typeEmail(typo.paymentIntent, "rec-typo@exmaple.com", typo.buyerCookie)).status).toBe(200);
    expect((await typeEmail(typo.paymentIntent, "rec-typo@example.com", typo.buyerCookie)).status).toBe(200);
    const typoId = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ?",
      typo.paymentIntent,
    ))!.id;
    for (const job of await jobsOf(typoId)) await deliverNow(job);
    expect(await mailsTo("rec-typo@exmaple.com")).toEqual([]);
    expect(await mailsTo("rec-typo@example.com")).toHaveLength(1);

    // "Don't send me a reminder", ticked after typing the address.
    const no = await unlock(item.id, { buyerEmail: "rec-no@example.com" });
    expect(
      (await postJson("/api/checkout/email", { paymentIntent: no.paymentIntent, noReminder: true }, no.buyerCookie))
        .status,
    ).toBe(200);
    const noId = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", no.paymentIntent))!
      .id;
    for (const job of await jobsOf(noId)) await deliverNow(job);
    expect(await mailsTo("rec-no@example.com")).toEqual([]);
    // Ticked before 'Unlock' was pressed again (a code applied, the bump ticked): no reminder is even written.
    await unlock(item.id, { buyerEmail: "rec-quiet@example.com", noReminder: true });
    expect(await reminderJobs("rec-quiet@example.com")).toEqual([]);

    // One address, four abandoned checkouts at two creators: three reminders this week.
    const other = await creatorWithItem("rec-limits-other@example.com");
    const items = [item.id, other.item.id];
    for (const [cookie, title] of [
      [other.cookie, "Third"],
      [other.cookie, "Fourth"],
    ] as const) {
      const res = await postForm(
        "/api/content",
        contentForm({ title, price: "5", accessType: "link", linkUrl: "https://example.com/x" }),
        cookie,
      );
      items.push((await res.json<{ id: string }>()).id);
    }
    const target = "rec-target@example.com";
    for (const id of items) {
      const left = await unlock(id, { buyerEmail: target });
      const pid = (await row<{ id: string }>(
        "select id from purchases where payment_intent_id = ?",
        left.paymentIntent,
      ))!.id;
      for (const job of await jobsOf(pid)) await deliverNow(job);
    }
    expect((await mailsTo(target)).length).toBe(REMINDERS_PER_ADDRESS_PER_WEEK);
  });

  it("is not sent while the checkout's payment is processing (its PaymentIntent as Stripe has it when due)", async () => {
    const { item } = await creatorWithItem("rec-processing@example.com");
    const left = await unlock(item.id, { buyerEmail: "rec-processing-buyer@example.com" });
    const pid = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", left.paymentIntent))!
      .id;
    const [job] = await jobsOf(pid);
    await env.DB.prepare(
      "insert into emails_sent (dedupe_key, to_email, kind, subject, status, claimed_at) values (?, ?, 'checkout-reminder', 'claimed', 'sending', ?)",
    )
      .bind(job.dedupeKey, job.to, Date.now())
      .run();
    const deps = (status: string) => ({
      d1: env.DB,
      appUrl: "http://127.0.0.1:8787",
      accessSecret: "worker-test-access-secret",
      creatorOf: async () => ({ name: "Creator" }) as never,
      intentStatus: async () => status,
    });
    const reminderJob = job as Extract<EmailJob, { template: "checkout-reminder" }>;
    expect(await composeReminder(createDb(env.DB), deps("processing"), reminderJob)).toBeNull();
    expect(await composeReminder(createDb(env.DB), deps("requires_payment_method"), reminderJob)).toMatchObject({
      to: "rec-processing-buyer@example.com",
    });
  });
});
