// Changing an open checkout's code and order bump in place (POST /api/checkout/terms): the server
// prices the terms whatever the caller sends, only the browser that started the checkout may change
// it, a payment under way or made refuses a change cleanly, and concurrent changes leave the
// PaymentIntent's amount and the purchase rows in agreement, so the webhook fulfils what was charged.
// Behaviour: docs/checkout-and-codes.md ("Changing a checkout's terms").
import type Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { purchaseDepsOf } from "../../deps";
import type { Bindings } from "../../lib/env";
import { changeCheckoutTerms } from "../../services/purchases/checkout-terms";
import { fulfil } from "../../services/purchases/fulfil";
import { CHECKOUT_TERMS_MESSAGES } from "../../../shared/paywall";
import {
  call,
  confirmAsStripeJs,
  contentForm,
  cookieValue,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
} from "../support/helpers";

async function item(cookie: string, title: string, price: string) {
  const res = await postForm(
    "/api/content",
    contentForm({ title, price, accessType: "link", linkUrl: `https://example.com/${encodeURIComponent(title)}` }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

/** A $20 item with a $5 add-on and the code SPRING ($3.50 off), and a checkout of it started by a new browser. */
async function openCheckout(tag: string) {
  const cookie = await signIn(`${tag}@example.com`);
  const main = await item(cookie, "Masterclass", "20");
  const addOn = await item(cookie, "Workbook", "12");
  const bump = await call(`/api/content/${main}/bump`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ contentId: addOn, price: "5" }),
    cookie,
  });
  expect(bump.status).toBe(200);
  const code = await postJson(
    "/api/discounts",
    { code: `S${tag.slice(0, 6).toUpperCase()}`, kind: "fixed", amountOff: "3.50" },
    cookie,
  );
  expect(code.status).toBe(201);
  const res = await postJson("/api/create-payment-intent", { contentId: main, buyerEmail: `${tag}-buyer@example.com` });
  expect(res.status).toBe(200);
  const { clientSecret } = await res.json<{ clientSecret: string }>();
  return {
    main,
    codeText: `S${tag.slice(0, 6).toUpperCase()}`,
    clientSecret,
    paymentIntent: clientSecret.split("_secret_")[0],
    browser: `aw_buyer=${cookieValue(res, "aw_buyer")}`,
    cookie,
  };
}

const terms = (browser: string | undefined, body: Record<string, unknown>) =>
  postJson("/api/checkout/terms", body, browser);
const intentAmount = async (id: string) =>
  (await standin<{ amount: number }>("GET", `/v1/payment_intents/${id}`)).body.amount;
/** What the rows say the checkout charges: the main purchase and its add-on. */
async function rowsOf(paymentIntent: string) {
  const main = (await row<{
    id: string;
    amount_cents: number;
    discount_cents: number;
    discount_code_id: string | null;
    status: string;
  }>(
    "select id, amount_cents, discount_cents, discount_code_id, status from purchases where payment_intent_id = ?",
    paymentIntent,
  ))!;
  const bumps = await rows<{ amount_cents: number; status: string }>(
    "select amount_cents, status from purchases where bump_of = ?",
    main.id,
  );
  const holds = await rows<{ code_id: string }>(
    "select code_id from discount_redemptions where purchase_id = ?",
    main.id,
  );
  return {
    main,
    bumps,
    holds: holds.length,
    holdCodes: holds.map((h) => h.code_id),
    total: main.amount_cents + bumps.reduce((a, b) => a + b.amount_cents, 0),
  };
}

describe("changing a checkout's terms", () => {
  it("the server prices the terms, only the browser that started the checkout may change them, and the same terms twice change nothing", async () => {
    const c = await openCheckout("terms-price");
    // A hostile caller's amounts are not read: the item's price, the code and the bump decide.
    const hostile = await terms(c.browser, {
      paymentIntent: c.paymentIntent,
      discountCode: c.codeText.toLowerCase(),
      bump: true,
      amount: 0.5,
      amountCents: 50,
      customAmount: 0.5,
    });
    expect(hostile.status).toBe(200);
    expect(await hostile.json()).toEqual({
      amount: 21.5,
      discount: { code: c.codeText, amountOff: 3.5 },
      bump: { title: "Workbook", amount: 5 },
      tax: expect.anything(),
    });
    expect(await intentAmount(c.paymentIntent)).toBe(2150);
    expect(await rowsOf(c.paymentIntent)).toMatchObject({ total: 2150, holds: 1, main: { discount_cents: 350 } });

    // Another browser, or none, does not see this checkout; a code that does not apply changes nothing.
    expect((await terms(undefined, { paymentIntent: c.paymentIntent, discountCode: null, bump: false })).status).toBe(
      404,
    );
    const stranger = await postJson("/api/create-payment-intent", { contentId: c.main });
    const other = `aw_buyer=${cookieValue(stranger, "aw_buyer")}`;
    expect((await terms(other, { paymentIntent: c.paymentIntent, discountCode: null, bump: false })).status).toBe(404);
    const bad = await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: "NOPE", bump: true });
    expect(bad.status).toBe(400);
    expect((await bad.json<{ message: string }>()).message).toMatch(/^discountCode: /);
    expect((await terms(c.browser, { paymentIntent: c.paymentIntent, bump: "yes" })).status).toBe(400);
    expect(await intentAmount(c.paymentIntent)).toBe(2150);

    // The same terms again: the same amount, still one hold and one add-on.
    const again = await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: c.codeText, bump: true });
    expect((await again.json<{ amount: number }>()).amount).toBe(21.5);
    expect(await rowsOf(c.paymentIntent)).toMatchObject({ total: 2150, holds: 1, bumps: [{ amount_cents: 500 }] });

    // The code removed: its hold is given back; the add-on unticked: its row goes.
    const removed = await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: null, bump: false });
    expect(await removed.json()).toEqual({ amount: 20, tax: expect.anything() });
    expect(await rowsOf(c.paymentIntent)).toMatchObject({ total: 2000, holds: 0, bumps: [] });
    expect(await intentAmount(c.paymentIntent)).toBe(2000);
    const intent = (
      await standin<{ metadata: Record<string, string> }>("GET", `/v1/payment_intents/${c.paymentIntent}`)
    ).body;
    expect(intent.metadata.discountCode).toBeUndefined();
    expect(intent.metadata.bumpPurchaseId).toBeUndefined();
  });

  it("after the payment succeeded, or while it is under way, a change is refused cleanly and nothing moves", async () => {
    const c = await openCheckout("terms-paid");
    expect((await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: null, bump: true })).status).toBe(
      200,
    );
    const paid = await confirmAsStripeJs(c.clientSecret);
    expect(paid.body.status).toBe("succeeded");
    // Before the webhook: the row is still pending, Stripe's word refuses the change.
    const late = await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: c.codeText, bump: false });
    expect(late.status).toBe(409);
    expect((await late.json<{ message: string }>()).message).toBe(CHECKOUT_TERMS_MESSAGES.closed);
    expect(await intentAmount(c.paymentIntent)).toBe(2500);
    expect(await rowsOf(c.paymentIntent)).toMatchObject({ total: 2500, holds: 0 });
    expect((await deliver(await eventFor("payment_intent.succeeded", c.paymentIntent))).status).toBe(200);
    const after = await rowsOf(c.paymentIntent);
    expect([after.main.status, ...after.bumps.map((b) => b.status)]).toEqual(["paid", "paid"]);
    const again = await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: null, bump: false });
    expect(again.status).toBe(409);

    // A bank payment under way (processing): refused the same way.
    const slow = await openCheckout("terms-slow");
    const processing = await standin(
      "POST",
      `/v1/payment_intents/${slow.paymentIntent}/confirm`,
      {
        client_secret: slow.clientSecret,
        "payment_method_data[type]": "link",
        "payment_method_data[billing_details][email]": "saver+bank@example.com",
      },
      "pk_test_worker",
    );
    expect(processing.body.status).toBe("processing");
    const refused = await terms(slow.browser, { paymentIntent: slow.paymentIntent, discountCode: null, bump: true });
    expect(refused.status).toBe(409);
    expect(await intentAmount(slow.paymentIntent)).toBe(2000);
    expect(await rowsOf(slow.paymentIntent)).toMatchObject({ total: 2000, bumps: [] });
  });

  it("changes sent at once leave the PaymentIntent's amount and the rows in agreement, and the payment is fulfilled", async () => {
    const c = await openCheckout("terms-race");
    const choices = [
      { discountCode: c.codeText, bump: true },
      { discountCode: null, bump: false },
      { discountCode: c.codeText, bump: false },
      { discountCode: null, bump: true },
      { discountCode: c.codeText, bump: true },
      { discountCode: null, bump: true },
    ];
    const answers = await Promise.all(
      choices.map((choice) => terms(c.browser, { paymentIntent: c.paymentIntent, ...choice })),
    );
    // Each answers 200 or a clean 409 (changed at the same time); none a 5xx.
    for (const a of answers) expect([200, 409]).toContain(a.status);
    const now = await rowsOf(c.paymentIntent);
    expect(now.bumps.length).toBeLessThanOrEqual(1);
    expect(now.main.amount_cents + now.main.discount_cents).toBe(2000);
    expect(await intentAmount(c.paymentIntent)).toBe(now.total);
    // One hold, exactly when the row names the code.
    expect(now.holds).toBe(now.main.discount_cents ? 1 : 0);

    const paid = await confirmAsStripeJs(c.clientSecret);
    expect(paid.body).toMatchObject({ status: "succeeded", amount_received: now.total });
    expect((await deliver(await eventFor("payment_intent.succeeded", c.paymentIntent))).status).toBe(200);
    expect((await rowsOf(c.paymentIntent)).main.status).toBe("paid");
  });
});

/** The purchase dependencies of the app, with Stripe's `charges.retrieve` running `meanwhile` first. */
function depsWithPause(meanwhile: () => Promise<unknown>) {
  const deps = purchaseDepsOf(env as unknown as Bindings);
  const real = deps.stripe;
  const stripe = new Proxy(real, {
    get: (target, key) =>
      key === "charges"
        ? {
            retrieve: async (...args: Parameters<Stripe["charges"]["retrieve"]>) => {
              await meanwhile();
              return target.charges.retrieve(...args);
            },
          }
        : Reflect.get(target, key),
  });
  return { ...deps, stripe };
}

const ledgerOf = (ids: string[]) =>
  rows<{ purchase_id: string; amount_cents: number }>(
    `select purchase_id, amount_cents from ledger_entries where purchase_id in (${ids.map(() => "?").join()})`,
    ...ids,
  );

describe("fulfilment and a change of terms at the same moment", () => {
  it("a change landing while fulfilment waits writes nothing from the stale copy; the webhook pays what Stripe charged", async () => {
    const c = await openCheckout("fulfil-race");
    const paid = await confirmAsStripeJs(c.clientSecret);
    expect(paid.body).toMatchObject({ status: "succeeded", amount_received: 2000 });
    const before = await rowsOf(c.paymentIntent);
    const code = (await row<{ id: string }>("select id from discount_codes where code = ?", c.codeText))!;
    // A change of terms started before the payment (its check saw it open) writes its rows now:
    // the code applied and the add-on added, as its batch does.
    const deps = depsWithPause(() =>
      env.DB.batch([
        env.DB.prepare(
          "update purchases set amount_cents = 1650, discount_code_id = ?, discount_cents = 350 where id = ?",
        ).bind(code.id, before.main.id),
        env.DB.prepare(
          `insert into purchases (id, content_id, creator_id, amount_cents, currency, status, bump_of, created_at)
           select 'fr_addon', bump_content_id, user_id, 500, 'usd', 'pending', ?, 0 from content where id = ?`,
        ).bind(before.main.id, c.main),
      ]),
    );
    const intent = await deps.stripe.paymentIntents.retrieve(c.paymentIntent);
    expect(await fulfil(deps, intent)).toBe("mismatch");
    const mid = await rowsOf(c.paymentIntent);
    expect([mid.main.status, ...mid.bumps.map((b) => b.status)]).toEqual(["pending", "pending"]);
    expect(await ledgerOf([mid.main.id, "fr_addon"])).toEqual([]);

    // Stripe's word wins: the rows go back to the terms the PaymentIntent charged (no code, no add-on), then paid.
    expect((await deliver(await eventFor("payment_intent.succeeded", c.paymentIntent))).status).toBe(200);
    const after = await rowsOf(c.paymentIntent);
    expect(after).toMatchObject({
      main: { status: "paid", amount_cents: 2000, discount_code_id: null },
      bumps: [],
      holds: 0,
    });
    const ledger = await ledgerOf([after.main.id, "fr_addon"]);
    expect(ledger.filter((r) => r.purchase_id === "fr_addon")).toEqual([]);
    expect(
      ledger
        .filter((r) => r.purchase_id === after.main.id && r.amount_cents > 0)
        .reduce((a, r) => a + r.amount_cents, 0),
    ).toBe(2000);
  });

  it("rows left apart from a paid PaymentIntent are written back to the parts it charged, whatever today's prices and limits say", async () => {
    const c = await openCheckout("fulfil-repair");
    expect(
      (await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: c.codeText, bump: true })).status,
    ).toBe(200);
    await confirmAsStripeJs(c.clientSecret);
    const { main } = await rowsOf(c.paymentIntent);
    const codeId = main.discount_code_id!;
    // A change that gave up left the rows at other terms (no code, no add-on) than Stripe charged…
    await env.DB.batch([
      env.DB.prepare(
        "update purchases set amount_cents = 2000, discount_code_id = null, discount_cents = 0 where id = ?",
      ).bind(main.id),
      env.DB.prepare("delete from discount_redemptions where purchase_id = ?").bind(main.id),
      env.DB.prepare("delete from purchases where bump_of = ?").bind(main.id),
      // …and since then the code was used up and the add-on repriced: the buyer still gets what they paid for.
      env.DB.prepare("update discount_codes set max_uses = 0 where id = ?").bind(codeId),
      env.DB.prepare("update content set bump_price_cents = 900 where id = ?").bind(c.main),
    ]);
    const event = await eventFor("payment_intent.succeeded", c.paymentIntent);
    expect((await deliver(event)).status).toBe(200);
    const after = await rowsOf(c.paymentIntent);
    expect([after.main.status, ...after.bumps.map((b) => b.status)]).toEqual(["paid", "paid"]);
    expect([after.main.amount_cents, after.main.discount_cents, after.bumps[0].amount_cents]).toEqual([1650, 350, 500]);
    expect(after.total).toBe(2150);
    expect(after.holds).toBe(1);
  });

  it("a payment whose rows cannot be matched yet is not acknowledged: Stripe's redelivery fulfils it", async () => {
    const c = await openCheckout("fulfil-retry");
    expect(
      (await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: c.codeText, bump: true })).status,
    ).toBe(200);
    await confirmAsStripeJs(c.clientSecret);
    // A PaymentIntent whose metadata names its terms but not the cents of each part (one made before
    // the parts were written): the rows cannot be rebuilt from it.
    for (const key of ["mainCents", "discountCents", "discountCodeId", "bumpCents"])
      await standin("POST", `/v1/payment_intents/${c.paymentIntent}`, { [`metadata[${key}]`]: "" });
    const { main } = await rowsOf(c.paymentIntent);
    // The same terms as the PaymentIntent's, another amount (a change's rows and its Stripe update apart).
    await env.DB.prepare("update purchases set amount_cents = amount_cents + 100 where id = ?").bind(main.id).run();
    const event = await eventFor("payment_intent.succeeded", c.paymentIntent);
    expect((await deliver(event)).status).toBe(500);
    expect(await row("select processed_at from webhook_events where id = ?", event.id)).toEqual({ processed_at: null });
    expect((await rowsOf(c.paymentIntent)).main.status).toBe("pending");

    await env.DB.prepare("update purchases set amount_cents = amount_cents - 100 where id = ?").bind(main.id).run();
    expect((await deliver(event)).status).toBe(200);
    const after = await rowsOf(c.paymentIntent);
    expect([after.main.status, ...after.bumps.map((b) => b.status)]).toEqual(["paid", "paid"]);
    expect(after.total).toBe(2150);
  });
});

describe("a checkout holds one use of its code", () => {
  it("the same code applied at once, then another code: one hold, on the code the row names, and no 5xx", async () => {
    const c = await openCheckout("one-hold");
    const other = await postJson("/api/discounts", { code: "OTHERHOLD", kind: "fixed", amountOff: "1" }, c.cookie);
    expect(other.status).toBe(201);
    const same = await Promise.all(
      [0, 1, 2, 3].map(() =>
        terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: c.codeText, bump: false }),
      ),
    );
    expect(same.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const held = await rowsOf(c.paymentIntent);
    expect(held).toMatchObject({ total: 1650, holds: 1, main: { discount_cents: 350 } });
    expect(held.holdCodes).toEqual([held.main.discount_code_id]);
    expect(await intentAmount(c.paymentIntent)).toBe(1650);

    const switched = await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: "otherhold", bump: false });
    expect(switched.status).toBe(200);
    const now = await rowsOf(c.paymentIntent);
    expect(now).toMatchObject({ total: 1900, holds: 1, main: { discount_cents: 100 } });
    expect(now.holdCodes).toEqual([now.main.discount_code_id]);
    expect(await intentAmount(c.paymentIntent)).toBe(1900);
  });
});

describe("Stripe refuses the new amount after the rows were written", () => {
  it("the rows, the add-on and the hold go back to what Stripe kept, and the webhook fulfils that amount", async () => {
    const c = await openCheckout("terms-refused");
    expect(
      (await terms(c.browser, { paymentIntent: c.paymentIntent, discountCode: c.codeText, bump: false })).status,
    ).toBe(200);
    const before = await rowsOf(c.paymentIntent);
    expect(before).toMatchObject({ total: 1650, holds: 1 });
    // The buyer pays from another tab between the change's check and its Stripe update.
    const deps = purchaseDepsOf(env as unknown as Bindings);
    const real = deps.stripe;
    const paymentIntents = new Proxy(real.paymentIntents, {
      get: (target, key) =>
        key === "update"
          ? async (...args: Parameters<Stripe["paymentIntents"]["update"]>) => {
              expect((await confirmAsStripeJs(c.clientSecret)).body.status).toBe("succeeded");
              return target.update(...args);
            }
          : Reflect.get(target, key),
    });
    const stripe = new Proxy(real, {
      get: (target, key) => (key === "paymentIntents" ? paymentIntents : Reflect.get(target, key)),
    });
    const refused = await changeCheckoutTerms(
      { ...deps, stripe },
      {
        paymentIntentId: c.paymentIntent,
        buyerKey: c.browser.slice("aw_buyer=".length),
        discountCode: null,
        bump: true,
      },
    ).catch((err: Error & { status?: number }) => err);
    expect(refused).toMatchObject({ status: 409, message: CHECKOUT_TERMS_MESSAGES.closed });
    const after = await rowsOf(c.paymentIntent);
    expect(after).toMatchObject({ total: 1650, bumps: [], holds: 1, main: { status: "pending", discount_cents: 350 } });
    expect(after.holdCodes).toEqual([after.main.discount_code_id]);
    expect(await intentAmount(c.paymentIntent)).toBe(1650);

    expect((await deliver(await eventFor("payment_intent.succeeded", c.paymentIntent))).status).toBe(200);
    const paid = await rowsOf(c.paymentIntent);
    expect(paid.main).toMatchObject({ status: "paid", amount_cents: 1650 });
    expect(
      (await ledgerOf([paid.main.id])).filter((r) => r.amount_cents > 0).reduce((a, r) => a + r.amount_cents, 0),
    ).toBe(1650);
  });
});
