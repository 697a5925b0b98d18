// Discount codes hold only what a buyer could do by hand: a checkout started again in the same
// browser (the bump ticked, the code applied again) carries its code's use over; a checkout without
// an email holds it briefly; a browser holds at most a few uses of a code; the paywall's ?code= is
// rate-limited and says the same "This code isn't valid" for every code it cannot use.
import { describe, expect, it } from "vitest";
import type { DiscountCode } from "../../../shared/discounts";
import {
  call,
  confirmAsStripeJs,
  contentForm,
  cookieValue,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  signIn,
} from "../support/helpers";

async function item(cookie: string, title: string, price = "10") {
  const res = await postForm(
    "/api/content",
    contentForm({ title, price, accessType: "link", linkUrl: `https://example.com/${encodeURIComponent(title)}` }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}
async function code(cookie: string, body: Record<string, unknown>): Promise<DiscountCode> {
  const res = await postJson("/api/discounts", body, cookie);
  if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
  return res.json<DiscountCode>();
}
/** Starts a checkout as the paywall does; `browser` is the aw_buyer cookie of an earlier answer (else a new browser). */
async function start(contentId: string, body: Record<string, unknown>, browser?: string) {
  const res = await postJson("/api/create-payment-intent", { contentId, ...body }, browser);
  const json = await res.clone().json<{ clientSecret?: string; amount?: number; message?: string }>();
  return { status: res.status, ...json, browser: browser ?? `aw_buyer=${cookieValue(res, "aw_buyer")}` };
}
const listed = async (cookie: string, text: string) =>
  (await (await call("/api/discounts", { cookie })).json<DiscountCode[]>()).find((c) => c.code === text)!;
const ageHolds = (text: string, minutes: number) =>
  env.DB.prepare(
    "update discount_redemptions set created_at = created_at - ? where code_id in (select id from discount_codes where code = ?)",
  )
    .bind(minutes * 60_000, text)
    .run();

describe("a code's held uses", () => {
  it("a one-use code works with the order bump: ticking it (and unticking, applying the code again) moves the hold, never takes a second", async () => {
    const cookie = await signIn("holds-bump@example.com");
    const main = await item(cookie, "Guide");
    const addOn = await item(cookie, "Workbook", "12");
    expect(
      (
        await call(`/api/content/${main}/bump`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ contentId: addOn, price: "4" }),
          cookie,
        })
      ).status,
    ).toBe(200);
    await code(cookie, { code: "SOLO", kind: "fixed", amountOff: 2, maxUses: 1 });
    const email = "holds-bump-buyer@example.com";

    const first = await start(main, { discountCode: "solo", buyerEmail: email });
    expect(first).toMatchObject({ status: 200, amount: 8 });
    const ticked = await start(main, { discountCode: "SOLO", bump: true, buyerEmail: email }, first.browser);
    expect(ticked).toMatchObject({ status: 200, amount: 12 });
    const unticked = await start(main, { discountCode: "SOLO", buyerEmail: email }, first.browser);
    expect(unticked).toMatchObject({ status: 200, amount: 8 });
    const again = await start(main, { discountCode: "SOLO", bump: true, buyerEmail: email }, first.browser);
    expect(again).toMatchObject({ status: 200, amount: 12 });
    expect(await listed(cookie, "SOLO")).toMatchObject({ uses: 0, held: 1, status: "used_up" });
    // Still one use: another browser is refused while it is held.
    expect(await start(main, { discountCode: "SOLO", buyerEmail: "someone-else@example.com" })).toMatchObject({
      status: 409,
      message: "This code has been used up",
    });

    // Paid: one use.
    expect((await confirmAsStripeJs(again.clientSecret!, undefined, { receipt_email: email })).status).toBe(200);
    expect(
      (await deliver(await eventFor("payment_intent.succeeded", again.clientSecret!.split("_secret_")[0]))).status,
    ).toBe(200);
    expect(await listed(cookie, "SOLO")).toMatchObject({ uses: 1, held: 0, revenue: 8, status: "used_up" });
  });

  it("a checkout without an email holds its use five minutes; with one, thirty", async () => {
    const cookie = await signIn("holds-email@example.com");
    const id = await item(cookie, "Notes");
    await code(cookie, { code: "LAPSE", kind: "percent", percentOff: 10, maxUses: 1 });
    expect(await start(id, { discountCode: "LAPSE" })).toMatchObject({ status: 200, amount: 9 });
    expect((await start(id, { discountCode: "LAPSE", buyerEmail: "second@example.com" })).status).toBe(409);
    await ageHolds("LAPSE", 6);
    // The first checkout never gave an address: its hold has lapsed.
    expect(await start(id, { discountCode: "LAPSE", buyerEmail: "second@example.com" })).toMatchObject({
      status: 200,
      amount: 9,
    });
    await ageHolds("LAPSE", 6);
    expect(await start(id, { discountCode: "LAPSE", buyerEmail: "third@example.com" })).toMatchObject({
      status: 409,
      message: "This code has been used up",
    });
  });

  it("a browser holds at most three uses of one code at a time", async () => {
    const cookie = await signIn("holds-browser@example.com");
    const items = [
      await item(cookie, "One"),
      await item(cookie, "Two"),
      await item(cookie, "Three"),
      await item(cookie, "Four"),
    ];
    await code(cookie, { code: "MANY", kind: "percent", percentOff: 50 });
    const first = await start(items[0], { discountCode: "MANY", buyerEmail: "a@example.com" });
    expect(first.status).toBe(200);
    for (const [i, email] of [
      [1, "b@example.com"],
      [2, "c@example.com"],
    ] as const)
      expect((await start(items[i], { discountCode: "MANY", buyerEmail: email }, first.browser)).status).toBe(200);
    expect(await start(items[3], { discountCode: "MANY", buyerEmail: "d@example.com" }, first.browser)).toMatchObject({
      status: 409,
      message:
        "This code is already held by your other open checkouts. Finish one of them, or try again in a few minutes.",
    });
    // Starting one of its checkouts again is not a fourth; another browser is not limited by this one.
    expect((await start(items[0], { discountCode: "MANY", buyerEmail: "a@example.com" }, first.browser)).status).toBe(
      200,
    );
    expect((await start(items[3], { discountCode: "MANY", buyerEmail: "d@example.com" })).status).toBe(200);
  });
});

describe("a code's limit per buyer", () => {
  it("counts a use by the same browser under another email", async () => {
    const cookie = await signIn("holds-per-buyer@example.com");
    const id = await item(cookie, "Once each");
    await code(cookie, { code: "EACH", kind: "percent", percentOff: 20, maxUsesPerBuyer: 1 });
    const first = await start(id, { discountCode: "EACH", buyerEmail: "first-address@example.com" });
    expect(first).toMatchObject({ status: 200, amount: 8 });
    expect(
      (await confirmAsStripeJs(first.clientSecret!, undefined, { receipt_email: "first-address@example.com" })).status,
    ).toBe(200);
    expect(
      (await deliver(await eventFor("payment_intent.succeeded", first.clientSecret!.split("_secret_")[0]))).status,
    ).toBe(200);
    // Another of the creator's items (this browser owns the first), the same code.
    const next = await item(cookie, "Once each, two");
    expect(
      await start(next, { discountCode: "EACH", buyerEmail: "second-address@example.com" }, first.browser),
    ).toMatchObject({ status: 409, message: "You have already used this code" });
    expect(await start(next, { discountCode: "EACH", buyerEmail: "second-address@example.com" })).toMatchObject({
      status: 200,
      amount: 8,
    });
  });
});

describe("?code= on the paywall page", () => {
  it("says 'This code isn't valid' for every code it cannot use, whatever the reason", async () => {
    const cookie = await signIn("page-codes@example.com");
    const id = await item(cookie, "Page item");
    const other = await item(cookie, "Other item");
    const stranger = await signIn("page-codes-other@example.com");
    await code(stranger, { code: "THEIRS", kind: "percent", percentOff: 50 });
    await code(cookie, { code: "ELSEWHERE", kind: "percent", percentOff: 10, contentId: other });
    const ended = await code(cookie, { code: "ARCHIVED", kind: "percent", percentOff: 10 });
    expect((await postJson(`/api/discounts/${ended.id}/archive`, {}, cookie)).status).toBe(200);
    await code(cookie, {
      code: "EXPIRED",
      kind: "percent",
      percentOff: 10,
      expiresOn: new Date(Date.now() + 86400000).toISOString().slice(0, 10),
    });
    await env.DB.prepare("update discount_codes set expires_at = ? where code = 'EXPIRED'")
      .bind(Date.now() - 1000)
      .run();
    await code(cookie, { code: "GONE", kind: "percent", percentOff: 10, maxUses: 1 });
    expect((await start(id, { discountCode: "GONE", buyerEmail: "gone@example.com" })).status).toBe(200);

    for (const text of ["NOPE", "THEIRS", "ELSEWHERE", "ARCHIVED", "EXPIRED", "GONE"]) {
      const html = await (await call(`/p/${id}?code=${text}`)).text();
      expect(html, text).toContain(`Code ${text}: This code isn&#39;t valid`);
      expect(html, text).not.toContain("paywall-list-price");
    }
  });

  it("is rate-limited per address like the API's quote, with Retry-After, and still shows the item", async () => {
    const cookie = await signIn("page-codes-limit@example.com");
    const id = await item(cookie, "Limited");
    const from = { "cf-connecting-ip": "203.0.113.91" };
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await call(`/p/${id}?code=GUESS${i}`, { headers: from })).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).toBe(true);
    const limited = await call(`/p/${id}?code=GUESS99`, { headers: from });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await limited.text()).toContain("Too many requests. Please wait a minute and try again.");
    // The API's quote shares the budget; the page without a code is not limited.
    expect((await call(`/api/content/${id}/discount?code=GUESS`, { headers: from })).status).toBe(429);
    expect((await call(`/p/${id}`, { headers: from })).status).toBe(200);
  });
});
