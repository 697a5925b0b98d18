// A/B tests of funnel offers: an even, sticky split per order; the price charged is the
// assigned variant's; figures come from the offers shown and paid; 'Make B the step' ends the test;
// the readout's probability is right for known counts.
import { describe, expect, it } from "vitest";
import { abReadout, probabilityBBeatsA, type AbTest } from "../../../shared/ab-tests";
import { call, checkout, contentForm, postForm, postJson, row, signIn, standin } from "../support/helpers";

type Offer = { stepId: string; title: string; price: number; ctaText: string } | null;

async function item(cookie: string, title: string, price = "10") {
  const res = await postForm(
    "/api/content",
    contentForm({ title, price, accessType: "link", linkUrl: `https://example.com/${encodeURIComponent(title)}` }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

/** A creator whose item is sold through a live funnel with one $15 upsell step. */
async function setup(email: string) {
  const cookie = await signIn(email);
  const mainId = await item(cookie, "Main course");
  const upsellId = await item(cookie, "Workbook");
  const funnel = await (await postJson("/api/funnels", { name: "Funnel" }, cookie)).json<{ id: string }>();
  expect((await postJson(`/api/funnels/${funnel.id}/products`, { contentIds: [mainId] }, cookie)).status).toBe(200);
  const price = await (
    await postJson("/api/stripe/create-upsell-product", { name: "Workbook", description: "", price: 15 }, cookie)
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
  return { cookie, mainId, funnelId: funnel.id, stepId: step.id };
}

/** A new buyer's paid purchase of `contentId`, and the offer their browser is shown. */
async function buyer(contentId: string, i: number) {
  const paid = await checkout(contentId, { email: `ab-buyer-${i}@example.com` });
  const purchase = (await row<{ id: string }>(
    "select id from purchases where payment_intent_id = ?",
    paid.paymentIntent,
  ))!;
  const offer = async () => {
    const res = await call(`/api/upsell/offer?purchaseId=${purchase.id}`, { cookie: paid.buyerCookie });
    expect(res.status).toBe(200);
    return (await res.json<{ offer: Offer }>()).offer!;
  };
  return { purchaseId: purchase.id, cookie: paid.buyerCookie, offer };
}

const tests = async (cookie: string, funnelId: string) =>
  (await call(`/api/funnels/${funnelId}/ab-tests`, { cookie })).json<AbTest[]>();

describe("the probability that B beats A", () => {
  it("is a half for equal counts, near certain for 10/100 against 30/100, and the two sides add up to one", () => {
    expect(probabilityBBeatsA({ shown: 100, accepted: 20 }, { shown: 100, accepted: 20 })).toBeCloseTo(0.5, 6);
    expect(probabilityBBeatsA({ shown: 100, accepted: 10 }, { shown: 100, accepted: 30 })).toBeGreaterThan(0.999);
    const p = probabilityBBeatsA({ shown: 50, accepted: 7 }, { shown: 60, accepted: 12 });
    expect(p + probabilityBBeatsA({ shown: 60, accepted: 12 }, { shown: 50, accepted: 7 })).toBeCloseTo(1, 6);
    // A known value: Beta(2, 2) against Beta(3, 1) (1 of 2 against 2 of 2): 0.8.
    expect(probabilityBBeatsA({ shown: 2, accepted: 1 }, { shown: 2, accepted: 2 })).toBeCloseTo(0.8, 6);
    expect(abReadout({ shown: 10, accepted: 1 }, { shown: 10, accepted: 3 }).text).toMatch(
      /^Too early to tell: fewer than 30 buyers/,
    );
    expect(abReadout({ shown: 200, accepted: 20 }, { shown: 200, accepted: 45 }).text).toMatch(
      /^B beats A with (99|100)% probability/,
    );
    expect(abReadout({ shown: 200, accepted: 45 }, { shown: 200, accepted: 20 }).text).toMatch(/^A beats B with/);
  });
});

describe("A/B tests of funnel offers", () => {
  it("splits buyers evenly and stickily, charges each the price of their variant, and counts shown, accepted and revenue", async () => {
    const { cookie, mainId, funnelId, stepId } = await setup("ab-split@example.com");
    const start = await postJson(
      `/api/funnels/${funnelId}/ab-tests`,
      { stepId, title: "Workbook, half price", description: "Today only", ctaText: "Yes, add it", price: "9" },
      cookie,
    );
    expect(start.status).toBe(201);
    const test = await start.json<AbTest>();
    expect(test.variants.map((v) => [v.variant, v.title, v.price])).toEqual([
      ["A", "Add the workbook", 15],
      ["B", "Workbook, half price", 9],
    ]);
    expect(
      (await postJson(`/api/funnels/${funnelId}/ab-tests`, { stepId, title: "Another", ctaText: "Go" }, cookie)).status,
    ).toBe(409);

    const buyers = [];
    for (let i = 0; i < 16; i++) buyers.push(await buyer(mainId, i));
    const seen = await Promise.all(buyers.map(async (b) => ({ b, first: await b.offer(), again: await b.offer() })));
    for (const s of seen) expect(s.again).toEqual(s.first); // sticky across loads
    const onB = seen.filter((s) => s.first.title === "Workbook, half price");
    const onA = seen.filter((s) => s.first.title === "Add the workbook");
    expect(onA.length + onB.length).toBe(16);
    expect(onB.length).toBeGreaterThanOrEqual(3); // an even split of 16, within a wide margin
    expect(onA.length).toBeGreaterThanOrEqual(3);
    expect(onB[0].first).toMatchObject({ price: 9, ctaText: "Yes, add it" });

    // Accept: each is charged their own variant's price (the PaymentIntent's amount at Stripe).
    for (const [s, cents] of [
      [onA[0], 1500],
      [onB[0], 900],
    ] as const) {
      const res = await postJson("/api/upsell/accept", { purchaseId: s.b.purchaseId, stepId }, s.b.cookie);
      expect(res.status).toBe(200);
      const body = await res.json<{ status: string; purchaseId: string }>();
      expect(body.status).toBe("paid");
      const upsell = (await row<{ payment_intent_id: string; amount_cents: number }>(
        "select payment_intent_id, amount_cents from purchases where id = ?",
        body.purchaseId,
      ))!;
      expect(upsell.amount_cents).toBe(cents);
      expect(
        (await standin<{ amount: number }>("GET", `/v1/payment_intents/${upsell.payment_intent_id}`)).body.amount,
      ).toBe(cents);
    }

    const [figures] = await tests(cookie, funnelId);
    const [a, b] = figures.variants;
    expect([a.shown, b.shown]).toEqual([onA.length, onB.length]);
    expect([a.accepted, b.accepted]).toEqual([1, 1]);
    expect([a.revenue, b.revenue]).toEqual([15, 9]);
    expect(b.revenuePerBuyer).toBeCloseTo(9 / onB.length, 2);
    expect(figures.readout).toMatch(/^Too early to tell/);
  });

  it("'Make B the step' writes B onto the step and ends the test; the owner alone may start or end one", async () => {
    const { cookie, mainId, funnelId, stepId } = await setup("ab-winner@example.com");
    const test = await (
      await postJson(
        `/api/funnels/${funnelId}/ab-tests`,
        { stepId, title: "The complete workbook", ctaText: "Add it for $12", price: "12" },
        cookie,
      )
    ).json<AbTest>();
    const other = await signIn("ab-intruder@example.com");
    expect((await call(`/api/funnels/${funnelId}/ab-tests`, { cookie: other })).status).toBe(404);
    expect(
      (await postJson(`/api/funnels/${funnelId}/ab-tests`, { stepId, title: "Mine", ctaText: "Go" }, other)).status,
    ).toBe(404);
    expect((await postJson(`/api/funnels/${funnelId}/ab-tests/${test.id}/end`, { keep: "B" }, other)).status).toBe(404);
    const bad = await postJson(
      `/api/funnels/${funnelId}/ab-tests`,
      { stepId, title: "", ctaText: "Go", price: "0.10" },
      cookie,
    );
    expect(bad.status).toBe(400);

    const ended = await postJson(`/api/funnels/${funnelId}/ab-tests/${test.id}/end`, { keep: "B" }, cookie);
    expect(ended.status).toBe(200);
    // The test's record keeps A as it was tested, though the step is now B.
    expect(await ended.json()).toMatchObject({
      status: "ended",
      winner: "B",
      variants: [
        { variant: "A", title: "Add the workbook", price: 15 },
        { variant: "B", title: "The complete workbook", price: 12 },
      ],
    });
    const [step] = await (await call(`/api/funnels/${funnelId}/steps`, { cookie })).json<
      { id: string; title: string; price: number; ctaText: string }[]
    >();
    expect(step).toMatchObject({ title: "The complete workbook", price: 12, ctaText: "Add it for $12" });
    // Every buyer now sees the step, which is B; pressing again changes nothing.
    const later = await buyer(mainId, 100);
    expect(await later.offer()).toMatchObject({ title: "The complete workbook", price: 12 });
    expect(
      await (await postJson(`/api/funnels/${funnelId}/ab-tests/${test.id}/end`, { keep: "A" }, cookie)).json(),
    ).toMatchObject({ winner: "B" });
  });
});
