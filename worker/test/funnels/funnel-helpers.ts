// Shared by the funnels*.test.ts files: a creator with an item sold through a two-step funnel, a
// buyer who paid for it, and calls on the buyer's offers. Behaviour under test: docs/funnels.md.
import { expect } from "vitest";
import { call, CARDS, checkout, contentForm, postForm, postJson, row, signIn, standin } from "../support/helpers";

export type Step = {
  id: string;
  stepOrder: number;
  title: string;
  price: number | null;
  figures: { shown: number; accepted: number; declined: number; revenue: number };
};
export type Offer = {
  stepId: string;
  stepType: string;
  title: string;
  price: number;
  ctaText: string;
  card: { last4: string } | null;
} | null;
export type Accept = {
  status: string;
  purchaseId: string;
  next?: Offer;
  clientSecret?: string;
  paymentMethod?: string;
  message?: string;
};

export const json = (method: string, path: string, body: unknown, cookie?: string) =>
  call(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

export async function item(cookie: string, title: string, fields: Record<string, string> = {}) {
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

export async function priceId(cookie: string, name: string, price: number) {
  const res = await postJson(
    "/api/stripe/create-upsell-product",
    { name, description: `${name} offer`, price },
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ priceId: string }>()).priceId;
}

export async function addStep(cookie: string, funnelId: string, body: Record<string, unknown>) {
  const res = await postJson(`/api/funnels/${funnelId}/steps`, body, cookie);
  if (res.status !== 201) throw new Error(await res.text());
  return res.json<Step>();
}

export const stepsOf = async (cookie: string, funnelId: string) =>
  (await call(`/api/funnels/${funnelId}/steps`, { cookie })).json<Step[]>();

/** A creator with an item sold through a funnel: step 1 an upsell ($15), step 2 its downsell ($5). */
export async function funnelSetup(email: string, { live = true, tip = false } = {}) {
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
export async function buy(contentId: string, card = CARDS.ok) {
  const paid = await checkout(contentId, { card, email: "fan@example.com" });
  const purchase = await row<{ id: string; stripe_customer_id: string | null }>(
    "select * from purchases where payment_intent_id = ?",
    paid.paymentIntent,
  );
  return { ...paid, purchaseId: purchase!.id, customerId: purchase!.stripe_customer_id };
}

export const offer = async (purchaseId: string, cookie?: string) =>
  call(`/api/upsell/offer?purchaseId=${purchaseId}`, { cookie });
export const accept = (purchaseId: string, stepId: string, cookie?: string, extra: Record<string, unknown> = {}) =>
  postJson("/api/upsell/accept", { purchaseId, stepId, ...extra }, cookie);
export const upsellIntents = async (parentPurchaseId: string) =>
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
export const charges = async (parentPurchaseId: string) =>
  (
    await standin<{ data: { data: { object: { metadata: Record<string, string> } } }[] }>("GET", "/v1/events", {
      type: "charge.succeeded",
      limit: "100",
    })
  ).body.data.filter((e) => e.data.object.metadata.parentPurchaseId === parentPurchaseId);
