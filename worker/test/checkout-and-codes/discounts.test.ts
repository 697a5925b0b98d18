// Discount codes: the price the paywall shows for ?code= is the price charged, computed by
// the server; limits hold under concurrent checkouts; the ledger splits what was paid; a full refund
// frees its use; every code belongs to its creator.
import { describe, expect, it } from "vitest";
import type { DiscountCode } from "../../../shared/discounts";
import type { AnalyticsStats } from "../../../shared/analytics";
import type { Sale } from "../../../shared/earnings";
import {
  call,
  confirmAsStripeJs,
  contentForm,
  deliver,
  env,
  eventFor,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
} from "../support/helpers";

async function creatorWithItem(email: string, fields: Record<string, string> = {}) {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({
      title: "Field Guide",
      price: "10",
      accessType: "link",
      linkUrl: "https://example.com/guide",
      ...fields,
    }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return { cookie, item: await res.json<{ id: string }>() };
}
const createCode = (cookie: string, body: Record<string, unknown>) => postJson("/api/discounts", body, cookie);
async function code(cookie: string, body: Record<string, unknown>): Promise<DiscountCode> {
  const res = await createCode(cookie, body);
  if (res.status !== 201) throw new Error(`${res.status} ${await res.text()}`);
  return res.json<DiscountCode>();
}
const start = (contentId: string, body: Record<string, unknown> = {}, cookie?: string) =>
  postJson("/api/create-payment-intent", { contentId, ...body }, cookie);
const intentAmount = async (clientSecret: string) =>
  (
    await standin<{ amount: number; metadata: Record<string, string> }>(
      "GET",
      `/v1/payment_intents/${clientSecret.split("_secret_")[0]}`,
    )
  ).body;
const message = async (res: Response) => (await res.json<{ message: string }>()).message;

async function pay(clientSecret: string, email: string) {
  const paymentIntent = clientSecret.split("_secret_")[0];
  expect((await confirmAsStripeJs(clientSecret, undefined, { receipt_email: email })).status).toBe(200);
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  return (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!.id;
}

describe("discount codes", () => {
  it("the price ?code= shows in the HTML, before any script, is the price Stripe is asked to charge", async () => {
    const { cookie, item } = await creatorWithItem("disc-shown@example.com");
    await code(cookie, { code: "spring", kind: "percent", percentOff: 20, contentId: item.id });

    const page = await call(`/p/${item.id}?code=Spring`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/<s [^>]*data-testid="paywall-list-price"[^>]*>\$10\.00<\/s> \$8\.00/);
    expect(html).toContain("Code SPRING: 20% off");
    // The same cached page serves both: one entry per item, the code written in as it streams out.
    const plain = await call(`/p/${item.id}`);
    expect(plain.headers.get("x-paywall-cache")).toBe("HIT");
    expect(await plain.text()).not.toContain("paywall-discount");

    const res = await start(item.id, { discountCode: "spring" });
    expect(res.status).toBe(200);
    const body = await res.json<{
      clientSecret: string;
      amount: number;
      discount: { code: string; amountOff: number };
    }>();
    expect(body).toMatchObject({ amount: 8, discount: { code: "SPRING", amountOff: 2 } });
    expect(await intentAmount(body.clientSecret)).toMatchObject({ amount: 800, metadata: { discountCode: "SPRING" } });

    // Paid: the ledger splits the $8.00 paid (20% fee on the free plan), the sale names the code.
    const purchaseId = await pay(body.clientSecret, "disc-shown-buyer@example.com");
    const ledger = await rows<{ account: string; amount_cents: number }>(
      "select account, amount_cents from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee')",
      purchaseId,
    );
    expect(ledger.reduce((s, l) => s + l.amount_cents, 0)).toBe(800);
    expect(ledger.find((l) => l.account === "creator")?.amount_cents).toBe(640);
    const sales = await (await call("/api/creator/sales", { cookie })).json<Sale[]>();
    expect(sales.find((s) => s.id === purchaseId)).toMatchObject({ amount: 8, discountCode: "SPRING" });
    const stats = await (await call("/api/analytics/stats?days=7", { cookie })).json<AnalyticsStats>();
    expect(stats.codes).toEqual([{ code: "SPRING", sales: 1, revenue: 8, discountGiven: 2 }]);
    const [listed] = await (await call("/api/discounts", { cookie })).json<DiscountCode[]>();
    expect(listed).toMatchObject({ code: "SPRING", uses: 1, held: 0, revenue: 8, discountGiven: 2, status: "active" });
  });

  it("never goes below $0.50 nor below a pay-what-you-want minimum", async () => {
    const { cookie, item } = await creatorWithItem("disc-floor@example.com");
    await code(cookie, { code: "ALMOSTFREE", kind: "fixed", amountOff: "9.80" });
    expect(await (await start(item.id, { discountCode: "almostfree" })).json()).toMatchObject({ amount: 0.5 });

    const pwyw = await postForm(
      "/api/content",
      contentForm({
        title: "Tip jar",
        price: "20",
        pricingModel: "pay_what_you_want",
        minimumPrice: "5",
        accessType: "link",
        linkUrl: "https://example.com/t",
      }),
      cookie,
    );
    const tip = await pwyw.json<{ id: string }>();
    await code(cookie, { code: "HALF", kind: "percent", percentOff: 50, contentId: tip.id });
    expect(await (await start(tip.id, { discountCode: "HALF", customAmount: 30 })).json()).toMatchObject({
      amount: 15,
    });
    expect(await (await start(tip.id, { discountCode: "HALF", customAmount: 8 })).json()).toMatchObject({ amount: 5 });
    // The public quote of a pay-what-you-want item: the code takes its share of what the buyer
    // chooses, so at the minimum it gives nothing.
    expect(await (await call(`/api/content/${tip.id}/discount?code=half`)).json()).toMatchObject({
      code: "HALF",
      label: "50% off",
      pricingModel: "pay_what_you_want",
      minimumPrice: 5,
      price: 5,
    });
  });

  it("refuses codes that do not apply, with the reason beside the field, and charges nothing", async () => {
    const { cookie, item } = await creatorWithItem("disc-refused@example.com");
    const other = await creatorWithItem("disc-refused-other@example.com");
    await code(other.cookie, { code: "THEIRS", kind: "percent", percentOff: 50 });
    const second = await postForm(
      "/api/content",
      contentForm({ title: "Other", price: "10", accessType: "link", linkUrl: "https://example.com/o" }),
      cookie,
    );
    await code(cookie, {
      code: "ONLYOTHER",
      kind: "percent",
      percentOff: 10,
      contentId: (await second.json<{ id: string }>()).id,
    });
    const ended = await code(cookie, { code: "ENDED", kind: "percent", percentOff: 10 });
    expect((await postJson(`/api/discounts/${ended.id}/archive`, {}, cookie)).status).toBe(200);
    await code(cookie, {
      code: "OLD",
      kind: "percent",
      percentOff: 10,
      expiresOn: new Date(Date.now() + 86400000).toISOString().slice(0, 10),
    });
    await pastExpiry("OLD");

    const cases: [string, string][] = [
      ["THEIRS", "discountCode: This code isn't valid"],
      ["NOPE", "discountCode: This code isn't valid"],
      ["ONLYOTHER", "discountCode: This code isn't valid for this item"],
      ["ENDED", "discountCode: This code isn't valid"],
      ["OLD", "discountCode: This code has expired"],
    ];
    const before = await row<{ n: number }>("select count(*) as n from purchases where content_id = ?", item.id);
    for (const [text, expected] of cases) {
      const res = await start(item.id, { discountCode: text });
      expect(res.status, text).toBe(400);
      expect(await message(res)).toBe(expected);
    }
    expect(await row<{ n: number }>("select count(*) as n from purchases where content_id = ?", item.id)).toEqual(
      before,
    );
    // The paywall shows the normal price, and the one answer for any code it cannot use.
    const html = await (await call(`/p/${item.id}?code=old`)).text();
    expect(html).toContain("Code OLD: This code isn&#39;t valid");
    expect(html).not.toContain("paywall-list-price");
    expect(html).toMatch(/data-testid="paywall-price">\s*\$10\.00/);
  });

  it("max uses holds under 40 concurrent checkouts of a 20-use code: exactly 20 get the price", async () => {
    const { cookie, item } = await creatorWithItem("disc-race@example.com");
    await code(cookie, { code: "FIRST20", kind: "percent", percentOff: 25, maxUses: 20 });
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        start(item.id, { discountCode: "FIRST20", buyerEmail: `race${i}@example.com` }),
      ),
    );
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status === 409);
    expect(ok).toHaveLength(20);
    expect(refused).toHaveLength(20);
    expect(await message(refused[0])).toBe("This code has been used up");
    expect(
      await row<{ n: number }>(
        "select count(*) as n from discount_redemptions r join discount_codes d on d.id = r.code_id where d.code = 'FIRST20'",
      ),
    ).toEqual({ n: 20 });
    // Held checkouts count; one that is not paid within the hold gives its use back.
    await ageHolds("FIRST20", 31);
    expect((await start(item.id, { discountCode: "FIRST20" })).status).toBe(200);
  });

  it("limits uses per buyer, and a sale refunded in full frees its use", async () => {
    const { cookie, item } = await creatorWithItem("disc-buyer@example.com");
    await code(cookie, { code: "ONCE", kind: "fixed", amountOff: 3, maxUses: 1, maxUsesPerBuyer: 1 });
    const first = await start(item.id, { discountCode: "ONCE", buyerEmail: "once@example.com" });
    const firstBody = await first.json<{ clientSecret: string; amount: number }>();
    expect(firstBody.amount).toBe(7);
    const again = await start(item.id, { discountCode: "ONCE", buyerEmail: "ONCE@example.com" });
    expect(again.status).toBe(409);
    expect(await message(again)).toBe("You have already used this code");
    const someoneElse = await start(item.id, { discountCode: "ONCE", buyerEmail: "else@example.com" });
    expect(await message(someoneElse)).toBe("This code has been used up");

    const purchaseId = await pay(firstBody.clientSecret, "once@example.com");
    expect(
      (await postJson(`/api/sales/${purchaseId}/refund`, { reason: "requested_by_customer" }, cookie)).status,
    ).toBe(200);
    expect(await row("select status from purchases where id = ?", purchaseId)).toEqual({ status: "refunded" });
    const freed = await start(item.id, { discountCode: "ONCE", buyerEmail: "else@example.com" });
    expect(freed.status).toBe(200);
    expect(await freed.json()).toMatchObject({ amount: 7 });
  });

  it("belongs to its creator: the form's errors name the field, and another creator's code is a 404", async () => {
    const { cookie, item } = await creatorWithItem("disc-owner@example.com");
    const other = await signIn("disc-owner-other@example.com");
    const bad = await createCode(cookie, { code: "X", kind: "percent", percentOff: 0 });
    expect(bad.status).toBe(400);
    expect(await message(bad)).toMatch(/^code: /);
    const badPercent = await createCode(cookie, { code: "ZERO", kind: "percent", percentOff: 0 });
    expect(await message(badPercent)).toBe("percentOff: Percent off must be a whole number from 1 to 100");
    const mine = await code(cookie, { code: "MINE", kind: "percent", percentOff: 10, contentId: item.id });
    const dup = await createCode(cookie, { code: "mine", kind: "percent", percentOff: 5 });
    expect(dup.status).toBe(409);
    expect(await message(dup)).toBe("code: You already have a code with this name");
    // Another creator may use the same name, cannot see or end this one, nor make one for this item.
    expect((await createCode(other, { code: "MINE", kind: "percent", percentOff: 5 })).status).toBe(201);
    expect(
      (await createCode(other, { code: "YOURS", kind: "percent", percentOff: 5, contentId: item.id })).status,
    ).toBe(404);
    expect((await postJson(`/api/discounts/${mine.id}/archive`, {}, other)).status).toBe(404);
    expect((await (await call("/api/discounts", { cookie: other })).json<DiscountCode[]>()).map((c) => c.code)).toEqual(
      ["MINE"],
    );
    expect((await call("/api/discounts")).status).toBe(401);
  });
});

// ---- the clock: a code's expiry, or its holds, moved into the past ----
const pastExpiry = (text: string) =>
  env.DB.prepare("update discount_codes set expires_at = ? where code = ?")
    .bind(Date.now() - 1000, text)
    .run();
const ageHolds = (text: string, minutes: number) =>
  env.DB.prepare(
    "update discount_redemptions set created_at = created_at - ? where code_id in (select id from discount_codes where code = ?)",
  )
    .bind(minutes * 60_000, text)
    .run();
