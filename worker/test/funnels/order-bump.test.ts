// The order bump: an item's one add-on, ticked at checkout. One PaymentIntent charges the
// total; two purchases each get their own access, ledger rows and refunds; one receipt lists both.
// Refunds and disputes of the one charge are split between the two (purchases/states.ts
// `attributeToOrder`), whatever the order and number of Stripe's events.
import { describe, expect, it } from "vitest";
import type { PublicContent } from "../../../shared/content";
import type { PurchaseVerification } from "../../../shared/payments";
import type { AnalyticsStats } from "../../../shared/analytics";
import type { RefundRequestResult, Sale } from "../../../shared/earnings";
import type Stripe from "stripe";
import { attributeToOrder } from "../../services/purchases/states";
import {
  call,
  CARDS,
  confirmAsStripeJs,
  contentForm,
  cookieValue,
  deliver,
  eventFor,
  outbox,
  postForm,
  postJson,
  row,
  rows,
  signIn,
  standin,
  waitForMail,
} from "../support/helpers";

type Ev = { id: string; type: string; data: { object: { id: string; payment_intent?: string; charge?: string } } };

async function item(cookie: string, title: string, price: string) {
  const res = await postForm(
    "/api/content",
    contentForm({ title, price, accessType: "link", linkUrl: `https://example.com/${encodeURIComponent(title)}` }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return (await res.json<{ id: string }>()).id;
}

const putBump = (itemId: string, body: unknown, cookie: string) =>
  call(`/api/content/${itemId}/bump`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    cookie,
  });

/** A creator with a $10 "Guide" whose add-on is their $12 "Workbook" at $4. */
async function creatorWithBump(email: string) {
  const cookie = await signIn(email);
  const main = await item(cookie, "Guide", "10");
  const addOn = await item(cookie, "Workbook", "12");
  const res = await putBump(main, { contentId: addOn, price: "4" }, cookie);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ bump: { contentId: addOn, price: 4 } });
  return {
    cookie,
    main,
    addOn,
    creatorId: (await row<{ user_id: string }>("select user_id from content where id = ?", main))!.user_id,
  };
}

/** Starts a checkout as the paywall would (bump ticked or not) and pays it through the stand-in. */
async function buy(
  contentId: string,
  opts: { bump?: boolean; email?: string; pay?: boolean; buyerCookie?: string } = {},
) {
  const res = await postJson(
    "/api/create-payment-intent",
    { contentId, bump: opts.bump ?? true, buyerEmail: opts.email ?? "" },
    opts.buyerCookie,
  );
  expect(res.status, await res.clone().text()).toBe(200);
  const body = await res.json<{ clientSecret: string; amount: number; bump?: { title: string; amount: number } }>();
  const buyerCookie = opts.buyerCookie ?? `aw_buyer=${cookieValue(res, "aw_buyer")}`;
  const paymentIntent = body.clientSecret.split("_secret_")[0];
  if (opts.pay !== false)
    expect(
      (await confirmAsStripeJs(body.clientSecret, CARDS.ok, { receipt_email: opts.email ?? "bump-buyer@example.com" }))
        .status,
    ).toBe(200);
  const main = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!.id;
  const bump = (await row<{ id: string }>("select id from purchases where bump_of = ?", main))?.id ?? null;
  return { body, buyerCookie, paymentIntent, main, bump };
}

const paid = async (paymentIntent: string) =>
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
const chargeOf = async (paymentIntent: string) =>
  (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body.latest_charge;
const statusOf = async (purchaseId: string) =>
  (await row<{ status: string }>("select status from purchases where id = ?", purchaseId))!.status;
const net = async (purchaseId: string) => {
  const l = await rows<{ account: string; amount_cents: number }>(
    "select account, amount_cents from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee')",
    purchaseId,
  );
  const sum = (a: string) => l.filter((e) => e.account === a).reduce((s, e) => s + e.amount_cents, 0);
  return { creator: sum("creator"), platform: sum("platform") };
};
const ledgerCount = async () => (await row<{ n: number }>("select count(*) as n from ledger_entries"))!.n;
const owned = async (itemId: string, buyerCookie: string) =>
  (await (await call(`/api/content/${itemId}/access`, { cookie: buyerCookie })).json<{ owned: boolean }>()).owned;
const sale = async (cookie: string, purchaseId: string) =>
  (await (await call("/api/creator/sales", { cookie })).json<Sale[]>()).find((s) => s.id === purchaseId)!;

async function eventsOf(charge: string, paymentIntent: string, types: string[]): Promise<Ev[]> {
  const { body } = await standin<{ data: Ev[] }>("GET", "/v1/events", { limit: "100" });
  return body.data
    .filter(
      (e) =>
        types.includes(e.type) &&
        [e.data.object.charge, e.data.object.payment_intent, e.data.object.id].some(
          (v) => v === charge || v === paymentIntent,
        ),
    )
    .reverse();
}
const REFUND_EVENTS = ["charge.refunded", "charge.refund.updated", "refund.updated", "refund.failed"];
const DISPUTE_EVENTS = [
  "charge.dispute.created",
  "charge.dispute.updated",
  "charge.dispute.funds_withdrawn",
  "charge.dispute.funds_reinstated",
  "charge.dispute.closed",
];

describe("setting an order bump", () => {
  it("the creator picks another of their items and a price; the paywall offers it, and removing it takes it off", async () => {
    const { cookie, main, addOn } = await creatorWithBump("bump-set@example.com");
    const page = await (await call(`/api/content/${main}`)).json<PublicContent>();
    expect(page.bump).toEqual({ id: addOn, title: "Workbook", price: 4 });
    const mine = await (await call("/api/content", { cookie })).json<{ id: string; bump: unknown }[]>();
    expect(mine.find((i) => i.id === main)!.bump).toEqual({ contentId: addOn, price: 4 });

    // An add-on taken off sale is not offered, and a checkout that ticked it is refused.
    expect(
      (
        await call(`/api/content/${addOn}/published`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ published: false }),
          cookie,
        })
      ).status,
    ).toBe(200);
    expect((await (await call(`/api/content/${main}`)).json<PublicContent>()).bump).toBeNull();
    const refused = await postJson("/api/create-payment-intent", { contentId: main, bump: true });
    expect(refused.status).toBe(409);
    expect((await refused.json<{ message: string }>()).message).toBe(
      "This add-on is no longer available: reload the page",
    );

    const removed = await call(`/api/content/${main}/bump`, { method: "DELETE", cookie });
    expect(await removed.json()).toEqual({ bump: null });
    expect((await (await call(`/api/content/${main}`)).json<PublicContent>()).bump).toBeNull();
  });

  it("refuses the item itself, someone else's item, a price outside $0.50–$10,000, and a stranger's call", async () => {
    const { cookie, main, addOn } = await creatorWithBump("bump-rules@example.com");
    const other = await signIn("bump-rules-other@example.com");
    const theirs = await item(other, "Theirs", "5");
    const message = async (res: Response) => (await res.json<{ message: string }>()).message;

    const self = await putBump(main, { contentId: main, price: "4" }, cookie);
    expect(self.status).toBe(400);
    expect(await message(self)).toBe("contentId: An item cannot be its own add-on");
    const foreign = await putBump(main, { contentId: theirs, price: "4" }, cookie);
    expect(foreign.status).toBe(400);
    expect(await message(foreign)).toBe("contentId: Choose one of your own items");
    for (const price of ["0.49", "10000.01", "abc", "-1"]) {
      const res = await putBump(main, { contentId: addOn, price }, cookie);
      expect(res.status, price).toBe(400);
      expect(await message(res)).toBe("price: The add-on price must be from $0.50 to $10,000");
    }
    expect((await putBump(main, { contentId: theirs, price: "4" }, other)).status).toBe(404);
    // Nothing changed.
    expect((await (await call(`/api/content/${main}`)).json<PublicContent>()).bump).toEqual({
      id: addOn,
      title: "Workbook",
      price: 4,
    });
  });
});

describe("checkout with the bump ticked", () => {
  it("one PaymentIntent for the total; two purchases, each with its access, its ledger split and a place in one receipt", async () => {
    const { cookie, main: mainItem, addOn, creatorId } = await creatorWithBump("bump-pay@example.com");
    const { body, buyerCookie, paymentIntent, main, bump } = await buy(mainItem, {
      email: "bump-pay-buyer@example.com",
      pay: false,
    });
    expect(body.amount).toBe(14);
    expect(body.bump).toEqual({ title: "Workbook", amount: 4 });
    const intent = (
      await standin<{ amount: number; description: string; metadata: Record<string, string> }>(
        "GET",
        `/v1/payment_intents/${paymentIntent}`,
      )
    ).body;
    expect(intent.amount).toBe(1400);
    expect(intent.description).toBe("Guide + Workbook");
    expect(intent.metadata).toMatchObject({ purchaseId: main, bumpPurchaseId: bump, bumpContentId: addOn });
    expect(bump).not.toBeNull();
    // Nothing is anyone's before Stripe says it succeeded.
    expect(await owned(addOn, buyerCookie)).toBe(false);
    expect(
      (await confirmAsStripeJs(body.clientSecret, CARDS.ok, { receipt_email: "bump-pay-buyer@example.com" })).status,
    ).toBe(200);

    await paid(paymentIntent);
    expect(await statusOf(main)).toBe("paid");
    expect(await statusOf(bump!)).toBe("paid");
    expect(await net(main)).toEqual({ creator: 800, platform: 200 });
    expect(await net(bump!)).toEqual({ creator: 320, platform: 80 });
    expect(await owned(mainItem, buyerCookie)).toBe(true);
    expect(await owned(addOn, buyerCookie)).toBe(true);
    // The add-on's ledger rows name its item: its earnings show on its own row of the content list.
    expect(
      (await row<{ n: number }>(
        "select count(*) as n from ledger_entries where purchase_id = ? and content_id = ?",
        bump,
        addOn,
      ))!.n,
    ).toBe(2);
    expect(await sale(cookie, bump!)).toMatchObject({ productName: "Workbook", amount: 4, orderBump: true });
    expect(await sale(cookie, main)).toMatchObject({ productName: "Guide", amount: 10, orderBump: false });

    // A webhook storm adds nothing.
    const before = await ledgerCount();
    await Promise.all([
      paid(paymentIntent),
      paid(paymentIntent),
      call(`/api/payments/${paymentIntent}/complete`, { method: "POST", cookie: buyerCookie }),
    ]);
    expect(await ledgerCount()).toBe(before);

    // One receipt, listing both, each with its own access link.
    const receipt = await waitForMail("bump-pay-buyer@example.com");
    expect(receipt.subject).toBe("Your order: Guide and 1 more");
    expect(receipt.text).toContain("Workbook");
    const links = receipt.links.filter((l) => l.includes("/success?"));
    expect(links).toHaveLength(2);
    expect((await outbox()).filter((m) => m.to === "bump-pay-buyer@example.com")).toHaveLength(1);
    // The creator hears of the order once, both items and what each brought in.
    await waitForMail("bump-pay@example.com", 1); // after the sign-in link
    const creatorMails = (await outbox()).filter(
      (m) => m.to === "bump-pay@example.com" && m.subject.startsWith("You made a sale"),
    );
    expect(creatorMails.map((m) => m.subject)).toEqual(["You made a sale: Guide + Workbook (order bump)"]);
    expect(creatorMails[0].text).toContain("Paid by the buyer: $14.00");
    expect(creatorMails[0].text).toContain("Yours after the fee: $11.20");

    // The success page's answer names the add-on and its own link, which opens the add-on only.
    const verified = await (
      await call(`/api/purchase/verify?payment_intent=${paymentIntent}&content_id=${mainItem}`, { cookie: buyerCookie })
    ).json<PurchaseVerification>();
    expect(verified.addOns).toHaveLength(1);
    expect(verified.addOns[0]).toMatchObject({ title: "Workbook", amount: 4 });
    const addOnLink = new URL(verified.addOns[0].accessUrl);
    const byLink = await call(
      `/api/content/${addOn}/access?access=${encodeURIComponent(addOnLink.searchParams.get("access")!)}`,
    );
    expect(await byLink.json()).toMatchObject({ owned: true, verification: { content: { id: addOn } } });
    const wrongItem = await call(
      `/api/content/${mainItem}/access?access=${encodeURIComponent(addOnLink.searchParams.get("access")!)}`,
    );
    expect(await wrongItem.json()).toMatchObject({ owned: false });
    // Its success page can email its link again (no PaymentIntent of its own to name).
    const resend = await postJson("/api/purchase/send-access-email", {
      contentId: addOn,
      access: addOnLink.searchParams.get("access"),
    });
    expect(resend.status).toBe(200);
    await waitForMail("bump-pay-buyer@example.com", 1);
    expect(
      (await outbox()).find((m) => m.to === "bump-pay-buyer@example.com" && m.subject === "Your access to Workbook"),
    ).toBeTruthy();
    // One creator row per sale (the platform's rows name no user).
    expect((await rows("select 1 from ledger_entries where user_id = ?", creatorId)).length).toBe(2);
  });

  it("unticked, only the item is bought; an add-on the browser already owns is refused, not charged twice", async () => {
    const { main: mainItem, addOn } = await creatorWithBump("bump-untick@example.com");
    const plain = await buy(mainItem, { bump: false, pay: false });
    expect(plain.body.amount).toBe(10);
    expect(plain.body.bump).toBeUndefined();
    expect(plain.bump).toBeNull();

    // This browser buys the add-on on its own, then meets it as a bump on another item.
    const owner = await buy(addOn, { bump: false, buyerCookie: plain.buyerCookie });
    await paid(owner.paymentIntent);
    const again = await postJson("/api/create-payment-intent", { contentId: mainItem, bump: true }, plain.buyerCookie);
    expect(again.status).toBe(409);
    expect((await again.json<{ message: string }>()).message).toBe(
      "You already own Workbook: untick the add-on to buy just this item",
    );
  });

  it("an item without a bump ignores the checkbox's word and charges its price", async () => {
    const cookie = await signIn("bump-none@example.com");
    const lone = await item(cookie, "Lone", "7");
    const res = await postJson("/api/create-payment-intent", { contentId: lone, bump: true });
    expect(res.status).toBe(409);
    expect((await res.json<{ message: string }>()).message).toBe("This add-on is no longer available: reload the page");
    const bad = await postJson("/api/create-payment-intent", { contentId: lone, bump: "yes" });
    expect(bad.status).toBe(400);
  });
});

describe("refunds and disputes of an order with a bump", () => {
  it("the creator refunds the add-on: only its part goes back, its access ends, the item's stays", async () => {
    const { cookie, main: mainItem, addOn } = await creatorWithBump("bump-refund@example.com");
    const { buyerCookie, paymentIntent, main, bump } = await buy(mainItem, { email: "bump-refund-buyer@example.com" });
    await paid(paymentIntent);
    expect((await sale(cookie, bump!)).refundable).toBe(4);
    expect((await sale(cookie, main)).refundable).toBe(10);

    const tooMuch = await postJson(
      `/api/sales/${bump}/refund`,
      { amountCents: 500, reason: "requested_by_customer" },
      cookie,
    );
    expect(tooMuch.status).toBe(400);
    expect((await tooMuch.json<{ message: string }>()).message).toBe("You can refund at most $4.00 of this sale");

    const res = await postJson(`/api/sales/${bump}/refund`, { reason: "requested_by_customer" }, cookie);
    expect(res.status).toBe(200);
    expect(await res.json<RefundRequestResult>()).toMatchObject({
      amount: 4,
      status: "succeeded",
      sale: { status: "refunded", refundedAmount: 4, refundable: 0 },
    });
    const stripeRefunds = (
      await standin<{ data: { amount: number; metadata: Record<string, string> }[] }>("GET", "/v1/refunds", {
        payment_intent: paymentIntent,
      })
    ).body.data;
    expect(stripeRefunds).toMatchObject([{ amount: 400, metadata: { purchaseId: bump } }]);
    expect(await net(bump!)).toEqual({ creator: 0, platform: 0 });
    expect(await net(main)).toEqual({ creator: 800, platform: 200 });
    expect(await statusOf(main)).toBe("paid");
    expect(await owned(addOn, buyerCookie)).toBe(false);
    expect(await owned(mainItem, buyerCookie)).toBe(true);
    const mail = await waitForMail("bump-refund-buyer@example.com", 1);
    expect(mail.subject).toBe("Your refund of $4.00 for Workbook");

    // Stripe's events, twice and backwards, change nothing.
    const charge = await chargeOf(paymentIntent);
    const events = await eventsOf(charge, paymentIntent, REFUND_EVENTS);
    expect(events.length).toBeGreaterThan(0);
    for (const e of [...events, ...[...events].reverse()]) expect((await deliver(e)).status).toBe(200);
    // ... and all at once.
    for (const res of await Promise.all(events.map((e) => deliver(e)))) expect(res.status).toBe(200);
    expect(await net(bump!)).toEqual({ creator: 0, platform: 0 });
    expect(await net(main)).toEqual({ creator: 800, platform: 200 });

    // The item can still be refunded, up to its own price.
    expect((await sale(cookie, main)).refundable).toBe(10);
    const rest = await postJson(`/api/sales/${main}/refund`, { reason: "requested_by_customer" }, cookie);
    expect(await rest.json<RefundRequestResult>()).toMatchObject({ amount: 10, sale: { status: "refunded" } });
    expect(await net(main)).toEqual({ creator: 0, platform: 0 });
    expect(await owned(mainItem, buyerCookie)).toBe(false);
  });

  it("a refund of the whole charge in Stripe's dashboard refunds both; a partial one takes the item's part first", async () => {
    const { main: mainItem } = await creatorWithBump("bump-dashboard@example.com");
    const a = await buy(mainItem);
    await paid(a.paymentIntent);
    await standin("POST", "/v1/refunds", { payment_intent: a.paymentIntent, amount: "1200" });
    await deliver(await eventFor("charge.refunded", a.paymentIntent));
    // $12 of $14: the item's $10 in full, then $2 of the add-on's $4.
    expect(await statusOf(a.main)).toBe("refunded");
    expect(await statusOf(a.bump!)).toBe("paid");
    expect(await net(a.main)).toEqual({ creator: 0, platform: 0 });
    expect(await net(a.bump!)).toEqual({ creator: 160, platform: 40 });
    await standin("POST", "/v1/refunds", { payment_intent: a.paymentIntent });
    for (const e of await eventsOf(await chargeOf(a.paymentIntent), a.paymentIntent, REFUND_EVENTS)) await deliver(e);
    expect(await statusOf(a.bump!)).toBe("refunded");
    expect(await net(a.bump!)).toEqual({ creator: 0, platform: 0 });
  });

  it("a refund handled before the payment's own event books both sales and attributes the refund, in either order", async () => {
    const { main: mainItem, addOn } = await creatorWithBump("bump-early@example.com");
    const { buyerCookie, paymentIntent, main, bump } = await buy(mainItem, { email: "bump-early-buyer@example.com" });
    await standin("POST", "/v1/refunds", {
      payment_intent: paymentIntent,
      amount: "400",
      "metadata[purchaseId]": bump!,
    });
    await deliver(await eventFor("charge.refunded", paymentIntent));
    expect(await statusOf(main)).toBe("paid");
    expect(await statusOf(bump!)).toBe("refunded");
    await paid(paymentIntent);
    expect(await net(main)).toEqual({ creator: 800, platform: 200 });
    expect(await net(bump!)).toEqual({ creator: 0, platform: 0 });
    expect(await owned(mainItem, buyerCookie)).toBe(true);
    expect(await owned(addOn, buyerCookie)).toBe(false);
    // The buyer who keeps the item still gets one receipt, listing what is still theirs.
    const receipt = await waitForMail("bump-early-buyer@example.com");
    expect(
      (await outbox()).filter((m) => m.to === "bump-early-buyer@example.com" && m.subject.startsWith("Your order")),
    ).toHaveLength(1);
    expect(receipt.links.filter((l) => l.includes("/success?"))).toHaveLength(1);
  });

  it("a chargeback of the charge takes both sales back, and a won dispute gives both back", async () => {
    const { main: mainItem, addOn } = await creatorWithBump("bump-dispute@example.com");
    const { buyerCookie, paymentIntent, main, bump } = await buy(mainItem);
    await paid(paymentIntent);
    const charge = await chargeOf(paymentIntent);
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    const first = await eventsOf(charge, paymentIntent, DISPUTE_EVENTS);
    for (const e of [...first].reverse()) await deliver(e);
    expect(await statusOf(main)).toBe("disputed");
    expect(await statusOf(bump!)).toBe("disputed");
    expect(await net(main)).toEqual({ creator: 0, platform: 0 });
    expect(await net(bump!)).toEqual({ creator: 0, platform: 0 });
    expect(await owned(addOn, buyerCookie)).toBe(false);

    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "won" });
    for (const e of await eventsOf(charge, paymentIntent, DISPUTE_EVENTS)) await deliver(e);
    expect(await statusOf(main)).toBe("paid");
    expect(await statusOf(bump!)).toBe("paid");
    expect(await net(main)).toEqual({ creator: 800, platform: 200 });
    expect(await net(bump!)).toEqual({ creator: 320, platform: 80 });
  });
});

describe("bump analytics", () => {
  it("the item's row shows its bump take rate; the add-on's sale counts on its own row but not in its conversion", async () => {
    const { cookie, main: mainItem, addOn } = await creatorWithBump("bump-stats@example.com");
    const taken = await buy(mainItem);
    await paid(taken.paymentIntent);
    for (let i = 0; i < 2; i++) {
      const skipped = await buy(mainItem, { bump: false });
      await paid(skipped.paymentIntent);
    }
    // A checkout that never paid counts in no rate; started unticked, then ticked, it is one checkout.
    const first = await buy(mainItem, { bump: false, pay: false });
    const unpaid = await buy(mainItem, { pay: false, buyerCookie: first.buyerCookie });
    expect(unpaid.bump).not.toBeNull();
    const stats = await (await call("/api/analytics/stats?days=7", { cookie })).json<AnalyticsStats>();
    const main = stats.items.find((i) => i.contentId === mainItem)!;
    expect(main).toMatchObject({ sales: 3, checkouts: 4, bumpOffered: 3, bumpTaken: 1, bumpTakeRate: 33.33 });
    const add = stats.items.find((i) => i.contentId === addOn)!;
    expect(add).toMatchObject({ sales: 1, checkouts: 0, revenue: 3.2, bumpOffered: 0, bumpTaken: 0, bumpTakeRate: 0 });
    expect(stats.totals.sales).toBe(4);
  });
});

describe("attributeToOrder: whose part of each refund", () => {
  const refund = (id: string, amount: number, created: number, purchaseId?: string) =>
    ({
      id,
      amount,
      created,
      status: "succeeded",
      metadata: purchaseId ? { purchaseId } : {},
    }) as unknown as Stripe.Refund;
  const parts = [
    { id: "main", amountCents: 1000 },
    { id: "bump", amountCents: 400 },
  ];
  const shares = (refunds: Stripe.Refund[]) => {
    const out = attributeToOrder(parts, refunds, []);
    return Object.fromEntries([...out].map(([k, v]) => [k, v.refunds.map((r) => `${r.id}:${r.amount}`)]));
  };

  it("a named refund is its purchase's; others fill the item first; an add-on's share has its own id", () => {
    // Stripe lists newest first.
    expect(shares([refund("re_2", 300, 2), refund("re_1", 400, 1, "bump")])).toEqual({
      main: ["re_2:300"],
      bump: ["re_1~bump:400"],
    });
    expect(shares([refund("re_1", 1200, 1)])).toEqual({ main: ["re_1:1000"], bump: ["re_1~bump:200"] });
    // Beyond the order: the rest stays with the item, whose ledger cap books nothing more.
    expect(shares([refund("re_2", 500, 2), refund("re_1", 1200, 1)])).toEqual({
      main: ["re_1:1000", "re_2:300"],
      bump: ["re_1~bump:200", "re_2~bump:200"],
    });
  });

  it("a refund's share never changes when later refunds come, even within the same second", () => {
    const all = [
      refund("re_c", 150, 5),
      refund("re_a", 700, 5),
      refund("re_b", 500, 5, "bump"),
      refund("re_0", 100, 4),
    ];
    for (let k = 1; k <= all.length; k++) {
      const known = all.slice(all.length - k); // what a read after the k-th refund sees
      const before = shares(known.slice(1));
      const after = shares(known);
      for (const id of ["main", "bump"]) expect(after[id].slice(0, before[id].length)).toEqual(before[id]);
    }
  });

  it("a dispute is of what the refunds before it left: after the item's refund, a chargeback is the add-on's", () => {
    const dispute = { id: "dp_1", amount: 400, created: 2 } as unknown as Stripe.Dispute;
    const out = attributeToOrder(parts, [refund("re_1", 1000, 1)], [dispute]);
    expect(out.get("main")!.disputes).toEqual([]);
    expect(out.get("bump")!.disputes.map((d) => `${d.id}:${d.amount}`)).toEqual(["dp_1~bump:400"]);
    // Without the refund, the same chargeback is the item's.
    expect(
      attributeToOrder(parts, [], [dispute])
        .get("main")!
        .disputes.map((d) => `${d.id}:${d.amount}`),
    ).toEqual(["dp_1:400"]);
  });

  it("one purchase alone gets every refund as it is", () => {
    const refunds = [refund("re_1", 99_999, 1)];
    expect(attributeToOrder([{ id: "p", amountCents: 1000 }], refunds, []).get("p")!.refunds).toBe(refunds);
  });
});
