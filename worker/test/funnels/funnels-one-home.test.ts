// A funnel's items and offers stay apart (an item is not both shown after and offered: a clear 400),
// the preview walks either variant of a step under test without assigning one, and an item's figures
// agree: paid checkouts never exceed checkouts, bump and upsell sales counted on their own.
// Behaviour under test: docs/funnels.md.
import { describe, expect, it } from "vitest";
import type { AnalyticsStats } from "../../../shared/analytics";
import { FUNNEL_ITEM_MESSAGES, type UpsellOffer } from "../../../shared/funnels";
import {
  CARDS,
  call,
  checkout,
  confirmAsStripeJs,
  cookieValue,
  deliver,
  eventFor,
  postJson,
  row,
  rows,
  signIn,
} from "../support/helpers";
import { item, json, type Step } from "./funnel-helpers";

/** A creator's "Guide" with a funnel (in Test) shown after it, whose one step offers "Workbook" at $15. */
async function guideFunnel(email: string) {
  const cookie = await signIn(email);
  const guideId = await item(cookie, "Guide", { price: "20" });
  const workbookId = await item(cookie, "Workbook", { price: "19" });
  const funnel = await (await postJson("/api/funnels", { name: "Guide funnel" }, cookie)).json<{ id: string }>();
  expect((await postJson(`/api/funnels/${funnel.id}/products`, { contentIds: [guideId] }, cookie)).status).toBe(200);
  const res = await postJson(
    `/api/funnels/${funnel.id}/steps`,
    { title: "Add the workbook", contentId: workbookId, price: "15" },
    cookie,
  );
  expect(res.status).toBe(201);
  return { cookie, guideId, workbookId, funnelId: funnel.id, step: await res.json<Step>() };
}

const message = async (res: Response) => (await res.json<{ message: string }>()).message;

describe("a funnel's items and its offers stay apart", () => {
  it("attaching the item a step offers is a 400 that names the step, and attaches nothing", async () => {
    const { cookie, guideId, workbookId, funnelId } = await guideFunnel("apart-attach@example.com");
    const res = await postJson(`/api/funnels/${funnelId}/products`, { contentIds: [guideId, workbookId] }, cookie);
    expect(res.status).toBe(400);
    expect(await message(res)).toBe(FUNNEL_ITEM_MESSAGES.offeredInStep("Workbook", 1));
    expect(await rows("select content_id from funnel_products where funnel_id = ?", funnelId)).toEqual([
      { content_id: guideId },
    ]);
  });

  it("a step cannot offer, or be pointed at, an item the funnel is shown after: 400", async () => {
    const { cookie, guideId, funnelId, step } = await guideFunnel("apart-step@example.com");
    const added = await postJson(`/api/funnels/${funnelId}/steps`, { title: "Again?", contentId: guideId }, cookie);
    expect(added.status).toBe(400);
    expect(await message(added)).toBe(FUNNEL_ITEM_MESSAGES.shownAfter("Guide"));
    const moved = await json("PATCH", `/api/funnels/${funnelId}/steps/${step.id}`, { contentId: guideId }, cookie);
    expect(moved.status).toBe(400);
    expect(await message(moved)).toBe(FUNNEL_ITEM_MESSAGES.shownAfter("Guide"));
    expect((await row<{ n: number }>("select count(*) as n from funnel_steps where funnel_id = ?", funnelId))!.n).toBe(
      1,
    );
  });
});

describe("the preview walks either variant", () => {
  it("variant B shows the running test's texts and price, A the step; neither assigns a variant; a wrong variant is a 400", async () => {
    const { cookie, funnelId, step } = await guideFunnel("preview-variants@example.com");
    const started = await postJson(
      `/api/funnels/${funnelId}/ab-tests`,
      { stepId: step.id, title: "Workbook, 30% off", description: "Same workbook", ctaText: "Yes please", price: "10" },
      cookie,
    );
    expect(started.status).toBe(201);
    const preview = async (q: string) => call(`/api/funnels/${funnelId}/preview${q}`, { cookie });
    const [a] = await (await preview("")).json<UpsellOffer[]>();
    expect(a).toMatchObject({ title: "Add the workbook", ctaText: "Add this to my order", price: 15 });
    expect((await (await preview("?variant=A")).json<UpsellOffer[]>())[0]).toEqual(a);
    const [b] = await (await preview("?variant=B")).json<UpsellOffer[]>();
    expect(b).toMatchObject({ stepId: step.id, title: "Workbook, 30% off", ctaText: "Yes please", price: 10 });
    expect((await preview("?variant=C")).status).toBe(400);
    expect(await rows("select 1 from funnel_ab_assignments")).toEqual([]);
  });
});

describe("an item's figures agree", () => {
  it("paid checkouts never exceed checkouts; the item's sales as an order bump or an upsell are counted apart", async () => {
    const cookie = await signIn("figures-apart@example.com");
    const courseId = await item(cookie, "Course", { price: "30" });
    const workbookId = await item(cookie, "Workbook", { price: "12" });
    const stickersId = await item(cookie, "Stickers", { price: "4" });
    // Course's add-on is the Workbook; Course's live funnel offers the Stickers.
    const bump = await json("PUT", `/api/content/${courseId}/bump`, { contentId: workbookId, price: "7" }, cookie);
    expect(bump.status).toBe(200);
    const funnel = await (await postJson("/api/funnels/for-item", { contentId: courseId }, cookie)).json<{
      id: string;
    }>();
    const step = await (
      await postJson(`/api/funnels/${funnel.id}/steps`, { title: "Stickers?", contentId: stickersId }, cookie)
    ).json<Step>();
    expect((await json("PATCH", `/api/funnels/${funnel.id}`, { testMode: false }, cookie)).status).toBe(200);

    // One buyer ticks the bump, pays, and takes the upsell; another buys the Workbook on its own paywall.
    const started = await postJson("/api/create-payment-intent", { contentId: courseId, bump: true, buyerEmail: "" });
    expect(started.status).toBe(200);
    const buyerCookie = `aw_buyer=${cookieValue(started, "aw_buyer")}`;
    const { clientSecret } = await started.json<{ clientSecret: string }>();
    expect((await confirmAsStripeJs(clientSecret, CARDS.ok, { receipt_email: "fan@example.com" })).status).toBe(200);
    const pi = clientSecret.split("_secret_")[0];
    expect((await deliver(await eventFor("payment_intent.succeeded", pi))).status).toBe(200);
    const root = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", pi))!.id;
    await call(`/api/upsell/offer?purchaseId=${root}`, { cookie: buyerCookie });
    const accepted = await postJson("/api/upsell/accept", { purchaseId: root, stepId: step.id }, buyerCookie);
    expect(accepted.status).toBe(200);
    const own = await checkout(workbookId, { email: "fan@example.com" });
    expect((await deliver(await eventFor("payment_intent.succeeded", own.paymentIntent))).status).toBe(200);

    const stats = await (await call("/api/analytics/stats?days=7", { cookie })).json<AnalyticsStats>();
    const of = (id: string) => stats.items.find((i) => i.contentId === id)!;
    expect(of(courseId)).toMatchObject({ checkouts: 1, paidCheckouts: 1, bumpSales: 0, upsellSales: 0 });
    expect(of(workbookId)).toMatchObject({ checkouts: 1, paidCheckouts: 1, bumpSales: 1, upsellSales: 0, sales: 2 });
    expect(of(stickersId)).toMatchObject({ checkouts: 0, paidCheckouts: 0, bumpSales: 0, upsellSales: 1, sales: 1 });
    for (const i of stats.items) {
      expect(i.paidCheckouts).toBeLessThanOrEqual(i.checkouts);
      expect(i.paidCheckouts + i.bumpSales + i.upsellSales).toBe(i.sales);
    }
  });
});
