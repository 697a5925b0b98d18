// A creator edits a live item without breaking its link: every field, a replaced file through the
// resumable upload, unpublish/republish; upsell-only items are listed and their paywall is sound.
import { describe, expect, it } from "vitest";
import { PAYWALL_TEXT } from "../../../shared/paywall";
import {
  call,
  checkout,
  confirmAsStripeJs,
  contentForm,
  deliver,
  env,
  eventFor,
  PNG_1X1,
  postForm,
  postJson,
  row,
  signIn,
  standin,
} from "../support/helpers";

type Item = {
  id: string;
  title: string;
  description: string;
  price: number;
  pricingModel: string;
  minimumPrice: number | null;
  category: string;
  accessType: string;
  fileName: string | null;
  previewImage: string | null;
  linkUrl: string | null;
  textContent: string | null;
  upsellOnly: boolean;
  published: boolean;
};

const patch = (id: string, body: unknown, cookie?: string) =>
  call(`/api/content/${id}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    cookie,
  });
const setPublished = (id: string, published: boolean, cookie?: string) =>
  call(`/api/content/${id}/published`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ published }),
    cookie,
  });

async function publish(cookie: string, fields: Record<string, string | Blob> = {}) {
  const res = await postForm(
    "/api/content",
    contentForm({
      title: "Field notes",
      price: "5",
      file: new File([new Uint8Array(2000).fill(1)], "v1.bin", { type: "application/octet-stream" }),
      ...fields,
    }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return res.json<Item>();
}

/** A finished one-part upload of `bytes`, as the resumable upload makes it. */
async function upload(cookie: string, name: string, bytes: Uint8Array) {
  const up = await (
    await postJson(
      "/api/uploads",
      { fileName: name, size: bytes.length, contentType: "application/octet-stream" },
      cookie,
    )
  ).json<{ id: string }>();
  expect(
    (
      await call(`/api/uploads/${up.id}/parts/1`, {
        method: "PUT",
        body: bytes,
        cookie,
        headers: { "content-length": String(bytes.length) },
      })
    ).status,
  ).toBe(200);
  expect((await call(`/api/uploads/${up.id}/complete`, { method: "POST", cookie })).status).toBe(200);
  return up.id;
}

const page = async (id: string) => {
  const res = await call(`/p/${id}`);
  return { status: res.status, cache: res.headers.get("x-paywall-cache"), html: await res.text() };
};
const mine = async (cookie: string, id: string) =>
  (await (await call("/api/content", { cookie })).json<Item[]>()).find((i) => i.id === id);
const pay = async (paymentIntent: string) => deliver(await eventFor("payment_intent.succeeded", paymentIntent));
const download = async (contentId: string, buyerCookie: string) => {
  const res = await call(`/api/content/${contentId}/download`, { method: "POST", cookie: buyerCookie });
  expect(res.status).toBe(200);
  const file = await call((await res.json<{ url: string }>()).url);
  return {
    status: file.status,
    bytes: new Uint8Array(await file.arrayBuffer()),
    disposition: file.headers.get("content-disposition"),
  };
};

describe("editing a live item", () => {
  it("title, description, price and category change in place, and the cached paywall shows them at once", async () => {
    const cookie = await signIn("edit-fields@example.com");
    const item = await publish(cookie, { description: "Old words", category: "document" });
    expect((await page(item.id)).html).toContain("Field notes");
    expect((await page(item.id)).cache).toBe("HIT");

    const res = await patch(
      item.id,
      { title: "Field notes, 2nd ed.", description: "New words", price: "7.50", category: "template" },
      cookie,
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: item.id,
      title: "Field notes, 2nd ed.",
      description: "New words",
      price: 7.5,
      category: "template",
      fileName: "v1.bin",
    });

    const after = await page(item.id);
    expect(after.status).toBe(200);
    expect(after.html).toContain("Field notes, 2nd ed.");
    expect(after.html).toContain("New words");
    expect(after.html).toContain("$7.50");
    expect(after.html).not.toContain("Old words");
    expect(await (await call(`/api/content/${item.id}`)).json()).toMatchObject({
      title: "Field notes, 2nd ed.",
      price: 7.5,
    });
  });

  it("switches to pay-what-you-want with a minimum and back to a fixed price; a minimum is required", async () => {
    const cookie = await signIn("edit-pwyw@example.com");
    const item = await publish(cookie);
    const missing = await patch(item.id, { pricingModel: "pay_what_you_want", minimumPrice: "" }, cookie);
    expect(missing.status).toBe(400);
    expect((await missing.json<{ message: string }>()).message).toBe(
      "Please set a minimum price for pay-what-you-want content",
    );

    expect(
      await (await patch(item.id, { pricingModel: "pay_what_you_want", minimumPrice: "3" }, cookie)).json(),
    ).toMatchObject({ pricingModel: "pay_what_you_want", minimumPrice: 3, price: 3 });
    expect((await page(item.id)).html).toContain("Name your price");
    expect(await (await patch(item.id, { pricingModel: "fixed", price: "12" }, cookie)).json()).toMatchObject({
      pricingModel: "fixed",
      minimumPrice: null,
      price: 12,
    });
  });

  it("a link item's link and a text item's text change; a link that is not http(s) is refused", async () => {
    const cookie = await signIn("edit-link@example.com");
    const link = await publish(cookie, { accessType: "link", linkUrl: "https://example.com/old", file: "" });
    expect((await patch(link.id, { linkUrl: "javascript:alert(1)" }, cookie)).status).toBe(400);
    expect(await (await patch(link.id, { linkUrl: "https://example.com/new" }, cookie)).json()).toMatchObject({
      linkUrl: "https://example.com/new",
    });

    const text = await publish(cookie, { accessType: "view", textContent: "Old secret", file: "" });
    expect(await (await patch(text.id, { textContent: "New secret" }, cookie)).json()).toMatchObject({
      textContent: "New secret",
    });
    // Still never shown before paying.
    expect((await page(text.id)).html).not.toContain("New secret");
  });

  it("a replaced preview image gets a new address and the old object is removed; null removes the image", async () => {
    const cookie = await signIn("edit-preview@example.com");
    const item = await publish(cookie, { previewImage: new File([PNG_1X1], "a.png", { type: "image/png" }) });
    const oldKey = (await row<{ k: string }>("select preview_image_key as k from content where id = ?", item.id))!.k;
    const dataUrl = `data:image/png;base64,${btoa(String.fromCharCode(...PNG_1X1))}`;
    const edited = await (await patch(item.id, { previewImage: dataUrl }, cookie)).json<Item>();
    expect(edited.previewImage).not.toBe(item.previewImage);
    expect((await call(edited.previewImage!)).status).toBe(200);
    expect(await env.FILES.head(oldKey)).toBeNull();
    expect((await page(item.id)).html).toContain(edited.previewImage!);

    const bad = await patch(item.id, { previewImage: "data:text/plain;base64,aGk=" }, cookie);
    expect(bad.status).toBe(400);
    expect(await (await patch(item.id, { previewImage: null }, cookie)).json()).toMatchObject({ previewImage: null });
  });

  it("a preview image of a few hundred KB and a long text go through the edit (the JSON body's 64 KB cap does not apply)", async () => {
    const cookie = await signIn("edit-big@example.com");
    const item = await publish(cookie, { accessType: "view", textContent: "short", file: "" });
    // A PNG with 300 KB after its end: still a PNG by its header.
    const bytes = new Uint8Array(PNG_1X1.length + 300_000);
    bytes.set(PNG_1X1);
    let binary = "";
    for (const b of bytes) binary += String.fromCharCode(b);
    const text = "A long secret. ".repeat(6000);
    const res = await patch(
      item.id,
      { previewImage: `data:image/png;base64,${btoa(binary)}`, textContent: text },
      cookie,
    );
    expect(res.status).toBe(200);
    const edited = await res.json<Item>();
    expect(edited.textContent).toBe(text);
    expect(Number((await call(edited.previewImage!)).headers.get("content-length"))).toBe(bytes.length);
  });

  it("someone else's item cannot be edited, unpublished or republished (404), and stays as it was", async () => {
    const owner = await signIn("edit-owner@example.com");
    const item = await publish(owner);
    const other = await signIn("edit-intruder@example.com");
    expect((await patch(item.id, { title: "Mine now" }, other)).status).toBe(404);
    expect((await setPublished(item.id, false, other)).status).toBe(404);
    expect((await patch(item.id, { title: "Mine now" })).status).toBe(401);
    expect(await (await call(`/api/content/${item.id}`)).json()).toMatchObject({
      title: "Field notes",
      availability: "on_sale",
    });
  });

  it("a price change applies to checkouts started after it; one started before keeps its amount and is fulfilled at it", async () => {
    const cookie = await signIn("edit-price@example.com");
    const item = await publish(cookie);
    const before = await checkout(item.id, { card: "none" });
    expect((await patch(item.id, { price: "9" }, cookie)).status).toBe(200);
    const after = await checkout(item.id, { card: "none" });

    const amountOf = async (pi: string) =>
      (await standin<{ amount: number }>("GET", `/v1/payment_intents/${pi}`)).body.amount;
    expect(await amountOf(before.paymentIntent)).toBe(500);
    expect(await amountOf(after.paymentIntent)).toBe(900);

    // The earlier checkout pays its own amount and the purchase is paid at it.
    const confirmed = await confirmAsStripeJs(before.clientSecret);
    expect(confirmed.status).toBe(200);
    await pay(before.paymentIntent);
    expect(
      await row("select status, amount_cents from purchases where payment_intent_id = ?", before.paymentIntent),
    ).toEqual({ status: "paid", amount_cents: 500 });
  });

  it("a file replaced through the resumable upload is what buyers download next; the old object is gone", async () => {
    const cookie = await signIn("edit-file@example.com");
    const item = await publish(cookie);
    const oldKey = (await row<{ k: string }>("select file_key as k from content where id = ?", item.id))!.k;
    const { buyerCookie, paymentIntent } = await checkout(item.id);
    await pay(paymentIntent);
    expect((await download(item.id, buyerCookie)).bytes).toEqual(new Uint8Array(2000).fill(1));

    const v2 = new Uint8Array(3000).fill(2);
    const uploadId = await upload(cookie, "v2.bin", v2);
    const res = await patch(item.id, { uploadId }, cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: item.id, fileName: "v2.bin" });

    const next = await download(item.id, buyerCookie);
    expect(next.status).toBe(200);
    expect(next.bytes).toEqual(v2);
    expect(next.disposition).toContain("v2.bin");
    expect(await env.FILES.head(oldKey)).toBeNull();
    // The same upload cannot be attached a second time elsewhere.
    const another = await publish(cookie);
    expect((await patch(another.id, { uploadId }, cookie)).status).toBe(409);
  });
});

describe("unpublish and republish", () => {
  it("an unpublished item's paywall says it is no longer for sale, checkout refuses it, owners keep access; republished it sells again", async () => {
    const cookie = await signIn("unpublish@example.com");
    const item = await publish(cookie);
    const { buyerCookie, paymentIntent } = await checkout(item.id);
    await pay(paymentIntent);
    expect((await page(item.id)).html).toContain("Unlock");

    const off = await setPublished(item.id, false, cookie);
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ published: false });
    const shown = await page(item.id);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain(PAYWALL_TEXT.unpublished);
    expect(shown.html).not.toContain('data-part="unlock"');

    const refused = await postJson("/api/create-payment-intent", { contentId: item.id });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ message: PAYWALL_TEXT.unpublished });

    // The buyer still owns it and downloads it.
    expect(await (await call(`/api/content/${item.id}/access`, { cookie: buyerCookie })).json()).toMatchObject({
      owned: true,
    });
    expect((await download(item.id, buyerCookie)).status).toBe(200);
    // Still the creator's, marked.
    expect(await mine(cookie, item.id)).toMatchObject({ published: false });

    expect((await setPublished(item.id, true, cookie)).status).toBe(200);
    expect((await page(item.id)).html).not.toContain(PAYWALL_TEXT.unpublished);
    expect(await (await postJson("/api/create-payment-intent", { contentId: item.id })).json()).toHaveProperty(
      "clientSecret",
    );
  });
});

describe("upsell-only items", () => {
  it("are listed for their creator, marked, and their paywall says they are offered only after a purchase (no Payment Error)", async () => {
    const cookie = await signIn("upsell-only@example.com");
    const res = await postForm(
      "/api/content",
      contentForm({
        title: "Workbook",
        price: "15",
        accessType: "link",
        linkUrl: "https://example.com/wb",
        upsellOnly: "true",
      }),
      cookie,
    );
    expect(res.status).toBe(201);
    const item = await res.json<Item>();
    expect(await mine(cookie, item.id)).toMatchObject({ title: "Workbook", upsellOnly: true, published: true });
    const shown = await page(item.id);
    expect(shown.html).toContain(PAYWALL_TEXT.upsellOnly);
    expect(shown.html).not.toContain('data-part="unlock"');
    const refused = await postJson("/api/create-payment-intent", { contentId: item.id });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toEqual({ message: PAYWALL_TEXT.upsellOnly });
    // Manageable like any item.
    expect(await (await patch(item.id, { title: "Workbook 2" }, cookie)).json()).toMatchObject({
      title: "Workbook 2",
      upsellOnly: true,
    });
  });

  it("a funnel step whose creation fails leaves no sellable item behind", async () => {
    const cookie = await signIn("upsell-fail@example.com");
    const funnel = await (await postJson("/api/funnels", { name: "F" }, cookie)).json<{ id: string }>();
    // The editor's flow: the offer's item first, then the step, which fails (an unknown price id).
    const made = await postForm(
      "/api/content",
      contentForm({
        title: "Offer",
        price: "9",
        accessType: "link",
        linkUrl: "https://example.com/o",
        upsellOnly: "true",
      }),
      cookie,
    );
    const offer = await made.json<Item>();
    const step = await postJson(
      `/api/funnels/${funnel.id}/steps`,
      { title: "Offer", offerPriceId: "price_doesnotexist", stepType: "upsell", contentId: offer.id },
      cookie,
    );
    expect(step.status).toBe(400);
    const checkoutAttempt = await postJson("/api/create-payment-intent", { contentId: offer.id });
    expect(checkoutAttempt.status).toBe(409);
  });

  it("an upsell item its creator unpublished is not offered after a purchase", async () => {
    const cookie = await signIn("upsell-unpublished@example.com");
    const main = await publish(cookie, {
      title: "Main",
      accessType: "link",
      linkUrl: "https://example.com/m",
      file: "",
    });
    const offerItem = await (
      await postForm(
        "/api/content",
        contentForm({
          title: "Extra",
          price: "4",
          accessType: "link",
          linkUrl: "https://example.com/x",
          upsellOnly: "true",
        }),
        cookie,
      )
    ).json<Item>();
    const funnel = await (await postJson("/api/funnels", { name: "Main funnel" }, cookie)).json<{ id: string }>();
    expect((await postJson(`/api/funnels/${funnel.id}/products`, { contentIds: [main.id] }, cookie)).status).toBe(200);
    const { priceId } = await (
      await postJson("/api/stripe/create-upsell-product", { name: "Extra", description: "", price: 4 }, cookie)
    ).json<{ priceId: string }>();
    expect(
      (
        await postJson(
          `/api/funnels/${funnel.id}/steps`,
          { title: "Add the extra", offerPriceId: priceId, stepType: "upsell", contentId: offerItem.id },
          cookie,
        )
      ).status,
    ).toBe(201);
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

    const { buyerCookie, paymentIntent } = await checkout(main.id, { email: "fan@example.com" });
    await pay(paymentIntent);
    const purchaseId = (await row<{ id: string }>(
      "select id from purchases where payment_intent_id = ?",
      paymentIntent,
    ))!.id;
    const offerNow = async () =>
      (
        await (
          await call(`/api/upsell/offer?purchaseId=${purchaseId}`, { cookie: buyerCookie })
        ).json<{ offer: { title: string } | null }>()
      ).offer;
    expect(await offerNow()).toMatchObject({ title: "Add the extra" });
    expect((await setPublished(offerItem.id, false, cookie)).status).toBe(200);
    expect(await offerNow()).toBeNull();
  });
});
