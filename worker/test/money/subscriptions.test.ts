// The Pro plan by Stripe's word only: the browser pays the first invoice, the webhooks (re-read from
// Stripe) make the creator Pro; renewals, a failed renewal and cancellation at period end move a
// test clock in the stand-in. Sales paid while Pro book a 0% fee.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../index";
import {
  advanceTestClock,
  call,
  checkout,
  confirmAsStripeJs,
  contentForm,
  deliver,
  env,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
} from "../support/helpers";

type Ev = {
  id: string;
  type: string;
  created: number;
  data: { object: { id: string; customer?: string; object: string } };
};
type State = { plan: string; status: string | null; currentPeriodEnd: string | null; cancelAtPeriodEnd: boolean };
const DAY = 86_400;

/** Every event about this customer's billing not yet delivered, oldest first, delivered to the app. */
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
  return mine.map((e) => e.type);
}

async function proCreator(email: string) {
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  const res = await postJson("/api/create-subscription", {}, cookie);
  expect(res.status).toBe(200);
  const { clientSecret } = await res.json<{ clientSecret: string }>();
  expect(clientSecret).toMatch(/^pi_\w+_secret_/);
  const customer = (await row<{ c: string }>("select stripe_customer_id as c from users where id = ?", id))!.c;
  return { cookie, id, clientSecret, customer };
}

/** Pays the first invoice as Stripe.js would, with the publishable key and the client secret. */
const payFirstInvoice = (clientSecret: string, card = "4242424242424242") => confirmAsStripeJs(clientSecret, card);

const state = async (cookie: string) => (await call("/api/subscription", { cookie })).json<State>();

async function onClock(customer: string) {
  const clock = await standin<{ id: string; frozen_time: number }>("POST", "/v1/test_helpers/test_clocks", {
    frozen_time: String(Math.floor(Date.now() / 1000)),
  });
  await standin("POST", `/_standin/customers/${customer}/test_clock`, { test_clock: clock.body.id });
  return clock.body;
}
const advance = (clock: { id: string }, to: number) => advanceTestClock(clock.id, to);

async function saleFeeOf(cookie: string) {
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Pro item", price: "10", accessType: "link", linkUrl: "https://example.com/p" }),
    cookie,
  );
  const item = await res.json<{ id: string }>();
  const { paymentIntent } = await checkout(item.id);
  const { body } = await standin<{ data: Ev[] }>("GET", "/v1/events", {
    type: "payment_intent.succeeded",
    limit: "20",
  });
  await deliver(body.data.find((e) => e.data.object.id === paymentIntent)! as never);
  const purchase = await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent);
  return rows<{ account: string; amount_cents: number }>(
    "select account, amount_cents from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee') order by id",
    purchase!.id,
  );
}

describe("Pro subscription", () => {
  it("becomes Pro only from Stripe's webhooks, then books its sales at 0% fee", async () => {
    const { cookie, id, clientSecret, customer } = await proCreator("pro-sub@example.com");
    // Asking again while unpaid gives the same first invoice, not a second subscription.
    const again = await (await postJson("/api/create-subscription", {}, cookie)).json<{ clientSecret: string }>();
    expect(again.clientSecret).toBe(clientSecret);
    expect(await rows("select id from subscriptions where user_id = ?", id)).toHaveLength(1);

    expect((await payFirstInvoice(clientSecret)).status).toBe(200);
    // Paid, but no webhook yet: the browser's word changes nothing.
    expect((await state(cookie)).plan).toBe("free");

    const seen = new Set<string>();
    await deliverBilling(customer, seen);
    const s = await state(cookie);
    expect(s).toMatchObject({ plan: "pro", status: "active", cancelAtPeriodEnd: false });
    expect(Date.parse(s.currentPeriodEnd!)).toBeGreaterThan(Date.now() + 27 * DAY * 1000);
    expect(await (await call("/api/auth/user", { cookie })).json()).toMatchObject({ plan: "pro" });
    expect(await rows("select invoice_id from pro_periods where user_id = ?", id)).toHaveLength(1);

    expect((await saleFeeOf(cookie)).map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", 1000],
      ["platform", 0],
    ]);
    expect((await postJson("/api/create-subscription", {}, cookie)).status).toBe(409);
  });

  it("a forged, foreign or replayed event changes nothing", async () => {
    const { cookie, id, clientSecret, customer } = await proCreator("pro-forged@example.com");
    const forged = {
      id: "evt_forged_sub",
      object: "event",
      type: "customer.subscription.updated",
      data: { object: { id: "sub_nope", customer, status: "active" } },
    };
    expect((await deliver(forged as never, { secret: "whsec_wrong" })).status).toBe(400);
    // Signed, but the subscription it names is not this creator's (Stripe does not know it).
    expect((await deliver({ ...forged, id: "evt_unknown_sub" } as never)).status).toBe(200);
    expect((await state(cookie)).plan).toBe("free");

    // A real subscription of someone else's Customer (a buyer's) changes nothing for anyone.
    const stranger = await standin<{ id: string }>("POST", "/v1/customers", { email: "stranger@example.com" });
    const price = (
      await standin<{ data: { id: string }[] }>("GET", "/v1/prices", { "lookup_keys[0]": "apewall_pro_monthly" })
    ).body.data[0].id;
    const foreign = await standin<{ id: string }>("POST", "/v1/subscriptions", {
      customer: stranger.body.id,
      "items[0][price]": price,
      "metadata[userId]": id,
    });
    expect(
      (await deliver({ ...forged, id: "evt_foreign_sub", data: { object: { id: foreign.body.id } } } as never)).status,
    ).toBe(200);
    expect((await state(cookie)).plan).toBe("free");

    await payFirstInvoice(clientSecret);
    const seen = new Set<string>();
    await deliverBilling(customer, seen);
    expect((await state(cookie)).plan).toBe("pro");
    // Replaying every event again: all duplicates.
    const { body } = await standin<{ data: Ev[] }>("GET", "/v1/events", { limit: "100" });
    for (const e of body.data.filter((x) => seen.has(x.id)))
      expect(await (await deliver(e as never)).json()).toMatchObject({ duplicate: true });
  });

  it("renews on the test clock; a card that fails later ends Pro once Stripe gives up", async () => {
    const { cookie, id, clientSecret, customer } = await proCreator("pro-renew@example.com");
    const clock = await onClock(customer);
    await payFirstInvoice(clientSecret);
    const seen = new Set<string>();
    await deliverBilling(customer, seen);
    const firstEnd = Date.parse((await state(cookie)).currentPeriodEnd!);

    // One month on: the renewal is charged and paid.
    await advance(clock, Math.floor(firstEnd / 1000) + DAY);
    const renewal = await deliverBilling(customer, seen);
    expect(renewal).toContain("invoice.paid");
    const renewed = await state(cookie);
    expect(renewed).toMatchObject({ plan: "pro", status: "active" });
    expect(Date.parse(renewed.currentPeriodEnd!)).toBeGreaterThan(firstEnd + 27 * DAY * 1000);
    expect(await rows("select invoice_id from pro_periods where user_id = ?", id)).toHaveLength(2);

    // The card now fails (Stripe's 4000000000000341): the next renewal fails, Stripe retries (past_due, still Pro)...
    const sub = (await row<{ id: string }>("select id from subscriptions where user_id = ?", id))!.id;
    const pm = await standin<{ id: string }>("POST", "/v1/payment_methods/pm_card_chargeCustomerFail/attach", {
      customer,
    });
    await standin("POST", `/v1/subscriptions/${sub}`, { default_payment_method: pm.body.id });
    const secondEnd = Date.parse(renewed.currentPeriodEnd!);
    await advance(clock, Math.floor(secondEnd / 1000) + DAY);
    expect(await deliverBilling(customer, seen)).toContain("invoice.payment_failed");
    expect(await state(cookie)).toMatchObject({ plan: "pro", status: "past_due" });

    // ...and gives up after its retries: the subscription ends, and so does Pro.
    await advance(clock, Math.floor(secondEnd / 1000) + 20 * DAY);
    expect(await deliverBilling(customer, seen)).toContain("customer.subscription.deleted");
    expect(await state(cookie)).toMatchObject({ plan: "free", status: "canceled" });
  });

  it("cancel at period end: Pro until the end date, then free", async () => {
    const { cookie, clientSecret, customer } = await proCreator("pro-cancel@example.com");
    const clock = await onClock(customer);
    await payFirstInvoice(clientSecret);
    const seen = new Set<string>();
    await deliverBilling(customer, seen);

    const res = await postJson("/api/subscription/cancel", {}, cookie);
    expect(res.status).toBe(200);
    const canceled = await res.json<State>();
    expect(canceled).toMatchObject({ plan: "pro", status: "active", cancelAtPeriodEnd: true });
    await deliverBilling(customer, seen);
    expect(await state(cookie)).toMatchObject({ plan: "pro", cancelAtPeriodEnd: true });

    await advance(clock, Math.floor(Date.parse(canceled.currentPeriodEnd!) / 1000) + DAY);
    expect(await deliverBilling(customer, seen)).toContain("customer.subscription.deleted");
    expect(await state(cookie)).toMatchObject({ plan: "free", status: "canceled" });
  });

  it("events delivered newest first (reordered) still end in the same state", async () => {
    const { cookie, id, clientSecret, customer } = await proCreator("pro-reordered@example.com");
    await payFirstInvoice(clientSecret);
    const { body } = await standin<{ data: Ev[] }>("GET", "/v1/events", { limit: "100" });
    const mine = body.data.filter(
      (e) =>
        (e.type.startsWith("customer.subscription.") || e.type.startsWith("invoice.")) &&
        e.data.object.customer === customer,
    );
    expect(mine.map((e) => e.type)).toContain("invoice.paid");
    // The list is newest first: invoice.paid arrives before customer.subscription.created.
    for (const e of mine) expect((await deliver(e as never)).status).toBe(200);
    expect(await state(cookie)).toMatchObject({ plan: "pro", status: "active" });
    expect(await rows("select invoice_id from pro_periods where user_id = ?", id)).toHaveLength(1);
  });

  it("signed out: 401; cancel without a subscription: 404", async () => {
    expect((await postJson("/api/create-subscription", {})).status).toBe(401);
    expect((await call("/api/subscription")).status).toBe(401);
    const cookie = await signIn("pro-none@example.com");
    expect((await postJson("/api/subscription/cancel", {}, cookie)).status).toBe(404);
    expect(await state(cookie)).toEqual({
      plan: "free",
      status: null,
      currentPeriodEnd: null,
      cancelAtPeriodEnd: false,
    });
  });
});

describe("Pro taken back", () => {
  type Item = { purchaseId: string; creatorShare: number; feeAdjustment: { amount: number; reason: string } | null };
  const timeline = async (cookie: string) =>
    (await (await call("/api/earnings/timeline?limit=20", { cookie })).json<{ items: Item[] }>()).items;
  const deliverAbout = async (type: string, paymentIntent: string, id?: string) => {
    const { body } = await standin<{ data: (Ev & { data: { object: { payment_intent?: string } } })[] }>(
      "GET",
      "/v1/events",
      { type, limit: "100" },
    );
    const event = body.data.find((e) => e.data.object.payment_intent === paymentIntent);
    expect(event, `${type} for ${paymentIntent}`).toBeTruthy();
    expect((await deliver({ ...event!, id: id ?? event!.id } as never)).status).toBe(200);
  };

  it("a fully refunded Pro invoice ends its period and re-books the 20% fee on its sales, with the reason on the money timeline", async () => {
    const { cookie, clientSecret, customer } = await proCreator("pro-refunded@example.com");
    await payFirstInvoice(clientSecret);
    await deliverBilling(customer, new Set());
    expect((await saleFeeOf(cookie)).map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", 1000],
      ["platform", 0],
    ]);
    const invoiceIntent = clientSecret.split("_secret_")[0];

    // A partial refund of the fee leaves the period.
    await standin("POST", "/v1/refunds", { payment_intent: invoiceIntent, amount: "1000" });
    await deliverAbout("charge.refunded", invoiceIntent);
    expect((await timeline(cookie))[0]).toMatchObject({ creatorShare: 10, feeAdjustment: null });

    // The rest: $99 back in full. The sale made at 0% now pays the 20% fee.
    await standin("POST", "/v1/refunds", { payment_intent: invoiceIntent });
    await deliverAbout("charge.refunded", invoiceIntent);
    await deliverAbout("charge.refunded", invoiceIntent, "evt_pro_refund_again");
    const [sale] = await timeline(cookie);
    expect(sale.feeAdjustment).toEqual({ amount: -2, reason: "Pro fee refunded: 20% fee applied" });
    const ledger = await rows<{ account: string; kind: string; amount_cents: number }>(
      "select account, kind, amount_cents from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee') order by id",
      sale.purchaseId,
    );
    expect(ledger.filter((l) => l.kind === "fee_adjustment").map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", -200],
      ["platform", 200],
    ]);
    const stats = await (await call("/api/earnings/stats", { cookie })).json<{ totalEarnings: number }>();
    expect(stats.totalEarnings).toBe(8);
    // A sale made now (still inside the refunded period) is booked at 20%.
    expect((await saleFeeOf(cookie)).map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", 800],
      ["platform", 200],
    ]);
  });

  it("a refund of the Pro invoice handled before its invoice.paid still leaves no 0% period", async () => {
    const { cookie, clientSecret, customer } = await proCreator("pro-refund-first@example.com");
    await payFirstInvoice(clientSecret);
    const invoiceIntent = clientSecret.split("_secret_")[0];
    await standin("POST", "/v1/refunds", { payment_intent: invoiceIntent });
    await deliverAbout("charge.refunded", invoiceIntent);
    await deliverBilling(customer, new Set());
    expect(
      await rows(
        "select invoice_id from pro_periods p join users u on u.id = p.user_id where u.email = ? and p.voided_at is not null and p.void_reason = 'refund'",
        "pro-refund-first@example.com",
      ),
    ).toHaveLength(1);
    expect((await saleFeeOf(cookie)).map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", 800],
      ["platform", 200],
    ]);
  });

  it("a Pro invoice charged back and lost ends its period and re-books the fee, saying so", async () => {
    const { cookie, clientSecret, customer } = await proCreator("pro-charged-back@example.com");
    await payFirstInvoice(clientSecret);
    await deliverBilling(customer, new Set());
    await saleFeeOf(cookie);
    const invoiceIntent = clientSecret.split("_secret_")[0];
    const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${invoiceIntent}`)).body
      .latest_charge;
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    await deliverAbout("charge.dispute.created", invoiceIntent);
    // Open, not lost yet: the period stands.
    expect((await timeline(cookie))[0].feeAdjustment).toBeNull();
    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "lost" });
    await deliverAbout("charge.dispute.closed", invoiceIntent);
    expect((await timeline(cookie))[0].feeAdjustment).toEqual({
      amount: -2,
      reason: "Pro fee charged back: 20% fee applied",
    });
  });

  it("a Pro invoice charged back stops granting 0% from the moment of the dispute, not its loss; won, it grants 0% again", async () => {
    const { cookie, clientSecret, customer } = await proCreator("pro-disputed-open@example.com");
    await payFirstInvoice(clientSecret);
    await deliverBilling(customer, new Set());
    const split = async () => (await saleFeeOf(cookie)).map((l) => [l.account, l.amount_cents]);
    expect(await split()).toEqual([
      ["creator", 1000],
      ["platform", 0],
    ]);
    const invoiceIntent = clientSecret.split("_secret_")[0];
    const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${invoiceIntent}`)).body
      .latest_charge;
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    await deliverAbout("charge.dispute.created", invoiceIntent);
    // Stripe dates it to the second: a sale in the second after it opened.
    const opened = (await standin<{ created: number }>("GET", `/v1/disputes/${dispute.body.id}`)).body.created;
    await vi.waitUntil(() => Date.now() >= (opened + 1) * 1000, { timeout: 3000, interval: 20 });
    // Open: a sale made now pays the fee; the one made before waits for the outcome.
    expect(await split()).toEqual([
      ["creator", 800],
      ["platform", 200],
    ]);
    expect((await timeline(cookie))[1].feeAdjustment).toBeNull();
    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "won" });
    await deliverAbout("charge.dispute.closed", invoiceIntent);
    expect(await split()).toEqual([
      ["creator", 1000],
      ["platform", 0],
    ]);
  });

  it("a sale booked at 0% just after its Pro period was voided (a race with the void) gets the fee re-booked by the daily sweep", async () => {
    const { cookie, clientSecret, customer } = await proCreator("pro-race@example.com");
    await payFirstInvoice(clientSecret);
    await deliverBilling(customer, new Set());
    expect((await saleFeeOf(cookie)).map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", 1000],
      ["platform", 0],
    ]);
    // As if the refund's void-and-rebook batch committed between the sale's plan read and its 0% split.
    await env.DB.prepare(
      "update pro_periods set voided_at = ?, void_reason = 'refund' where user_id = (select id from users where email = ?)",
    )
      .bind(Date.now(), "pro-race@example.com")
      .run();
    expect((await timeline(cookie))[0].feeAdjustment).toBeNull();

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);
    await worker.scheduled(createScheduledController({ cron: "30 3 * * *", scheduledTime: Date.now() }), env, ctx);
    await waitOnExecutionContext(ctx);

    expect((await timeline(cookie))[0].feeAdjustment).toEqual({
      amount: -2,
      reason: "Pro fee refunded: 20% fee applied",
    });
    const adjustments = await rows<{ account: string; amount_cents: number }>(
      "select account, amount_cents from ledger_entries where kind = 'fee_adjustment' and purchase_id in (select p.id from purchases p join users u on u.id = p.creator_id where u.email = ?) order by id",
      "pro-race@example.com",
    );
    expect(adjustments.map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", -200],
      ["platform", 200],
    ]);
  });
});
