// A buyer's one-click offers after paying: accept, decline, a tip, the bank's check, a card gone,
// test mode, and the order with an order bump. Behaviour: docs/funnels.md.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  call,
  CARDS,
  checkout,
  confirmAsStripeJs,
  cookieValue,
  deliver,
  eventFor,
  postJson,
  row,
  rows,
  standin,
} from "../support/helpers";
import {
  type Offer,
  type Accept,
  json,
  item,
  stepsOf,
  funnelSetup,
  buy,
  offer,
  accept,
  upsellIntents,
  charges,
} from "./funnel-helpers";

describe("one click after paying", () => {
  it("a double click charges once; the upsell is its own purchase with ledger, access and receipt; figures count it", async () => {
    const { cookie, mainId, upsell, downsell, funnelId, upsellId } = await funnelSetup("oneclick@example.com");
    const { buyerCookie, purchaseId } = await buy(mainId);
    const first = await (await offer(purchaseId, buyerCookie)).json<{ offer: Offer }>();
    expect(first.offer).toMatchObject({
      stepId: upsell.id,
      stepType: "upsell",
      title: "Add the workbook",
      price: 15,
      ctaText: "Add this to my order",
      card: { last4: "4242" },
    });

    const answers = await Promise.all([
      accept(purchaseId, upsell.id, buyerCookie),
      accept(purchaseId, upsell.id, buyerCookie),
      accept(purchaseId, upsell.id, buyerCookie),
    ]);
    const results = await Promise.all(answers.map((r) => r.json<Accept>()));
    expect(results.map((r) => r.status)).toEqual(["paid", "paid", "paid"]);
    expect(new Set(results.map((r) => r.purchaseId)).size).toBe(1);
    // The downsell follows only a declined upsell: after an accept, the funnel is done.
    expect(results[0].next).toBeNull();
    expect(await charges(purchaseId)).toHaveLength(1);
    expect(await upsellIntents(purchaseId)).toHaveLength(1);

    const child = await row<{
      id: string;
      status: string;
      amount_cents: number;
      parent_purchase_id: string;
      funnel_step_id: string;
      content_id: string;
      buyer_email: string;
    }>("select * from purchases where id = ?", results[0].purchaseId);
    expect(child).toMatchObject({
      status: "paid",
      amount_cents: 1500,
      parent_purchase_id: purchaseId,
      funnel_step_id: upsell.id,
      content_id: upsellId,
      buyer_email: "fan@example.com",
    });
    const ledger = await rows<{ account: string; amount_cents: number }>(
      "select account, amount_cents from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee') order by id",
      child!.id,
    );
    expect(ledger.map((l) => [l.account, l.amount_cents])).toEqual([
      ["creator", 1200],
      ["platform", 300],
    ]);
    // The order lists the upsell with its own access; the receipt went out.
    const order = await (await call(`/api/upsell/order?purchaseId=${purchaseId}`, { cookie: buyerCookie })).json<{
      items: { content: { id: string; linkUrl: string }; accessUrl: string }[];
    }>();
    expect(order.items.map((i) => i.content.id)).toEqual([upsellId]);
    expect(order.items[0].content.linkUrl).toBe("https://example.com/Workbook");
    const access = new URL(order.items[0].accessUrl).searchParams.get("access")!;
    expect((await call(`/api/purchase/verify?access=${encodeURIComponent(access)}`)).status).toBe(200);
    const { waitForMail } = await import("../support/helpers");
    const mail = await waitForMail("fan@example.com");
    expect(mail.subject + mail.text).toContain("Workbook");

    // A second accept later, or accepting the downsell now, changes nothing.
    expect((await (await accept(purchaseId, upsell.id, buyerCookie)).json<Accept>()).status).toBe("paid");
    expect((await accept(purchaseId, downsell.id, buyerCookie)).status).toBe(409);
    expect(await charges(purchaseId)).toHaveLength(1);

    const steps = await stepsOf(cookie, funnelId);
    expect(steps[0].figures).toEqual({ shown: 1, accepted: 1, declined: 0, revenue: 15, net: 12 });
    expect(steps[1].figures).toEqual({ shown: 0, accepted: 0, declined: 0, revenue: 0, net: 0 });
  });

  it("declining the upsell shows the downsell; declining that ends the funnel with nothing charged", async () => {
    const { cookie, mainId, upsell, downsell, funnelId } = await funnelSetup("decline@example.com");
    const { buyerCookie, purchaseId } = await buy(mainId);
    await offer(purchaseId, buyerCookie);
    const afterNo = await (await postJson("/api/upsell/decline", { purchaseId, stepId: upsell.id }, buyerCookie)).json<{
      next: Offer;
    }>();
    expect(afterNo.next).toMatchObject({ stepId: downsell.id, stepType: "downsell", price: 5 });
    // The declined upsell cannot be accepted afterwards.
    expect((await accept(purchaseId, upsell.id, buyerCookie)).status).toBe(409);
    const accepted = await (await accept(purchaseId, downsell.id, buyerCookie)).json<Accept>();
    expect(accepted).toMatchObject({ status: "paid", next: null });
    const steps = await stepsOf(cookie, funnelId);
    expect(steps.map((s) => s.figures)).toEqual([
      { shown: 1, accepted: 0, declined: 1, revenue: 0, net: 0 },
      { shown: 1, accepted: 1, declined: 0, revenue: 5, net: 4 },
    ]);
    // The item's own funnel (dashboard row) gains its upsell step: two offers shown, one paid; the
    // one-click charge is not a checkout started.
    const statsRes = await call(`/api/analytics/stats?days=7&contentId=${mainId}`, { cookie });
    const stats = await statsRes.json<{
      items: { contentId: string; checkouts: number; sales: number; offers: number; upsells: number }[];
    }>();
    expect(stats.items.find((i) => i.contentId === mainId)).toMatchObject({
      checkouts: 1,
      sales: 1,
      offers: 2,
      upsells: 1,
    });
    const { buyerCookie: b2, purchaseId: p2 } = await buy(mainId);
    await offer(p2, b2);
    await postJson("/api/upsell/decline", { purchaseId: p2, stepId: upsell.id }, b2);
    expect(await (await postJson("/api/upsell/decline", { purchaseId: p2, stepId: downsell.id }, b2)).json()).toEqual({
      next: null,
    });
    expect(await charges(p2)).toHaveLength(0);
    expect(await (await offer(p2, b2)).json()).toMatchObject({ offer: null });
  });

  it("a crash after claiming the offer, and the upsell's own webhook delivered twice late, still charge and book once", async () => {
    const { mainId, upsell } = await funnelSetup("crash@example.com");
    const { buyerCookie, purchaseId } = await buy(mainId);
    await offer(purchaseId, buyerCookie);
    // The claim was written, then the Worker died before asking Stripe for anything.
    await env.DB.prepare(
      "update funnel_offers set status = 'accepting', purchase_id = 'crashedClaim0001', amount_cents = 1500 where parent_purchase_id = ? and step_id = ?",
    )
      .bind(purchaseId, upsell.id)
      .run();
    const retried = await (await accept(purchaseId, upsell.id, buyerCookie)).json<Accept>();
    expect(retried).toMatchObject({ status: "paid", purchaseId: "crashedClaim0001" });
    const pi = (await row<{ payment_intent_id: string }>(
      "select payment_intent_id from purchases where id = 'crashedClaim0001'",
    ))!.payment_intent_id;
    const event = await eventFor("payment_intent.succeeded", pi);
    expect((await deliver(event)).status).toBe(200);
    expect((await deliver(event)).status).toBe(200);
    expect(await charges(purchaseId)).toHaveLength(1);
    expect(
      (
        await rows<{ amount_cents: number }>(
          "select amount_cents from ledger_entries where purchase_id = 'crashedClaim0001' and kind not in ('stripe_fee', 'dispute_fee') order by id",
        )
      ).map((l) => l.amount_cents),
    ).toEqual([1200, 300]);
  });

  it("a tip step charges at or above its minimum, the amount decided by the server", async () => {
    const { mainId, upsell } = await funnelSetup("tip@example.com", { tip: true });
    const { buyerCookie, purchaseId } = await buy(mainId);
    const o = await (await offer(purchaseId, buyerCookie)).json<{
      offer: { pricingModel: string; minimumPrice: number };
    }>();
    expect(o.offer).toMatchObject({ pricingModel: "pay_what_you_want", minimumPrice: 2 });
    const low = await accept(purchaseId, upsell.id, buyerCookie, { amount: 1.99 });
    expect(low.status).toBe(400);
    expect((await low.json<{ message: string }>()).message).toContain("Minimum amount is $2.00");
    const ok = await (await accept(purchaseId, upsell.id, buyerCookie, { amount: 7.5 })).json<Accept>();
    expect(ok.status).toBe("paid");
    expect(
      (await row<{ amount_cents: number }>("select amount_cents from purchases where id = ?", ok.purchaseId))
        ?.amount_cents,
    ).toBe(750);
  });

  it("when the bank asks for authentication, the buyer confirms on-session and the purchase is fulfilled", async () => {
    const { mainId, upsell } = await funnelSetup("threeds@example.com");
    // 3184, not 3155: a 3155 card authenticated at checkout is set up, and Stripe charges it off-session without asking again.
    const paid = await checkout(mainId, { card: CARDS.alwaysAuthenticate, email: "fan3ds@example.com" });
    expect(paid.confirmed?.body.status).toBe("requires_action");
    await standin(
      "POST",
      `/_standin/payment_intents/${paid.paymentIntent}/authenticate`,
      { client_secret: paid.clientSecret },
      "pk_test_worker",
    );
    const purchaseId = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ?",
      paid.paymentIntent,
    ))!.id;
    await offer(purchaseId, paid.buyerCookie);
    const res = await (await accept(purchaseId, upsell.id, paid.buyerCookie)).json<Accept>();
    expect(res).toMatchObject({
      status: "requires_action",
      clientSecret: expect.stringContaining("_secret_"),
      paymentMethod: expect.stringMatching(/^pm_/),
    });
    expect(await charges(purchaseId)).toHaveLength(0);
    // A second click while waiting asks again; it charges nothing.
    expect((await (await accept(purchaseId, upsell.id, paid.buyerCookie)).json<Accept>()).status).toBe(
      "requires_action",
    );
    // In the page: Stripe.js confirms with the saved card, the bank's screen completes it.
    const pi = res.clientSecret!.split("_secret_")[0];
    const onSession = await standin<{ status: string }>(
      "POST",
      `/v1/payment_intents/${pi}/confirm`,
      { client_secret: res.clientSecret!, payment_method: res.paymentMethod! },
      "pk_test_worker",
    );
    expect(onSession.body.status).toBe("requires_action");
    await standin(
      "POST",
      `/_standin/payment_intents/${pi}/authenticate`,
      { client_secret: res.clientSecret! },
      "pk_test_worker",
    );
    const done = await (
      await postJson("/api/upsell/complete", { purchaseId, stepId: upsell.id }, paid.buyerCookie)
    ).json<Accept>();
    expect(done).toMatchObject({ status: "paid", next: null });
    expect(await charges(purchaseId)).toHaveLength(1);
    expect((await row<{ status: string }>("select status from purchases where id = ?", done.purchaseId))?.status).toBe(
      "paid",
    );
  });

  it("a cardholder who fails the bank's check is told so; the charge is voided and skipping moves on", async () => {
    const { mainId, upsell, downsell } = await funnelSetup("authfail@example.com");
    const paid = await checkout(mainId, { card: CARDS.alwaysAuthenticate, email: "fanfail@example.com" });
    await standin(
      "POST",
      `/_standin/payment_intents/${paid.paymentIntent}/authenticate`,
      { client_secret: paid.clientSecret },
      "pk_test_worker",
    );
    const purchaseId = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ?",
      paid.paymentIntent,
    ))!.id;
    await offer(purchaseId, paid.buyerCookie);
    const res = await (await accept(purchaseId, upsell.id, paid.buyerCookie)).json<Accept>();
    const pi = res.clientSecret!.split("_secret_")[0];
    await standin(
      "POST",
      `/v1/payment_intents/${pi}/confirm`,
      { client_secret: res.clientSecret!, payment_method: res.paymentMethod! },
      "pk_test_worker",
    );
    await standin(
      "POST",
      `/_standin/payment_intents/${pi}/authenticate`,
      { client_secret: res.clientSecret!, outcome: "fail" },
      "pk_test_worker",
    );
    const done = await (
      await postJson("/api/upsell/complete", { purchaseId, stepId: upsell.id }, paid.buyerCookie)
    ).json<Accept>();
    expect(done).toMatchObject({ status: "declined", message: expect.stringContaining("unable to authenticate") });
    // Voided: the page's client secret can no longer complete it.
    expect((await standin<{ status: string }>("GET", `/v1/payment_intents/${pi}`)).body.status).toBe("canceled");
    expect((await row<{ status: string }>("select status from purchases where id = ?", done.purchaseId))?.status).toBe(
      "failed",
    );
    expect((await accept(purchaseId, upsell.id, paid.buyerCookie)).status).toBe(200);
    const skipped = await (
      await postJson("/api/upsell/decline", { purchaseId, stepId: upsell.id }, paid.buyerCookie)
    ).json<{ next: Offer }>();
    expect(skipped.next?.stepId).toBe(downsell.id);
    expect(await charges(purchaseId)).toHaveLength(0);
  });

  it("a card that can no longer be charged says so; skipping moves on and leaves nothing charged or booked", async () => {
    const { mainId, upsell } = await funnelSetup("declined@example.com");
    const { buyerCookie, purchaseId, paymentIntent } = await buy(mainId);
    const o = await (await offer(purchaseId, buyerCookie)).json<{ offer: Offer }>();
    expect(o.offer?.card?.last4).toBe("4242");
    // The card that paid is removed from the Customer after the offer was shown.
    const pm = (await standin<{ payment_method: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
      .payment_method;
    expect((await standin("POST", `/v1/payment_methods/${pm}/detach`)).status).toBe(200);
    const res = await (await accept(purchaseId, upsell.id, buyerCookie)).json<Accept>();
    expect(res).toMatchObject({ status: "declined", message: "The card you paid with can no longer be charged." });
    expect((await (await accept(purchaseId, upsell.id, buyerCookie)).json<Accept>()).status).toBe("declined");
    const skipped = await (await postJson("/api/upsell/decline", { purchaseId, stepId: upsell.id }, buyerCookie)).json<{
      next: Offer;
    }>();
    // The downsell needs the same card, which is gone: the funnel ends.
    expect(skipped.next).toBeNull();
    // Nothing was asked of Stripe: no PaymentIntent, no purchase, no ledger row.
    expect(await upsellIntents(purchaseId)).toHaveLength(0);
    expect(await rows("select * from purchases where parent_purchase_id = ?", purchaseId)).toEqual([]);
    expect(
      await rows(
        "select * from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee')",
        res.purchaseId,
      ),
    ).toEqual([]);
    expect(await charges(purchaseId)).toHaveLength(0);
  });

  it("a funnel in test mode shows nothing to buyers and never charges; the owner's preview shows its steps", async () => {
    const { cookie, mainId, upsell, funnelId } = await funnelSetup("testmode@example.com");
    const { buyerCookie, purchaseId } = await buy(mainId);
    await json("PATCH", `/api/funnels/${funnelId}`, { testMode: true }, cookie);
    expect(await (await offer(purchaseId, buyerCookie)).json()).toMatchObject({ offer: null });
    expect((await accept(purchaseId, upsell.id, buyerCookie)).status).toBe(409);
    expect(await upsellIntents(purchaseId)).toHaveLength(0);
    const preview = await (await call(`/api/funnels/${funnelId}/preview`, { cookie })).json<Offer[]>();
    expect(preview.map((p) => p?.title)).toEqual(["Add the workbook", "Just the cheat sheet"]);
  });
});

describe("the upsell page's order with an order bump", () => {
  it("the 'Paid' amount and the order total include the add-on the buyer ticked at checkout, which is listed with its access", async () => {
    const { cookie, mainId, upsell } = await funnelSetup("bumpfunnel@example.com");
    const addOn = await item(cookie, "Audio notes");
    expect((await json("PUT", `/api/content/${mainId}/bump`, { contentId: addOn, price: "4" }, cookie)).status).toBe(
      200,
    );
    const res = await postJson("/api/create-payment-intent", {
      contentId: mainId,
      bump: true,
      buyerEmail: "bumpfan@example.com",
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const { clientSecret, amount } = await res.json<{ clientSecret: string; amount: number }>();
    expect(amount).toBe(14);
    const buyerCookie = `aw_buyer=${cookieValue(res, "aw_buyer")}`;
    const paymentIntent = clientSecret.split("_secret_")[0];
    expect((await confirmAsStripeJs(clientSecret, CARDS.ok, { receipt_email: "bumpfan@example.com" })).status).toBe(
      200,
    );
    expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
    const purchaseId = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ? and bump_of is null",
      paymentIntent,
    ))!.id;

    const o = await offer(purchaseId, buyerCookie);
    expect(o.status).toBe(200);
    const { order } = await o.json<{
      order: {
        paid: number;
        first: { title: string; amount: number };
        bumps: { title: string; amount: number; accessUrl: string }[];
        added: unknown[];
        total: number;
      };
    }>();
    expect(order).toMatchObject({
      paid: 14,
      first: { title: "Main course", amount: 10 },
      bumps: [{ title: "Audio notes", amount: 4 }],
      added: [],
      total: 14,
    });
    expect(order.bumps[0].accessUrl).toMatch(/^https?:\/\//);

    const accepted = await (await accept(purchaseId, upsell.id, buyerCookie)).json<
      Accept & { order: { paid: number; total: number } }
    >();
    expect(accepted).toMatchObject({ status: "paid", order: { paid: 14, total: 29 } });
  });
});
