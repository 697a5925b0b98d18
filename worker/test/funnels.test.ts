import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import {
  call,
  CARDS,
  checkout,
  confirmAsStripeJs,
  contentForm,
  cookieValue,
  deliver,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
} from "./helpers";

type Step = {
  id: string;
  stepOrder: number;
  title: string;
  price: number | null;
  figures: { shown: number; accepted: number; declined: number; revenue: number };
};
type Offer = {
  stepId: string;
  stepType: string;
  title: string;
  price: number;
  ctaText: string;
  card: { last4: string } | null;
} | null;
type Accept = {
  status: string;
  purchaseId: string;
  next?: Offer;
  clientSecret?: string;
  paymentMethod?: string;
  message?: string;
};

const json = (method: string, path: string, body: unknown, cookie?: string) =>
  call(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

async function item(cookie: string, title: string, fields: Record<string, string> = {}) {
  const res = await postForm(
    "/api/content",
    contentForm({
      title,
      price: "10",
      accessType: "link",
      linkUrl: `https://example.com/${encodeURIComponent(title)}`,
      ...fields,
    }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

async function priceId(cookie: string, name: string, price: number) {
  const res = await postJson(
    "/api/stripe/create-upsell-product",
    { name, description: `${name} offer`, price },
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ priceId: string }>()).priceId;
}

async function addStep(cookie: string, funnelId: string, body: Record<string, unknown>) {
  const res = await postJson(`/api/funnels/${funnelId}/steps`, body, cookie);
  if (res.status !== 201) throw new Error(await res.text());
  return res.json<Step>();
}

const stepsOf = async (cookie: string, funnelId: string) =>
  (await call(`/api/funnels/${funnelId}/steps`, { cookie })).json<Step[]>();

/** A creator with an item sold through a funnel: step 1 an upsell ($15), step 2 its downsell ($5). */
async function funnelSetup(email: string, { live = true, tip = false } = {}) {
  const cookie = await signIn(email);
  const mainId = await item(cookie, "Main course");
  const upsellId = await item(cookie, "Workbook", tip ? { pricingModel: "pay_what_you_want", minimumPrice: "2" } : {});
  const downsellId = await item(cookie, "Cheat sheet");
  const funnel = await (await postJson("/api/funnels", { name: "Main course funnel" }, cookie)).json<{
    id: string;
    testMode: boolean;
  }>();
  expect(funnel.testMode).toBe(true);
  expect((await postJson(`/api/funnels/${funnel.id}/products`, { contentIds: [mainId] }, cookie)).status).toBe(200);
  const upsell = await addStep(cookie, funnel.id, {
    title: "Add the workbook",
    description: "All exercises",
    offerPriceId: await priceId(cookie, "Workbook", 15),
    stepType: "upsell",
    contentId: upsellId,
  });
  const downsell = await addStep(cookie, funnel.id, {
    title: "Just the cheat sheet",
    offerPriceId: await priceId(cookie, "Cheat sheet", 5),
    stepType: "downsell",
    contentId: downsellId,
  });
  if (live) expect((await json("PATCH", `/api/funnels/${funnel.id}`, { testMode: false }, cookie)).status).toBe(200);
  return { cookie, mainId, upsellId, downsellId, funnelId: funnel.id, upsell, downsell };
}

/** Pays for `contentId` as a fresh browser; returns that browser's cookie and the purchase. */
async function buy(contentId: string, card = CARDS.ok) {
  const paid = await checkout(contentId, { card, email: "fan@example.com" });
  const purchase = await row<{ id: string; stripe_customer_id: string | null }>(
    "select * from purchases where payment_intent_id = ?",
    paid.paymentIntent,
  );
  return { ...paid, purchaseId: purchase!.id, customerId: purchase!.stripe_customer_id };
}

const offer = async (purchaseId: string, cookie?: string) =>
  call(`/api/upsell/offer?purchaseId=${purchaseId}`, { cookie });
const accept = (purchaseId: string, stepId: string, cookie?: string, extra: Record<string, unknown> = {}) =>
  postJson("/api/upsell/accept", { purchaseId, stepId, ...extra }, cookie);
const upsellIntents = async (parentPurchaseId: string) =>
  (
    await standin<{ data: { id: string; status: string; metadata: Record<string, string> }[] }>("GET", "/v1/events", {
      type: "payment_intent.created",
      limit: "100",
    })
  ).body.data.filter(
    (e) =>
      (e as unknown as { data: { object: { metadata: Record<string, string> } } }).data.object.metadata
        .parentPurchaseId === parentPurchaseId,
  );
const charges = async (parentPurchaseId: string) =>
  (
    await standin<{ data: { data: { object: { metadata: Record<string, string> } } }[] }>("GET", "/v1/events", {
      type: "charge.succeeded",
      limit: "100",
    })
  ).body.data.filter((e) => e.data.object.metadata.parentPurchaseId === parentPurchaseId);

describe("funnel calls are the owner's only", () => {
  it("another creator gets 404 on every funnel, step and product call; signed out gets 401", async () => {
    const { cookie, funnelId, upsell, mainId } = await funnelSetup("owner@example.com");
    const other = await signIn("intruder@example.com");
    const otherItem = await item(other, "Intruder item");
    const attempts: [string, string, unknown?][] = [
      ["GET", `/api/funnels/${funnelId}/steps`],
      ["GET", `/api/funnels/${funnelId}/ab-tests`],
      ["GET", `/api/funnels/${funnelId}/preview`],
      ["PATCH", `/api/funnels/${funnelId}`, { testMode: true }],
      ["POST", `/api/funnels/${funnelId}/products`, { contentIds: [otherItem] }],
      ["DELETE", `/api/funnels/${funnelId}/products/${mainId}`],
      ["POST", `/api/funnels/${funnelId}/steps`, { title: "x", offerPriceId: upsell.id.replace(/^/, "price_") }],
      ["PATCH", `/api/funnels/${funnelId}/steps/${upsell.id}`, { stepOrder: 2 }],
      ["DELETE", `/api/funnels/${funnelId}/steps/${upsell.id}`],
    ];
    for (const [method, path, body] of attempts) {
      const res =
        body === undefined ? await call(path, { method, cookie: other }) : await json(method, path, body, other);
      expect([method, path, res.status]).toEqual([method, path, 404]);
      const anon = body === undefined ? await call(path, { method }) : await json(method, path, body);
      expect(anon.status).toBe(401);
    }
    expect((await postJson("/api/stripe/create-upsell-product", { name: "X", price: 5 })).status).toBe(401);
    expect(await (await call("/api/funnels", { cookie: other })).json()).toEqual([]);
    // Nothing changed for the owner.
    const [funnel] = await (await call("/api/funnels", { cookie })).json<
      { testMode: boolean; contentIds: string[] }[]
    >();
    expect(funnel).toMatchObject({ testMode: false, contentIds: [mainId] });
    expect((await stepsOf(cookie, funnelId)).map((s) => s.title)).toEqual(["Add the workbook", "Just the cheat sheet"]);
  });

  it("the owner cannot attach someone else's content, nor use someone else's price or content in a step", async () => {
    const { cookie, funnelId, mainId } = await funnelSetup("owner2@example.com");
    const other = await signIn("other2@example.com");
    const foreignItem = await item(other, "Not yours");
    const foreignPrice = await priceId(other, "Not yours", 9);
    const res = await postJson(`/api/funnels/${funnelId}/products`, { contentIds: [mainId, foreignItem] }, cookie);
    expect(res.status).toBe(404);
    expect(await rows("select * from funnel_products where content_id = ?", foreignItem)).toEqual([]);
    expect(
      (await postJson(`/api/funnels/${funnelId}/steps`, { title: "Steal", offerPriceId: foreignPrice }, cookie)).status,
    ).toBe(400);
    expect(
      (
        await postJson(
          `/api/funnels/${funnelId}/steps`,
          { title: "Steal", offerPriceId: await priceId(cookie, "Mine", 3), contentId: foreignItem },
          cookie,
        )
      ).status,
    ).toBe(404);
    expect(
      (await postJson(`/api/funnels/${funnelId}/steps`, { title: "Typo", offerPriceId: "price_doesnotexist" }, cookie))
        .status,
    ).toBe(400);
    expect(await stepsOf(cookie, funnelId)).toHaveLength(2);
    expect(
      (await row<{ is_upsell: number }>("select is_upsell from content where id = ?", foreignItem))?.is_upsell,
    ).toBe(0);
  });

  it("validates with the spec's messages and answers an empty A/B test list", async () => {
    const cookie = await signIn("valid@example.com");
    const blank = await postJson("/api/funnels", { name: "   " }, cookie);
    expect(blank.status).toBe(400);
    expect((await blank.json<{ message: string }>()).message).toContain("Please enter a funnel name");
    const funnel = await (await postJson("/api/funnels", { name: "F" }, cookie)).json<{ id: string }>();
    const noTitle = await postJson(`/api/funnels/${funnel.id}/steps`, { title: "", offerPriceId: "price_x" }, cookie);
    expect((await noTitle.json<{ message: string }>()).message).toContain("Please fill in required fields");
    expect(await (await call(`/api/funnels/${funnel.id}/ab-tests`, { cookie })).json()).toEqual([]);
    expect((await postJson("/api/stripe/create-upsell-product", { name: "X", price: -1 }, cookie)).status).toBe(400);
  });
});

describe("create-upsell-product", () => {
  it("makes one real Stripe product and price, once per request", async () => {
    const cookie = await signIn("product@example.com");
    const [a, b] = await Promise.all([priceId(cookie, "Bonus pack", 12.5), priceId(cookie, "Bonus pack", 12.5)]);
    expect(a).toBe(b);
    const { body: price } = await standin<{ unit_amount: number; currency: string; type: string; product: string }>(
      "GET",
      `/v1/prices/${a}`,
    );
    expect(price).toMatchObject({ unit_amount: 1250, currency: "usd", type: "one_time" });
    const { body: product } = await standin<{ name: string; metadata: Record<string, string> }>(
      "GET",
      `/v1/products/${price.product}`,
    );
    expect(product.name).toBe("Bonus pack");
    expect(product.metadata.kind).toBe("upsell");
    expect(await priceId(cookie, "Bonus pack", 13)).not.toBe(a);
  });
});

describe("step order stays 1..n", () => {
  it("moves, inserts at a position, deletes, and survives concurrent moves", async () => {
    const cookie = await signIn("order@example.com");
    const funnel = await (await postJson("/api/funnels", { name: "Order" }, cookie)).json<{ id: string }>();
    const price = await priceId(cookie, "Any", 5);
    for (const title of ["A", "B", "C", "D"]) await addStep(cookie, funnel.id, { title, offerPriceId: price });
    const order = async () => (await stepsOf(cookie, funnel.id)).map((s) => `${s.stepOrder}${s.title}`).join(" ");
    expect(await order()).toBe("1A 2B 3C 4D");
    const steps = await stepsOf(cookie, funnel.id);
    const byTitle = (t: string) => steps.find((s) => s.title === t)!.id;
    const move = (t: string, to: number) =>
      json("PATCH", `/api/funnels/${funnel.id}/steps/${byTitle(t)}`, { stepOrder: to }, cookie);
    await move("D", 1);
    expect(await order()).toBe("1D 2A 3B 4C");
    await move("D", 3);
    expect(await order()).toBe("1A 2B 3D 4C");
    await move("A", 99);
    expect(await order()).toBe("1B 2D 3C 4A");
    expect(
      (await json("PATCH", `/api/funnels/${funnel.id}/steps/${byTitle("A")}`, { stepOrder: 0 }, cookie)).status,
    ).toBe(400);
    await addStep(cookie, funnel.id, { title: "E", offerPriceId: price, stepOrder: 2 });
    expect(await order()).toBe("1B 2E 3D 4C 5A");
    expect((await call(`/api/funnels/${funnel.id}/steps/${byTitle("D")}`, { method: "DELETE", cookie })).status).toBe(
      200,
    );
    expect(await order()).toBe("1B 2E 3C 4A");

    // Many moves at once, as two editors clicking up and down: still a permutation of 1..n.
    const ids = (await stepsOf(cookie, funnel.id)).map((s) => s.id);
    await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        json(
          "PATCH",
          `/api/funnels/${funnel.id}/steps/${ids[i % ids.length]}`,
          { stepOrder: ((i * 7) % 4) + 1 },
          cookie,
        ),
      ),
    );
    const after = await stepsOf(cookie, funnel.id);
    expect(after.map((s) => s.stepOrder)).toEqual([1, 2, 3, 4]);
    expect(new Set(after.map((s) => s.id))).toEqual(new Set(ids));
  });

  it("an edit changes the fields and keeps the order", async () => {
    const cookie = await signIn("edit@example.com");
    const funnel = await (await postJson("/api/funnels", { name: "Edit" }, cookie)).json<{ id: string }>();
    const step = await addStep(cookie, funnel.id, { title: "Old", offerPriceId: await priceId(cookie, "Old", 5) });
    const res = await json(
      "PATCH",
      `/api/funnels/${funnel.id}/steps/${step.id}`,
      { title: "New", ctaText: "Yes please", offerPriceId: await priceId(cookie, "New", 7) },
      cookie,
    );
    expect(await res.json()).toMatchObject({ title: "New", ctaText: "Yes please", price: 7, stepOrder: 1 });
  });
});

describe("saving the card", () => {
  it("only for items in a live funnel", async () => {
    const { cookie, mainId, funnelId } = await funnelSetup("savecard@example.com", { live: false });
    const plain = await item(cookie, "Not in a funnel");
    const intentOf = async (contentId: string) => {
      const { paymentIntent } = await checkout(contentId, { card: "none" });
      return (
        await standin<{ setup_future_usage: string | null; customer: string | null }>(
          "GET",
          `/v1/payment_intents/${paymentIntent}`,
        )
      ).body;
    };
    expect(await intentOf(plain)).toMatchObject({ setup_future_usage: null, customer: null });
    // Test mode: the funnel is only for the creator's preview.
    expect(await intentOf(mainId)).toMatchObject({ setup_future_usage: null, customer: null });
    await json("PATCH", `/api/funnels/${funnelId}`, { testMode: false }, cookie);
    const live = await intentOf(mainId);
    expect(live.setup_future_usage).toBe("off_session");
    expect(live.customer).toMatch(/^cus_/);
  });
});

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
    const { waitForMail } = await import("./helpers");
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
    const { accessTokenFor } = await import("../services/purchases/access-tokens");
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
