// The creator's side of funnels: only the owner's calls, the offer's Stripe product, step order,
// and when checkout saves the card. Behaviour: docs/funnels.md.
import { describe, expect, it } from "vitest";
import { call, checkout, postJson, row, rows, signIn, standin } from "../support/helpers";
import { addStep, funnelSetup, item, json, priceId, stepsOf } from "./funnel-helpers";

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
