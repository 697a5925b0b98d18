// Checkout as Stripe really behaves: the PaymentIntent names the payment methods the page offers
// (card, and Link's wallet), a Link payment is a `link` PaymentMethod, and a payment that settles
// later (`processing`) is paid-pending: not abandoned, not bought twice, fulfilled or released by
// Stripe's events.
import { describe, expect, it } from "vitest";
import { PAYWALL_TEXT } from "../../../shared/paywall";
import { handleEmailBatch } from "../../queue/emails";
import type { EmailJob } from "../../services/mail/templates";
import {
  advanceDone,
  call,
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

async function creatorWithItem(email: string) {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Field Recordings", price: "12", accessType: "link", linkUrl: "https://example.com/rec" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

/** 'Unlock' as a browser: the checkout's PaymentIntent and that browser's cookie. */
async function unlock(contentId: string, buyerCookie?: string, buyerEmail?: string) {
  const res = await postJson(
    "/api/create-payment-intent",
    { contentId, ...(buyerEmail ? { buyerEmail } : {}) },
    buyerCookie,
  );
  if (res.status !== 200) return { res, paymentIntent: "", clientSecret: "", buyerCookie: buyerCookie ?? "" };
  const { clientSecret } = await res.clone().json<{ clientSecret: string }>();
  return {
    res,
    clientSecret,
    paymentIntent: clientSecret.split("_secret_")[0],
    buyerCookie: buyerCookie ?? `aw_buyer=${cookieValue(res, "aw_buyer")}`,
  };
}

/** Pays with the wallet as Stripe.js's Express Checkout Element does: a Link PaymentMethod. */
const payWithLink = (clientSecret: string, email: string) =>
  standin<{ status: string; latest_charge: string; error?: { code: string } }>(
    "POST",
    `/v1/payment_intents/${clientSecret.split("_secret_")[0]}/confirm`,
    {
      client_secret: clientSecret,
      "payment_method_data[type]": "link",
      "payment_method_data[billing_details][email]": email,
      receipt_email: email,
    },
    "pk_test_worker",
  );

const purchaseOf = (pi: string) =>
  row<{ id: string; status: string }>("select id, status from purchases where payment_intent_id = ?", pi);
const access = async (contentId: string, buyerCookie: string) =>
  (await call(`/api/content/${contentId}/access`, { cookie: buyerCookie })).json<{ owned: boolean; status?: string }>();

describe("checkout names the payment methods it offers", () => {
  it("card and Link, not whatever the Dashboard has on; the wallet pays with a Link PaymentMethod and the item unlocks", async () => {
    const item = await creatorWithItem("methods@example.com");
    const checkout = await unlock(item);
    const { body: intent } = await standin<{ payment_method_types: string[]; automatic_payment_methods: unknown }>(
      "GET",
      `/v1/payment_intents/${checkout.paymentIntent}`,
    );
    expect(intent.payment_method_types).toEqual(["card", "link"]);
    expect(intent.automatic_payment_methods).toBeNull();

    const paid = await payWithLink(checkout.clientSecret, "wallet-buyer@example.com");
    expect(paid.status).toBe(200);
    expect(paid.body.status).toBe("succeeded");
    const { body: charge } = await standin<{ payment_method_details: { type: string }; payment_method: string }>(
      "GET",
      `/v1/charges/${paid.body.latest_charge}`,
    );
    expect(charge.payment_method_details.type).toBe("link");
    expect((await standin<{ type: string }>("GET", `/v1/payment_methods/${charge.payment_method}`)).body.type).toBe(
      "link",
    );

    const done = await call(`/api/payments/${checkout.paymentIntent}/complete`, {
      method: "POST",
      cookie: checkout.buyerCookie,
    });
    expect(await done.json()).toMatchObject({ status: "paid", unlocked: true });
  });
});

describe("a payment that is processing is paid-pending", () => {
  it("the same browser cannot buy the item again while it processes; succeeded fulfils it", async () => {
    const item = await creatorWithItem("processing@example.com");
    const checkout = await unlock(item);
    const paying = await payWithLink(checkout.clientSecret, "slow+bank@example.com");
    expect(paying.body.status).toBe("processing");
    expect((await deliver(await eventFor("payment_intent.processing", checkout.paymentIntent))).status).toBe(200);

    const before = (await rows("select id from purchases where content_id = ?", item)).length;
    const again = await unlock(item, checkout.buyerCookie);
    expect(again.res.status).toBe(409);
    expect((await again.res.json<{ message: string }>()).message).toBe(PAYWALL_TEXT.processing);
    expect((await rows("select id from purchases where content_id = ?", item)).length).toBe(before);
    // Not owned yet, and the paywall says it is on its way.
    expect(await access(item, checkout.buyerCookie)).toMatchObject({ owned: false, status: "processing" });

    expect(
      (await standin("POST", `/_standin/payment_intents/${checkout.paymentIntent}/settle`, { outcome: "succeeded" }))
        .status,
    ).toBe(200);
    expect((await deliver(await eventFor("payment_intent.succeeded", checkout.paymentIntent))).status).toBe(200);
    expect((await purchaseOf(checkout.paymentIntent))?.status).toBe("paid");
    expect(await access(item, checkout.buyerCookie)).toMatchObject({ owned: true });
  });

  it("a failed payment releases it: the browser can buy again", async () => {
    const item = await creatorWithItem("processing-fails@example.com");
    const checkout = await unlock(item);
    expect((await payWithLink(checkout.clientSecret, "broke+bank@example.com")).body.status).toBe("processing");
    await deliver(await eventFor("payment_intent.processing", checkout.paymentIntent));
    expect((await unlock(item, checkout.buyerCookie)).res.status).toBe(409);

    await standin("POST", `/_standin/payment_intents/${checkout.paymentIntent}/settle`, { outcome: "failed" });
    expect((await deliver(await eventFor("payment_intent.payment_failed", checkout.paymentIntent))).status).toBe(200);
    expect((await purchaseOf(checkout.paymentIntent))?.status).toBe("pending");
    expect(await access(item, checkout.buyerCookie)).toMatchObject({ owned: false });
    const retry = await unlock(item, checkout.buyerCookie);
    expect(retry.res.status).toBe(200);
    expect(retry.paymentIntent).not.toBe(checkout.paymentIntent);
  });

  it("a checkout whose payment is processing gets no 'you left it at checkout' reminder", async () => {
    const item = await creatorWithItem("processing-reminder@example.com");
    const buyer = "patient+bank@example.com";
    const checkout = await unlock(item, undefined, buyer);
    await payWithLink(checkout.clientSecret, buyer);
    await deliver(await eventFor("payment_intent.processing", checkout.paymentIntent));
    const [due] = await rows<{ job: string }>(
      "select job from outbox_emails where id like 'checkout-reminder:%' and json_extract(job, '$.to') = ?",
      buyer,
    );
    const job = { ...(JSON.parse(due.job) as EmailJob), sendAt: Date.now() };
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
    expect((await outbox()).filter((m) => m.to === buyer)).toEqual([]);
  });
});

describe("test clocks, as Stripe's", () => {
  it("an advance answers `advancing` with its target, and the clock is `ready` at the target once the time in between has run", async () => {
    const start = Math.floor(Date.now() / 1000);
    const { body: clock } = await standin<{ id: string; status: string }>("POST", "/v1/test_helpers/test_clocks", {
      frozen_time: String(start),
    });
    expect(clock.status).toBe("ready");
    const target = start + 40 * 86400;
    const advanced = await standin<{
      status: string;
      frozen_time: number;
      status_details: { advancing?: { target_frozen_time: number } };
    }>("POST", `/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozen_time: String(target) });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({
      status: "advancing",
      status_details: { advancing: { target_frozen_time: target } },
    });
    // A second advance while it moves is refused, as Stripe refuses it.
    expect(
      (await standin("POST", `/v1/test_helpers/test_clocks/${clock.id}/advance`, { frozen_time: String(target + 60) }))
        .status,
    ).toBe(400);
    const ready = await advanceDone(clock.id);
    expect(ready).toMatchObject({ status: "ready", frozen_time: target, status_details: {} });
    const { body: events } = await standin<{ data: { type: string; data: { object: { id: string } } }[] }>(
      "GET",
      "/v1/events",
      { limit: "100" },
    );
    expect(
      events.data
        .filter((e) => e.data.object.id === clock.id)
        .map((e) => e.type)
        .reverse(),
    ).toEqual([
      "test_helpers.test_clock.created",
      "test_helpers.test_clock.advancing",
      "test_helpers.test_clock.ready",
    ]);
  });
});

describe("one-click upsell after a Link payment", () => {
  it("is charged to the Link wallet that paid at checkout", async () => {
    const cookie = await signIn("link-funnel@example.com");
    const item = async (title: string) =>
      (
        await (
          await postForm(
            "/api/content",
            contentForm({ title, price: "10", accessType: "link", linkUrl: "https://example.com/x" }),
            cookie,
          )
        ).json<{ id: string }>()
      ).id;
    const mainId = await item("Main course");
    const upsellId = await item("Workbook");
    const funnel = await (await postJson("/api/funnels", { name: "Link funnel" }, cookie)).json<{ id: string }>();
    expect((await postJson(`/api/funnels/${funnel.id}/products`, { contentIds: [mainId] }, cookie)).status).toBe(200);
    const price = await (
      await postJson(
        "/api/stripe/create-upsell-product",
        { name: "Workbook", description: "Workbook offer", price: 15 },
        cookie,
      )
    ).json<{ priceId: string }>();
    const step = await (
      await postJson(
        `/api/funnels/${funnel.id}/steps`,
        { title: "Add the workbook", offerPriceId: price.priceId, stepType: "upsell", contentId: upsellId },
        cookie,
      )
    ).json<{ id: string }>();
    expect(
      (
        await call(`/api/funnels/${funnel.id}`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ testMode: false }),
          cookie,
        })
      ).status,
    ).toBe(200);

    const checkout = await unlock(mainId, undefined, "linked@example.com");
    expect((await payWithLink(checkout.clientSecret, "linked@example.com")).body.status).toBe("succeeded");
    await call(`/api/payments/${checkout.paymentIntent}/complete`, { method: "POST", cookie: checkout.buyerCookie });
    const purchase = await purchaseOf(checkout.paymentIntent);
    const shown = await (
      await call(`/api/upsell/offer?purchaseId=${purchase!.id}`, { cookie: checkout.buyerCookie })
    ).json<{ offer: { stepId: string } | null }>();
    expect(shown.offer?.stepId).toBe(step.id);
    const accepted = await postJson(
      "/api/upsell/accept",
      { purchaseId: purchase!.id, stepId: step.id },
      checkout.buyerCookie,
    );
    expect(await accepted.json()).toMatchObject({ status: "paid" });
  });
});
