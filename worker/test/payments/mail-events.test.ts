// Receipts you can see delivered: the mail provider's delivery events (Resend's webhooks, Standard
// Webhooks signatures) are verified, recorded once per event id, and fold into one state whatever
// their order; the dev mailbox plays them by address through the same recording; the creator sees
// each sale's receipt and resends it (their own sales only), and the buyer's success page hears of a bounce.
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { MAIL_EVENT_TYPES, type MailDeliveryState } from "../../../shared/mail";
import { LOCAL_MAIL_WEBHOOK_SECRET } from "../../routes/mail-events";
import { DELIVERY_TRANSITIONS } from "../../services/mail/delivery-states";
import { sweepOutbox } from "../../services/mail/email-outbox";
import { recordSent } from "../../services/mail/mail-events";
import type { EmailJob } from "../../services/mail/templates";
import {
  CARDS,
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
  standin,
  waitForMail,
} from "../support/helpers";
import { creatorWithItem, purchaseOf } from "./payment-fixtures";

const job = (key: string, to: string): EmailJob => ({
  dedupeKey: key,
  to,
  template: "purchase-access",
  data: { title: "Beats", amountCents: 500, orderId: "ord1", accessUrl: "http://127.0.0.1:8787/success?access=x" },
});

let n = 0;
/** An email the consumer recorded as sent (by the provider's message id). */
async function sentEmail(): Promise<string> {
  const id = `em_${Date.now()}_${n++}`;
  await recordSent(env.DB, { messageId: id, job: job(`k-${id}`, "someone@example.com"), to: "someone@example.com" });
  return id;
}

type Signing = { secret?: string; at?: number; headers?: "svix" | "webhook"; extraSignatures?: string[] };
/** Resend's event as its webhook sends it, signed by Svix. */
async function event(type: string, emailId: string, eventId = `msg_${n++}_${Date.now()}`, opts: Signing = {}) {
  const payload = JSON.stringify({
    type,
    created_at: new Date().toISOString(),
    data: { created_at: new Date().toISOString(), email_id: emailId, to: ["someone@example.com"], subject: "s" },
  });
  return send(payload, eventId, opts);
}
function send(payload: string, eventId: string, opts: Signing = {}) {
  const at = new Date(opts.at ?? Date.now());
  const signature = new Webhook(opts.secret ?? LOCAL_MAIL_WEBHOOK_SECRET).sign(eventId, at, payload);
  const prefix = opts.headers ?? "svix";
  return call("/api/webhooks/mail", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      [`${prefix}-id`]: eventId,
      [`${prefix}-timestamp`]: String(Math.floor(at.getTime() / 1000)),
      [`${prefix}-signature`]: [...(opts.extraSignatures ?? []), signature].join(" "),
    },
    body: payload,
  });
}
const stateOf = async (id: string) =>
  (await row<{ state: string }>("select state from mail_deliveries where message_id = ?", id))?.state;
const eventsOf = (id: string) => rows("select * from mail_events where message_id = ?", id);

describe("the mail provider's webhook", () => {
  it("accepts Svix's headers and the Standard Webhooks ones, with one good signature among several", async () => {
    const id = await sentEmail();
    expect((await (await event("email.delivery_delayed", id)).json<{ outcome: string }>()).outcome).toBe("recorded");
    const other = `v1,${btoa("not the signature")}`;
    const res = await event("email.delivered", id, undefined, { headers: "webhook", extraSignatures: [other] });
    expect(res.status).toBe(200);
    expect(await stateOf(id)).toBe("delivered");
  });

  it("refuses a wrong, missing or stale signature, or another secret: 401 and nothing recorded", async () => {
    const id = await sentEmail();
    const old = Date.now() - 6 * 60 * 1000;
    const other = `whsec_${btoa("another endpoint's secret")}`;
    expect((await event("email.bounced", id, undefined, { at: old })).status).toBe(401);
    expect((await event("email.bounced", id, undefined, { at: Date.now() + 6 * 60 * 1000 })).status).toBe(401);
    expect((await event("email.bounced", id, undefined, { secret: other })).status).toBe(401);
    const body = JSON.stringify({ type: "email.bounced", data: { email_id: id } });
    const unsigned = await call("/api/webhooks/mail", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(unsigned.status).toBe(401);
    const tampered = await call("/api/webhooks/mail", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "svix-id": "msg_t",
        "svix-timestamp": String(Math.floor(Date.now() / 1000)),
        "svix-signature": new Webhook(LOCAL_MAIL_WEBHOOK_SECRET).sign(
          "msg_t",
          new Date(),
          body.replace("bounced", "delivered"),
        ),
      },
      body,
    });
    expect(tampered.status).toBe(401);
    expect(await stateOf(id)).toBe("sent");
    expect(await eventsOf(id)).toEqual([]);
  });

  it("records each event once: a repeat answers 200 and changes nothing", async () => {
    const id = await sentEmail();
    const first = await event("email.bounced", id, "msg_repeat_1");
    const again = await event("email.bounced", id, "msg_repeat_1");
    expect(first.status).toBe(200);
    expect(await again.json()).toEqual({ received: true, outcome: "duplicate" });
    expect(await eventsOf(id)).toHaveLength(1);
    expect(await stateOf(id)).toBe("bounced");
  });

  it("ends in the same state whatever the order: delivered never un-bounces, delayed never overwrites delivered, complained is final", async () => {
    const a = await sentEmail();
    await event("email.bounced", a);
    await event("email.delivered", a);
    expect(await stateOf(a)).toBe("bounced");
    const b = await sentEmail();
    await event("email.delivered", b);
    await event("email.delivery_delayed", b);
    await event("email.sent", b);
    expect(await stateOf(b)).toBe("delivered");
    const c = await sentEmail();
    await event("email.complained", c);
    await event("email.bounced", c);
    await event("email.delivered", c);
    expect(await stateOf(c)).toBe("complained");
    // Two events at once: both are recorded, and the state is the table's.
    const d = await sentEmail();
    await Promise.all([event("email.delivered", d), event("email.bounced", d), event("email.delivery_delayed", d)]);
    expect(await stateOf(d)).toBe("bounced");
    expect(await eventsOf(d)).toHaveLength(3);
  });

  it("the transition table: every order of any set of events ends in one state", () => {
    const fold = (types: readonly (typeof MAIL_EVENT_TYPES)[number][]) =>
      types.reduce<MailDeliveryState>((s, t) => DELIVERY_TRANSITIONS[s][t], "sent");
    const permutations = <T>(xs: T[]): T[][] =>
      xs.length <= 1
        ? [xs]
        : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p]));
    for (let mask = 1; mask < 1 << MAIL_EVENT_TYPES.length; mask++) {
      const set = MAIL_EVENT_TYPES.filter((_, i) => mask & (1 << i));
      const ends = new Set(permutations([...set]).map(fold));
      expect(ends.size, set.join(", ")).toBe(1);
      // Repeating an event changes nothing.
      expect(fold([...set, ...set])).toBe(fold(set));
    }
  });

  it("an email Resend would not send (suppressed after an earlier bounce, or failed) reads Bounced, whatever came before", async () => {
    for (const type of ["email.suppressed", "email.failed"]) {
      const id = await sentEmail();
      expect(await (await event(type, id)).json()).toEqual({ received: true, outcome: "recorded" });
      expect(await stateOf(id)).toBe("bounced");
      await event("email.delivered", id);
      expect(await stateOf(id)).toBe("bounced");
    }
  });

  it("the sweep forgets events and non-receipt emails after 30 days, and keeps a sale's receipt state", async () => {
    const old = Date.now() - 31 * 24 * 3600_000;
    const receipt = `em_old_receipt_${Date.now()}`;
    const other = `em_old_other_${Date.now()}`;
    await env.DB.prepare(
      "insert into mail_deliveries (message_id, dedupe_key, template, to_email, state, sent_at, updated_at) values (?, ?, 'library-link', 'a@example.com', 'delivered', ?, ?)",
    )
      .bind(other, `k-${other}`, old, old)
      .run();
    await env.DB.prepare(
      "insert into mail_deliveries (message_id, dedupe_key, template, to_email, purchase_id, state, sent_at, updated_at) values (?, ?, 'purchase-access', 'b@example.com', 'p_old', 'delivered', ?, ?)",
    )
      .bind(receipt, `k-${receipt}`, old, old)
      .run();
    await env.DB.prepare(
      "insert into mail_events (id, message_id, type, received_at) values (?, ?, 'email.delivered', ?)",
    )
      .bind(`ev_${receipt}`, receipt, old)
      .run();
    await sweepOutbox(env.DB, env.EMAILS);
    expect(await row("select 1 as x from mail_deliveries where message_id = ?", other)).toBeNull();
    expect(await row("select 1 as x from mail_events where id = ?", `ev_${receipt}`)).toBeNull();
    expect(await stateOf(receipt)).toBe("delivered");
  });

  it("an event that outruns our record of its email is refused (the provider retries) and applied when sent again", async () => {
    const eventId = `msg_early_${Date.now()}`;
    const id = `em_not_yet_${Date.now()}`;
    const early = await event("email.delivered", id, eventId);
    expect(early.status).toBe(409);
    expect(await eventsOf(id)).toEqual([]);
    await recordSent(env.DB, { messageId: id, job: job(`k-${id}`, "someone@example.com"), to: "someone@example.com" });
    const retried = await event("email.delivered", id, eventId);
    expect(await retried.json()).toEqual({ received: true, outcome: "recorded" });
    expect(await stateOf(id)).toBe("delivered");
  });

  it("acknowledges an old event of an email it never sent, another event type and a body without an email id, changing nothing", async () => {
    const payload = JSON.stringify({
      type: "email.delivered",
      created_at: new Date(Date.now() - 2 * 3600_000).toISOString(),
      data: { email_id: "em_not_ours", to: ["someone@example.com"], subject: "s" },
    });
    const unknown = await send(payload, `msg_old_${Date.now()}`);
    expect(await unknown.json()).toEqual({ received: true, outcome: "unknown" });
    expect(await eventsOf("em_not_ours")).toEqual([]);
    const id = await sentEmail();
    expect(await (await event("email.opened", id)).json()).toEqual({ received: true, outcome: "ignored" });
    const noId = await send(JSON.stringify({ type: "domain.updated", data: { id: "d1" } }), "msg_domain");
    expect(noId.status).toBe(200);
    expect(await stateOf(id)).toBe("sent");
  });

  it("a malformed body, even signed, is a 400 that records nothing", async () => {
    for (const payload of [
      '{"type": 5, "data": {}}',
      '{"type": "email.bounced"}',
      '{"type": "email.bounced", "data": []}',
    ]) {
      const res = await send(payload, `msg_bad_${n++}`);
      expect(res.status).toBe(400);
    }
    expect(await row("select count(*) as n from mail_events where id like 'msg_bad_%'")).toEqual({ n: 0 });
  });
});

/** A creator's sale paid with `email`, its receipt sent by the queue. */
async function sale(creatorEmail: string, buyerEmail: string) {
  const creator = await creatorWithItem(creatorEmail);
  const { paymentIntent, buyerCookie } = await checkout(creator.item.id, { email: buyerEmail });
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const purchase = (await purchaseOf(paymentIntent))!;
  return { ...creator, paymentIntent, purchase, buyerCookie };
}
const receiptInSales = async (cookie: string, purchaseId: string) => {
  const sales = await (await call("/api/creator/sales", { cookie })).json<{ id: string; receipt: unknown }[]>();
  return sales.find((s) => s.id === purchaseId)?.receipt as { state: string; to: string } | null | undefined;
};
const waitForState = (cookie: string, purchaseId: string, state: string) =>
  vi.waitUntil(async () => (await receiptInSales(cookie, purchaseId))?.state === state, {
    timeout: 10_000,
    interval: 100,
  });

describe("the dev mailbox plays the provider's events by address", () => {
  it("a receipt to a +bounce address bounces; the sales table says so and so does the buyer's success page", async () => {
    const s = await sale("dm-creator-1@example.com", "dm-buyer+bounce@example.com");
    await waitForState(s.cookie, s.purchase.id, "bounced");
    expect(await receiptInSales(s.cookie, s.purchase.id)).toMatchObject({ to: "dm-buyer+bounce@example.com" });
    // Only the browser that paid (or the access link's holder) reads it, the address masked.
    const path = `/api/purchase/verify?payment_intent=${s.paymentIntent}`;
    expect((await call(path)).status).toBe(404);
    const verify = await call(path, { cookie: s.buyerCookie });
    expect(verify.status).toBe(200);
    expect((await verify.json<{ receipt: unknown }>()).receipt).toMatchObject({
      state: "bounced",
      to: "d…@example.com",
      current: true,
    });

    // The buyer puts the right address on the order: its receipt is the latest, and it is delivered.
    const changed = await postJson(
      `/api/purchases/${s.purchase.id}/email`,
      { email: "dm-buyer-fixed@example.com" },
      s.buyerCookie,
    );
    expect(changed.status).toBe(200);
    await waitForState(s.cookie, s.purchase.id, "delivered");
    const after = await (await call(path, { cookie: s.buyerCookie })).json<{ receipt: unknown }>();
    expect(after.receipt).toMatchObject({ state: "delivered", current: true });
  });

  it("an ordinary address is delivered, Resend's test addresses do as documented", async () => {
    const ok = await sale("dm-creator-2@example.com", "dm-buyer-2@example.com");
    await waitForState(ok.cookie, ok.purchase.id, "delivered");
    const bounced = await sale("dm-creator-3@example.com", "bounced+dm@resend.dev");
    await waitForState(bounced.cookie, bounced.purchase.id, "bounced");
    const complained = await sale("dm-creator-4@example.com", "complained@resend.dev");
    await waitForState(complained.cookie, complained.purchase.id, "complained");
  });
});

describe("an order's one receipt speaks for each of its sales", () => {
  it("an order bump's sale shows the state of the order email that lists it", async () => {
    const s = await creatorWithItem("ob-creator@example.com");
    const addOn = await postForm(
      "/api/content",
      contentForm({ title: "Workbook", price: "12", accessType: "link", linkUrl: "https://example.com/wb" }),
      s.cookie,
    );
    expect(addOn.status).toBe(201);
    const bump = await call(`/api/content/${s.item.id}/bump`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contentId: (await addOn.json<{ id: string }>()).id, price: "4" }),
      cookie: s.cookie,
    });
    expect(bump.status).toBe(200);
    const buyer = "ob-buyer+bounce@example.com";
    const res = await postJson("/api/create-payment-intent", { contentId: s.item.id, bump: true, buyerEmail: buyer });
    const { clientSecret } = await res.json<{ clientSecret: string }>();
    const paymentIntent = clientSecret.split("_secret_")[0];
    expect((await confirmAsStripeJs(clientSecret, CARDS.ok, { receipt_email: buyer })).status).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    const main = (await purchaseOf(paymentIntent))!;
    const added = (await row<{ id: string }>("select id from purchases where bump_of = ?", main.id))!;
    await waitForState(s.cookie, main.id, "bounced");
    await waitForState(s.cookie, added.id, "bounced");
    expect(await row("select template from mail_deliveries where purchase_id = ?", main.id)).toEqual({
      template: "order",
    });
  });
});

describe("the creator's Resend receipt", () => {
  it("resends to the buyer's current address, once per press; another creator gets 404; the limit is 3 an hour per sale", async () => {
    const s = await sale("rs-creator@example.com", "rs-buyer@example.com");
    await waitForMail("rs-buyer@example.com");
    const other = await creatorWithItem("rs-other@example.com");
    const path = `/api/sales/${s.purchase.id}/resend-receipt`;
    expect((await postJson(path, { requestKey: "press-aaaa-1" }, other.cookie)).status).toBe(404);
    expect((await postJson(path, { requestKey: "short" }, s.cookie)).status).toBe(400);

    const first = await postJson(path, { requestKey: "press-aaaa-1" }, s.cookie);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ sent: true, to: "rs-buyer@example.com" });
    expect((await postJson(path, { requestKey: "press-aaaa-1" }, s.cookie)).status).toBe(200);
    await waitForMail("rs-buyer@example.com", 1);
    const count = async () => (await outbox()).filter((m) => m.to === "rs-buyer@example.com").length;
    expect(await count()).toBe(2);

    expect((await postJson(path, { requestKey: "press-aaaa-2" }, s.cookie)).status).toBe(200);
    expect((await postJson(path, { requestKey: "press-aaaa-3" }, s.cookie)).status).toBe(200);
    const over = await postJson(path, { requestKey: "press-aaaa-4" }, s.cookie);
    expect(over.status).toBe(429);
    expect((await over.json<{ message: string }>()).message).toMatch(/3 times in the last hour/);
  });

  it("a refunded sale has no receipt to resend: 409, and nothing is written", async () => {
    const s = await sale("rs-refund-creator@example.com", "rs-refund-buyer@example.com");
    expect((await standin("POST", "/v1/refunds", { payment_intent: s.paymentIntent })).status).toBe(200);
    expect((await deliver(await eventFor("charge.refunded", s.paymentIntent))).status).toBe(200);
    expect((await purchaseOf(s.paymentIntent))?.status).toBe("refunded");
    const res = await postJson(
      `/api/sales/${s.purchase.id}/resend-receipt`,
      { requestKey: "press-refunded" },
      s.cookie,
    );
    expect(res.status).toBe(409);
    expect(await row("select id from outbox_emails where id like 'receipt-resend:%press-refunded'")).toBeNull();
  });
});
