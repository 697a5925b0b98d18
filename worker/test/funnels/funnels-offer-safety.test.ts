// Who an offer charges and when: only the buyer, only the card that paid, only once, only under
// the terms shown, within the offer's window. Behaviour: docs/funnels.md.
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { call, CARDS, checkout, cookieValue, postJson, row, rows, standin } from "../support/helpers";
import {
  type Offer,
  type Accept,
  json,
  item,
  priceId,
  funnelSetup,
  buy,
  offer,
  accept,
  upsellIntents,
  charges,
} from "./funnel-helpers";

describe("cards: only the buyer, only the card that paid, only once", () => {
  const decline = (purchaseId: string, stepId: string, cookie?: string) =>
    postJson("/api/upsell/decline", { purchaseId, stepId }, cookie);
  const complete = (purchaseId: string, stepId: string, cookie?: string) =>
    postJson("/api/upsell/complete", { purchaseId, stepId }, cookie);
  const offerRow = (purchaseId: string, stepId: string) =>
    row<{ status: string; purchase_id: string | null }>(
      "select status, purchase_id from funnel_offers where parent_purchase_id = ? and step_id = ?",
      purchaseId,
      stepId,
    );

  it("a stranger holding the access link cannot see, accept, decline or complete an offer, and sees no card", async () => {
    const { mainId, upsell } = await funnelSetup("stranger@example.com");
    const { purchaseId, buyerCookie } = await buy(mainId);
    const { accessTokenFor } = await import("../../services/purchases/access-tokens");
    const access = await accessTokenFor("worker-test-access-secret", purchaseId);
    const stranger = `aw_buyer=${cookieValue(await postJson("/api/create-payment-intent", { contentId: mainId }), "aw_buyer")}`;
    for (const cookie of [undefined, stranger]) {
      const answers = [
        await call(`/api/upsell/offer?access=${encodeURIComponent(access)}`, { cookie }),
        await call(`/api/upsell/offer?purchaseId=${purchaseId}&access=${encodeURIComponent(access)}`, { cookie }),
        await postJson("/api/upsell/accept", { access, stepId: upsell.id }, cookie),
        await postJson("/api/upsell/accept", { access, purchaseId, stepId: upsell.id, amount: 10000 }, cookie),
        await postJson("/api/upsell/decline", { access, purchaseId, stepId: upsell.id }, cookie),
        await postJson("/api/upsell/complete", { access, purchaseId, stepId: upsell.id }, cookie),
      ];
      for (const res of answers) {
        expect([403, 404]).toContain(res.status);
        expect(await res.text()).not.toContain("4242");
      }
    }
    expect(await charges(purchaseId)).toHaveLength(0);
    expect(await upsellIntents(purchaseId)).toHaveLength(0);
    // The browser that paid still sees the offer, with its card.
    expect(await (await offer(purchaseId, buyerCookie)).json()).toMatchObject({
      offer: { stepId: upsell.id, card: { last4: "4242" } },
    });
  });

  it("offers expire 30 minutes after the payment: a clear 410, and the order still shows", async () => {
    const { mainId, upsell } = await funnelSetup("window@example.com");
    const { purchaseId, buyerCookie } = await buy(mainId);
    expect((await offer(purchaseId, buyerCookie)).status).toBe(200);
    await env.DB.prepare("update purchases set paid_at = ? where id = ?")
      .bind(Date.now() - 31 * 60 * 1000, purchaseId)
      .run();
    for (const res of [
      await offer(purchaseId, buyerCookie),
      await accept(purchaseId, upsell.id, buyerCookie),
      await decline(purchaseId, upsell.id, buyerCookie),
      await complete(purchaseId, upsell.id, buyerCookie),
    ]) {
      expect(res.status).toBe(410);
      expect(await res.json()).toEqual({ message: "This offer has expired" });
    }
    expect(await charges(purchaseId)).toHaveLength(0);
    const order = await call(`/api/upsell/order?purchaseId=${purchaseId}`, { cookie: buyerCookie });
    expect(order.status).toBe(200);
    expect(await order.json()).toMatchObject({ items: [], order: { added: [], total: 10 } });
  });

  it("a declined offer cannot be charged afterwards, even when an accept had claimed it first", async () => {
    const { mainId, upsell, downsell } = await funnelSetup("claimdecline@example.com");
    const { purchaseId, buyerCookie } = await buy(mainId);
    await offer(purchaseId, buyerCookie);
    // An accept claimed the offer and stopped before asking Stripe for anything.
    await env.DB.prepare(
      "update funnel_offers set status = 'accepting', purchase_id = 'claimedThenNo01', amount_cents = 1500 where parent_purchase_id = ? and step_id = ?",
    )
      .bind(purchaseId, upsell.id)
      .run();
    const no = await decline(purchaseId, upsell.id, buyerCookie);
    expect(no.status).toBe(200);
    expect((await no.json<{ next: Offer }>()).next?.stepId).toBe(downsell.id);
    const again = await accept(purchaseId, upsell.id, buyerCookie);
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ message: "This offer was declined" });
    expect(await charges(purchaseId)).toHaveLength(0);
    expect(await upsellIntents(purchaseId)).toHaveLength(0);
    expect((await offerRow(purchaseId, upsell.id))?.status).toBe("declined");
  });

  it("declining while the bank waits for the cardholder voids the PaymentIntent; it cannot be accepted or completed afterwards", async () => {
    const { mainId, upsell } = await funnelSetup("voided@example.com");
    const paid = await checkout(mainId, { card: CARDS.alwaysAuthenticate, email: "fanvoid@example.com" });
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
    const waiting = await (await accept(purchaseId, upsell.id, paid.buyerCookie)).json<Accept>();
    expect(waiting.status).toBe("requires_action");
    expect((await decline(purchaseId, upsell.id, paid.buyerCookie)).status).toBe(200);
    const pi = waiting.clientSecret!.split("_secret_")[0];
    expect((await standin<{ status: string }>("GET", `/v1/payment_intents/${pi}`)).body.status).toBe("canceled");
    expect((await accept(purchaseId, upsell.id, paid.buyerCookie)).status).toBe(409);
    expect((await complete(purchaseId, upsell.id, paid.buyerCookie)).status).toBe(409);
    expect(await charges(purchaseId)).toHaveLength(0);
    expect((await offerRow(purchaseId, upsell.id))?.status).toBe("declined");
  });

  it("accept and decline at the same moment end in exactly one of the two, never both, never a 500", async () => {
    const { mainId, upsell } = await funnelSetup("race@example.com");
    for (let round = 0; round < 9; round++) {
      const { purchaseId, buyerCookie } = await buy(mainId);
      await offer(purchaseId, buyerCookie);
      // Sent together; or 'No thanks' arriving once the accept has claimed the offer; or once it has made its PaymentIntent.
      const accepting = accept(purchaseId, upsell.id, buyerCookie);
      if (round % 3 === 1)
        await vi.waitUntil(async () => (await offerRow(purchaseId, upsell.id))?.status !== "shown", {
          timeout: 5000,
          interval: 5,
        });
      if (round % 3 === 2)
        await vi.waitUntil(
          async () => (await rows("select id from purchases where parent_purchase_id = ?", purchaseId)).length > 0,
          { timeout: 5000, interval: 5 },
        );
      const [a, d] = await Promise.all([accepting, decline(purchaseId, upsell.id, buyerCookie)]);
      const accepted = a.status === 200 && (await a.clone().json<Accept>()).status === "paid";
      const declined = d.status === 200;
      expect([a.status, d.status]).not.toContain(500);
      expect(accepted !== declined).toBe(true);
      expect(accepted ? d.status : a.status).toBe(409);
      expect(await charges(purchaseId)).toHaveLength(accepted ? 1 : 0);
      expect((await offerRow(purchaseId, upsell.id))?.status).toBe(accepted ? "paid" : "declined");
    }
  });

  it("a tip step takes no more than the ceiling its creator set (5x its minimum unless set)", async () => {
    const { cookie, mainId, upsell, funnelId } = await funnelSetup("ceiling@example.com", { tip: true });
    const first = await buy(mainId);
    expect(await (await offer(first.purchaseId, first.buyerCookie)).json()).toMatchObject({
      offer: { minimumPrice: 2, maximumPrice: 10 },
    });
    const tooMuch = await accept(first.purchaseId, upsell.id, first.buyerCookie, { amount: 10.01 });
    expect(tooMuch.status).toBe(400);
    expect(await tooMuch.json()).toEqual({ message: "Maximum amount is $10.00" });
    expect(await upsellIntents(first.purchaseId)).toHaveLength(0);
    expect(
      (await (await accept(first.purchaseId, upsell.id, first.buyerCookie, { amount: 10 })).json<Accept>()).status,
    ).toBe("paid");

    const edited = await json("PATCH", `/api/funnels/${funnelId}/steps/${upsell.id}`, { maximumPrice: 25 }, cookie);
    expect(await edited.json()).toMatchObject({ maximumPrice: 25 });
    expect(
      (await json("PATCH", `/api/funnels/${funnelId}/steps/${upsell.id}`, { maximumPrice: 1 }, cookie)).status,
    ).toBe(400);
    const second = await buy(mainId);
    expect(await (await offer(second.purchaseId, second.buyerCookie)).json()).toMatchObject({
      offer: { maximumPrice: 25 },
    });
    expect((await accept(second.purchaseId, upsell.id, second.buyerCookie, { amount: 25.01 })).status).toBe(400);
    expect(
      (await (await accept(second.purchaseId, upsell.id, second.buyerCookie, { amount: 25 })).json<Accept>()).status,
    ).toBe("paid");
  });

  it("a fixed step's price raised after the buyer saw it: 409 and nothing charged; the reloaded offer shows the new price and accepting it charges that", async () => {
    const { cookie, mainId, upsell, funnelId } = await funnelSetup("pricechange@example.com");
    const { purchaseId, buyerCookie } = await buy(mainId);
    expect(await (await offer(purchaseId, buyerCookie)).json()).toMatchObject({
      offer: { stepId: upsell.id, price: 15 },
    });
    // Inside the window the creator puts the step at $500.
    const edited = await json(
      "PATCH",
      `/api/funnels/${funnelId}/steps/${upsell.id}`,
      { offerPriceId: await priceId(cookie, "Workbook deluxe", 500) },
      cookie,
    );
    expect(await edited.json()).toMatchObject({ price: 500 });
    const clicked = await accept(purchaseId, upsell.id, buyerCookie);
    expect(clicked.status).toBe(409);
    expect(await clicked.json()).toEqual({ message: "This offer has changed. Please review it again." });
    expect(await upsellIntents(purchaseId)).toHaveLength(0);
    expect(await charges(purchaseId)).toHaveLength(0);
    expect((await offerRow(purchaseId, upsell.id))?.status).toBe("shown");
    // Reloaded, the buyer sees $500; accepting that charges $500.
    expect(await (await offer(purchaseId, buyerCookie)).json()).toMatchObject({
      offer: { stepId: upsell.id, price: 500 },
    });
    const ok = await (await accept(purchaseId, upsell.id, buyerCookie)).json<Accept>();
    expect(ok.status).toBe("paid");
    expect(
      (await row<{ amount_cents: number }>("select amount_cents from purchases where id = ?", ok.purchaseId))
        ?.amount_cents,
    ).toBe(50000);
    expect(await charges(purchaseId)).toHaveLength(1);
  });

  it("a price lowered after showing is also a 409, and an offer accepted without being shown charges nothing", async () => {
    const { cookie, mainId, upsell, funnelId } = await funnelSetup("pricelowered@example.com");
    const first = await buy(mainId);
    await offer(first.purchaseId, first.buyerCookie);
    await json(
      "PATCH",
      `/api/funnels/${funnelId}/steps/${upsell.id}`,
      { offerPriceId: await priceId(cookie, "Workbook sale", 9) },
      cookie,
    );
    expect((await accept(first.purchaseId, upsell.id, first.buyerCookie)).status).toBe(409);
    // No offer was ever shown to this buyer: there are no terms to charge under.
    const second = await buy(mainId);
    const blind = await accept(second.purchaseId, upsell.id, second.buyerCookie);
    expect(blind.status).toBe(409);
    expect(await blind.json()).toEqual({ message: "This offer has changed. Please review it again." });
    expect(await charges(first.purchaseId)).toHaveLength(0);
    expect(await charges(second.purchaseId)).toHaveLength(0);
  });

  it("a tip step's minimum raised after the buyer saw it: accepting without an amount, or below the new minimum, is 409 with nothing charged", async () => {
    const { cookie, mainId, upsell, upsellId, funnelId } = await funnelSetup("tipchange@example.com", { tip: true });
    const { purchaseId, buyerCookie } = await buy(mainId);
    expect(await (await offer(purchaseId, buyerCookie)).json()).toMatchObject({
      offer: { minimumPrice: 2, maximumPrice: 10 },
    });
    // The item's minimum goes to $4 (no route edits an item's price yet; the row is what a future edit would write).
    await env.DB.prepare("update content set minimum_price_cents = 400, price_cents = 400 where id = ?")
      .bind(upsellId)
      .run();
    for (const extra of [{}, { amount: 3 }]) {
      const res = await accept(purchaseId, upsell.id, buyerCookie, extra);
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ message: "This offer has changed. Please review it again." });
    }
    // The ceiling the buyer saw still binds: above it is refused as before, even if the creator raised it meanwhile.
    await json("PATCH", `/api/funnels/${funnelId}/steps/${upsell.id}`, { maximumPrice: 40 }, cookie);
    expect(await (await accept(purchaseId, upsell.id, buyerCookie, { amount: 30 })).json()).toEqual({
      message: "Maximum amount is $10.00",
    });
    expect(await upsellIntents(purchaseId)).toHaveLength(0);
    expect((await offerRow(purchaseId, upsell.id))?.status).toBe("shown");
    // Reloaded, the buyer sees the new terms; accepting without an amount charges the new minimum.
    expect(await (await offer(purchaseId, buyerCookie)).json()).toMatchObject({
      offer: { minimumPrice: 4, maximumPrice: 40 },
    });
    const ok = await (await accept(purchaseId, upsell.id, buyerCookie)).json<Accept>();
    expect(ok.status).toBe("paid");
    expect(
      (await row<{ amount_cents: number }>("select amount_cents from purchases where id = ?", ok.purchaseId))
        ?.amount_cents,
    ).toBe(400);
  });

  it("two buyers on one computer: the upsell charges the card that paid this purchase, not the newest card of the browser", async () => {
    const { cookie, mainId, upsell, funnelId } = await funnelSetup("shared@example.com");
    const secondItem = await item(cookie, "Second course");
    expect((await postJson(`/api/funnels/${funnelId}/products`, { contentIds: [secondItem] }, cookie)).status).toBe(
      200,
    );
    const first = await buy(mainId);
    // Someone else buys on the same computer, with their own card, a minute later.
    const other = await checkout(secondItem, {
      card: "5555555555554444",
      buyerCookie: first.buyerCookie,
      email: "other@example.com",
    });
    expect(other.confirmed?.body.status).toBe("succeeded");
    const o = await (await offer(first.purchaseId, first.buyerCookie)).json<{ offer: Offer }>();
    expect(o.offer?.card?.last4).toBe("4242");
    expect((await (await accept(first.purchaseId, upsell.id, first.buyerCookie)).json<Accept>()).status).toBe("paid");
    const rootPi = (await standin<{ payment_method: string }>("GET", `/v1/payment_intents/${first.paymentIntent}`))
      .body;
    const [charge] = (await charges(first.purchaseId)) as unknown as {
      data: { object: { payment_method: string; payment_method_details: { card: { last4: string } } } };
    }[];
    expect(charge.data.object.payment_method).toBe(rootPi.payment_method);
    expect(charge.data.object.payment_method_details.card.last4).toBe("4242");
  });

  it("concurrent first checkouts from one browser with different emails never answer 500", async () => {
    const { cookie, mainId } = await funnelSetup("twoemails@example.com");
    const plain = await item(cookie, "Not in a funnel");
    for (let round = 0; round < 3; round++) {
      // A fresh browser: its first checkout of an item without a funnel makes no Customer.
      const browser = `aw_buyer=${cookieValue(await postJson("/api/create-payment-intent", { contentId: plain }), "aw_buyer")}`;
      const answers = await Promise.all(
        ["a@example.com", "b@example.com", "c@example.com"].map((buyerEmail) =>
          postJson("/api/create-payment-intent", { contentId: mainId, buyerEmail }, browser),
        ),
      );
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      const secrets = await Promise.all(answers.map((r) => r.json<{ clientSecret: string }>()));
      const customers = await Promise.all(
        secrets.map(
          async (s) =>
            (await standin<{ customer: string }>("GET", `/v1/payment_intents/${s.clientSecret.split("_secret_")[0]}`))
              .body.customer,
        ),
      );
      expect(new Set(customers).size).toBe(1);
      expect(customers[0]).toMatch(/^cus_/);
    }
  });
});
