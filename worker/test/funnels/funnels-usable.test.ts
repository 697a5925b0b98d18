// Funnels a creator can find and use: a funnel on any item, steps from ordinary fields
// (the server makes the price), one status, the order's figures from what was charged, and analytics
// whose rows and conversion agree.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, checkout, contentForm, postForm, postJson, row, rows, signIn } from "../support/helpers";

type Funnel = { id: string; name: string; testMode: boolean; status: string; contentIds: string[] };
type Step = {
  id: string;
  title: string;
  price: number | null;
  offerPriceId: string;
  contentId: string | null;
  figures: { revenue: number; net: number };
};
type Order = {
  first: { title: string; amount: number; accessUrl: string };
  added: { purchaseId: string; title: string; amount: number }[];
  total: number;
};

const json = (method: string, path: string, body: unknown, cookie?: string) =>
  call(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body), cookie });

async function item(cookie: string, title: string, price = "10") {
  const res = await postForm(
    "/api/content",
    contentForm({ title, price, accessType: "link", linkUrl: `https://example.com/${encodeURIComponent(title)}` }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}
const forItem = (contentId: string, cookie: string) => postJson("/api/funnels/for-item", { contentId }, cookie);
const listed = async (cookie: string) => (await call("/api/content", { cookie })).json<{ id: string }[]>();

/** A live funnel on `mainId` ($12) whose steps offer two of the creator's existing items, both upsells. */
async function liveFunnel(email: string) {
  const cookie = await signIn(email);
  const mainId = await item(cookie, "Main course", "12");
  const workbookId = await item(cookie, "Workbook", "25");
  const stickersId = await item(cookie, "Stickers", "4");
  const funnel = await (await forItem(mainId, cookie)).json<Funnel>();
  const first = await (
    await postJson(
      `/api/funnels/${funnel.id}/steps`,
      { title: "Add the workbook", contentId: workbookId, price: "19" },
      cookie,
    )
  ).json<Step>();
  const second = await (
    await postJson(`/api/funnels/${funnel.id}/steps`, { title: "Stickers too?", contentId: stickersId }, cookie)
  ).json<Step>();
  expect((await json("PATCH", `/api/funnels/${funnel.id}`, { testMode: false }, cookie)).status).toBe(200);
  return { cookie, mainId, workbookId, stickersId, funnel, first, second };
}

async function paidBuyer(contentId: string) {
  const paid = await checkout(contentId, { email: "fan@example.com" });
  const purchase = await row<{ id: string }>(
    "select id from purchases where payment_intent_id = ?",
    paid.paymentIntent,
  );
  return { buyerCookie: paid.buyerCookie, purchaseId: purchase!.id };
}

describe("a funnel on any item", () => {
  it("'Edit funnel' on an item without a funnel makes one for it, in Test, with the item attached; asking again (or twice at once) opens the same one", async () => {
    const cookie = await signIn("attach@example.com");
    const mainId = await item(cookie, "Guide");
    const answers = await Promise.all([forItem(mainId, cookie), forItem(mainId, cookie)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const [a, b] = await Promise.all(answers.map((r) => r.json<Funnel>()));
    expect(a.id).toBe(b.id);
    expect(a).toMatchObject({ name: "Guide funnel", testMode: true, status: "test", contentIds: [mainId] });
    expect((await (await forItem(mainId, cookie)).json<Funnel>()).id).toBe(a.id);
    expect(await (await call("/api/funnels", { cookie })).json<Funnel[]>()).toHaveLength(1);
  });

  it("an item already in a funnel opens that funnel; another creator's item is a 404 and makes nothing", async () => {
    const cookie = await signIn("attach2@example.com");
    const mainId = await item(cookie, "Course");
    const made = await (await postJson("/api/funnels", { name: "Launch" }, cookie)).json<Funnel>();
    await postJson(`/api/funnels/${made.id}/products`, { contentIds: [mainId] }, cookie);
    expect((await (await forItem(mainId, cookie)).json<Funnel>()).id).toBe(made.id);
    const other = await signIn("attach3@example.com");
    expect((await forItem(mainId, other)).status).toBe(404);
    expect(await (await call("/api/funnels", { cookie: other })).json()).toEqual([]);
    expect((await forItem("nosuchitem", cookie)).status).toBe(404);
  });
});

describe("steps from ordinary fields", () => {
  it("a step from one of your items: the server makes its price (the item's, or the one set), and the item stays on sale on its own", async () => {
    const cookie = await signIn("steps@example.com");
    const mainId = await item(cookie, "Main");
    const extraId = await item(cookie, "Extra", "25");
    const funnel = await (await forItem(mainId, cookie)).json<Funnel>();
    const atItemPrice = await postJson(
      `/api/funnels/${funnel.id}/steps`,
      { title: "Add Extra", contentId: extraId },
      cookie,
    );
    expect(atItemPrice.status).toBe(201);
    const step = await atItemPrice.json<Step>();
    expect(step).toMatchObject({ title: "Add Extra", price: 25, contentId: extraId });
    expect(step.offerPriceId).toMatch(/^price_/);
    const atOfferPrice = await (
      await postJson(
        `/api/funnels/${funnel.id}/steps`,
        { title: "Extra, cheaper", contentId: extraId, price: 19 },
        cookie,
      )
    ).json<Step>();
    expect(atOfferPrice.price).toBe(19);
    // Chosen for a step, the item is still listed and still sells on its own paywall.
    expect((await listed(cookie)).map((i) => i.id)).toContain(extraId);
    expect(
      (await postJson("/api/create-payment-intent", { contentId: extraId, buyerEmail: "x@example.com" })).status,
    ).toBe(200);
  });

  it("a step made with a new item (title, price, link) is upsell-only; one with neither an item nor a price id is a 400 naming the field", async () => {
    const cookie = await signIn("steps2@example.com");
    const funnel = await (await forItem(await item(cookie, "Main"), cookie)).json<Funnel>();
    const newItem = await item(cookie, "Bonus pack", "7");
    const step = await (
      await postJson(
        `/api/funnels/${funnel.id}/steps`,
        { title: "Bonus pack", contentId: newItem, price: "7", upsellOnly: true },
        cookie,
      )
    ).json<Step>();
    expect(step.price).toBe(7);
    expect((await row<{ is_upsell: number }>("select is_upsell from content where id = ?", newItem))?.is_upsell).toBe(
      1,
    );
    const bare = await postJson(`/api/funnels/${funnel.id}/steps`, { title: "Nothing" }, cookie);
    expect(bare.status).toBe(400);
    expect((await bare.json<{ message: string }>()).message).toBe(
      "contentId: Choose one of your items, or create one for this step",
    );
    const badPrice = await postJson(
      `/api/funnels/${funnel.id}/steps`,
      { title: "X", contentId: newItem, price: "-3" },
      cookie,
    );
    expect(badPrice.status).toBe(400);
    expect((await badPrice.json<{ message: string }>()).message).toMatch(/^price must be/);
  });

  it("a raw price id from the client is taken only when it is the creator's own", async () => {
    const cookie = await signIn("steps3@example.com");
    const other = await signIn("steps4@example.com");
    const funnel = await (await forItem(await item(cookie, "Main"), cookie)).json<Funnel>();
    const extra = await item(cookie, "Extra");
    const theirs = await (
      await postJson("/api/stripe/create-upsell-product", { name: "Theirs", price: 9 }, other)
    ).json<{ priceId: string }>();
    expect(
      (
        await postJson(
          `/api/funnels/${funnel.id}/steps`,
          { title: "Steal", contentId: extra, offerPriceId: theirs.priceId },
          cookie,
        )
      ).status,
    ).toBe(400);
    const mine = await (await postJson("/api/stripe/create-upsell-product", { name: "Mine", price: 3 }, cookie)).json<{
      priceId: string;
    }>();
    const ok = await postJson(
      `/api/funnels/${funnel.id}/steps`,
      { title: "Mine", contentId: extra, offerPriceId: mine.priceId },
      cookie,
    );
    expect(ok.status).toBe(201);
    expect((await ok.json<Step>()).price).toBe(3);
  });
});

describe("one status", () => {
  it("the list, a new funnel and the Test/Live switch all answer the same status", async () => {
    const cookie = await signIn("status@example.com");
    const made = await (await postJson("/api/funnels", { name: "F" }, cookie)).json<Funnel>();
    expect(made.status).toBe("test");
    expect((await (await call("/api/funnels", { cookie })).json<Funnel[]>())[0].status).toBe("test");
    const live = await (await json("PATCH", `/api/funnels/${made.id}`, { testMode: false }, cookie)).json<Funnel>();
    expect(live.status).toBe("live");
    expect((await (await call("/api/funnels", { cookie })).json<Funnel[]>())[0].status).toBe("live");
  });
});

describe("the order's figures are what was charged", () => {
  it("the offer page confirms the first payment, each accept answers what it charged and the running total; the order's total is the sum charged", async () => {
    const { mainId, first, second } = await liveFunnel("order@example.com");
    const { buyerCookie, purchaseId } = await paidBuyer(mainId);
    const state = await (await call(`/api/upsell/offer?purchaseId=${purchaseId}`, { cookie: buyerCookie })).json<{
      offer: { stepId: string; price: number };
      order: Order;
    }>();
    expect(state.offer).toMatchObject({ stepId: first.id, price: 19 });
    expect(state.order).toMatchObject({ first: { title: "Main course", amount: 12 }, added: [], total: 12 });
    expect(state.order.first.accessUrl).toContain("access=");

    const accepted = await (await postJson("/api/upsell/accept", { purchaseId, stepId: first.id }, buyerCookie)).json<{
      status: string;
      purchaseId: string;
      order: Order;
      next: { stepId: string };
    }>();
    expect(accepted.status).toBe("paid");
    expect(accepted.next.stepId).toBe(second.id);
    expect(accepted.order.added).toEqual([{ purchaseId: accepted.purchaseId, title: "Workbook", amount: 19 }]);
    expect(accepted.order.total).toBe(31);
    const charged = await row<{ amount_cents: number }>(
      "select amount_cents from purchases where id = ?",
      accepted.purchaseId,
    );
    expect(charged?.amount_cents).toBe(1900);

    await postJson("/api/upsell/decline", { purchaseId, stepId: second.id }, buyerCookie);
    const order = await (await call(`/api/upsell/order?purchaseId=${purchaseId}`, { cookie: buyerCookie })).json<{
      items: unknown[];
      order: Order;
    }>();
    expect(order.items).toHaveLength(1);
    expect(order.order.total).toBe(31);
  });
});

describe("an item is sold once per order", () => {
  it("a step whose item this order already holds (the same item in two steps, or the order's own item) is skipped, never charged twice", async () => {
    const { cookie, mainId, funnel, first, workbookId } = await liveFunnel("twice@example.com");
    // The creator adds the workbook again (a step re-added after an edit), and the main item itself.
    const again = await (
      await postJson(
        `/api/funnels/${funnel.id}/steps`,
        { title: "Workbook, again", contentId: workbookId, price: "9" },
        cookie,
      )
    ).json<Step>();
    await postJson(
      `/api/funnels/${funnel.id}/steps`,
      { title: "Main course, again", contentId: mainId, price: "5" },
      cookie,
    );
    const { buyerCookie, purchaseId } = await paidBuyer(mainId);
    const shown = await (await call(`/api/upsell/offer?purchaseId=${purchaseId}`, { cookie: buyerCookie })).json<{
      offer: { stepId: string };
    }>();
    expect(shown.offer.stepId).toBe(first.id);
    const accepted = await (await postJson("/api/upsell/accept", { purchaseId, stepId: first.id }, buyerCookie)).json<{
      next: { stepId: string } | null;
    }>();
    // Next is the stickers step; after it, neither the workbook again nor the main course.
    expect(accepted.next?.stepId).not.toBe(again.id);
    const declined = await (
      await postJson("/api/upsell/decline", { purchaseId, stepId: accepted.next!.stepId }, buyerCookie)
    ).json<{ next: unknown }>();
    expect(declined.next).toBeNull();
    const offer = await call(`/api/upsell/offer?purchaseId=${purchaseId}`, { cookie: buyerCookie });
    expect(((await offer.json()) as { offer: unknown }).offer ?? null).toBeNull();
    const tryAgain = await postJson("/api/upsell/accept", { purchaseId, stepId: again.id }, buyerCookie);
    expect(tryAgain.status).toBe(409);
    expect(
      await rows(
        "select id from purchases where content_id = ? and buyer_email = 'fan@example.com' and status = 'paid'",
        workbookId,
      ),
    ).toHaveLength(1);
  });
});

describe("figures agree", () => {
  it("an upsell's sale and revenue are on its own item's row, rows add up to the totals, conversion counts only paywall sales, step revenue is gross and net", async () => {
    const { cookie, mainId, workbookId, funnel, first } = await liveFunnel("figures@example.com");
    const day = new Date().toISOString().slice(0, 10);
    await env.DB.prepare("insert into content_views_daily (content_id, day, views) values (?, ?, 4)")
      .bind(mainId, day)
      .run();
    const { buyerCookie, purchaseId } = await paidBuyer(mainId);
    await call(`/api/upsell/offer?purchaseId=${purchaseId}`, { cookie: buyerCookie });
    expect((await postJson("/api/upsell/accept", { purchaseId, stepId: first.id }, buyerCookie)).status).toBe(200);

    const stats = await (await call("/api/analytics/stats?days=7", { cookie })).json<{
      totals: { sales: number; revenue: number; views: number; conversion: number };
      items: {
        contentId: string;
        sales: number;
        revenue: number;
        conversion: number;
        offers: number;
        upsells: number;
      }[];
    }>();
    const main = stats.items.find((i) => i.contentId === mainId)!;
    const workbook = stats.items.find((i) => i.contentId === workbookId);
    // Main: $12 at 80% = $9.60; the upsell: $19 at 80% = $15.20, on the Workbook's row. Its buyer saw
    // both offers (the second after accepting the first); both count on the item that led to them.
    expect(main).toMatchObject({ sales: 1, revenue: 9.6, offers: 2, upsells: 1, conversion: 25 });
    expect(workbook).toMatchObject({ sales: 1, revenue: 15.2, conversion: 0 });
    expect(stats.totals.revenue).toBe(24.8);
    expect(Math.round(stats.items.reduce((t, i) => t + i.revenue, 0) * 100) / 100).toBe(stats.totals.revenue);
    // 1 paywall sale out of 4 views: the upsell had no paywall view.
    expect(stats.totals).toMatchObject({ sales: 2, views: 4, conversion: 25 });

    const steps = await (await call(`/api/funnels/${funnel.id}/steps`, { cookie })).json<Step[]>();
    expect(steps[0].figures).toMatchObject({ revenue: 19, net: 15.2 });
    expect(
      await rows(
        "select 1 from ledger_entries where purchase_id in (select id from purchases where funnel_step_id = ?) and kind not in ('stripe_fee', 'dispute_fee')",
        first.id,
      ),
    ).toHaveLength(2);
  });
});
