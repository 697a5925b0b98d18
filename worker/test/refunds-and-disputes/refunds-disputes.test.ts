// Refunds and disputes of a purchase, decided from Stripe's word about each refund and dispute (the
// transition table in worker/services/purchases/states.ts), in any order and any number of times:
// what the buyer can open and what the ledger says, after each scenario the stand-in plays.
import { describe, expect, it } from "vitest";
import {
  call,
  checkout,
  contentForm,
  deliver,
  eventFor,
  postForm,
  row,
  rows,
  signIn,
  standin,
} from "../support/helpers";

type Ledger = { idempotency_key: string; account: string; kind: string; amount_cents: number };
type Ev = { id: string; type: string; data: { object: { id: string; payment_intent?: string; charge?: string } } };

const PENDING_REFUND_CARD = "4000000000007726";
const FAILING_REFUND_CARD = "4000000000005126";

async function creatorWithItem(email: string, price = "10") {
  const cookie = await signIn(email);
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price, accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  if (res.status !== 201) throw new Error(await res.text());
  return { cookie, item: await res.json<{ id: string }>() };
}

/** A paid purchase (the webhook delivered), its charge and the buyer's browser. */
async function paidPurchase(itemId: string, card?: string) {
  const { paymentIntent, buyerCookie } = await checkout(itemId, { card });
  expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
  const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`)).body
    .latest_charge;
  const purchase = (await row<{ id: string }>("select id from purchases where payment_intent_id = ?", paymentIntent))!;
  return { paymentIntent, buyerCookie, charge, purchaseId: purchase.id };
}

const statusOf = async (purchaseId: string) =>
  (await row<{ status: string }>("select status from purchases where id = ?", purchaseId))!.status;
const ledgerOf = (purchaseId: string) =>
  rows<Ledger>(
    "select idempotency_key, account, kind, amount_cents from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee') order by id",
    purchaseId,
  );
/** What moved (posted rows); money on its way is reserved, not moved (see `reserved`). */
const net = async (purchaseId: string) => {
  const l = (await ledgerOf(purchaseId)).filter((e) => !e.kind.startsWith("reserve"));
  const sum = (account: string) => l.filter((e) => e.account === account).reduce((a, e) => a + e.amount_cents, 0);
  return { creator: sum("creator"), platform: sum("platform") };
};
/** The creator's share of this sale held back while money is on its way (open reservations). */
const reserved = async (purchaseId: string) =>
  0 - (await ledgerOf(purchaseId)).filter((e) => e.kind.startsWith("reserve")).reduce((a, e) => a + e.amount_cents, 0);
const owned = async (itemId: string, buyerCookie: string) =>
  (await (await call(`/api/content/${itemId}/access`, { cookie: buyerCookie })).json<{ owned: boolean }>()).owned;

/** Every stand-in event about this charge (by charge or PaymentIntent) of the given types, oldest first. */
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
async function deliverAll(events: Ev[]) {
  for (const e of events) expect((await deliver(e)).status, e.type).toBe(200);
}

const DISPUTE_EVENTS = [
  "charge.dispute.created",
  "charge.dispute.updated",
  "charge.dispute.funds_withdrawn",
  "charge.dispute.funds_reinstated",
  "charge.dispute.closed",
];
const REFUND_EVENTS = ["charge.refunded", "charge.refund.updated", "refund.updated", "refund.failed"];

function permutations<T>(xs: T[]): T[][] {
  if (xs.length <= 1) return [xs];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

describe("refunds", () => {
  it("a partial refund keeps access and reverses only its share of the split", async () => {
    const { item } = await creatorWithItem("partial-keeps@example.com");
    const { paymentIntent, buyerCookie, purchaseId } = await paidPurchase(item.id);
    expect((await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount: "250" })).status).toBe(200);
    expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
    expect(await statusOf(purchaseId)).toBe("paid");
    expect(await owned(item.id, buyerCookie)).toBe(true);
    // $10 at 80/20: a $2.50 refund takes $2.00 from the creator and $0.50 from the platform.
    expect(await net(purchaseId)).toEqual({ creator: 600, platform: 150 });
  });

  it("a pending refund books nothing until it succeeds, then it is booked", async () => {
    const { item } = await creatorWithItem("pending-refund@example.com");
    const { paymentIntent, buyerCookie, purchaseId } = await paidPurchase(item.id, PENDING_REFUND_CARD);
    const refund = await standin<{ id: string; status: string }>("POST", "/v1/refunds", {
      payment_intent: paymentIntent,
    });
    expect(refund.body.status).toBe("pending");
    await deliver(await eventFor("charge.refunded", paymentIntent));
    expect(await statusOf(purchaseId)).toBe("paid");
    expect(await net(purchaseId)).toEqual({ creator: 800, platform: 200 });
    // Reserved while Stripe says pending: no payout or withdrawal can take it meanwhile.
    expect(await reserved(purchaseId)).toBe(800);

    await standin("POST", `/_standin/refunds/${refund.body.id}/settle`, { outcome: "succeeded" });
    expect((await deliver(await eventFor("charge.refund.updated", refund.body.id))).status).toBe(200);
    expect(await statusOf(purchaseId)).toBe("refunded");
    expect(await owned(item.id, buyerCookie)).toBe(false);
    expect(await net(purchaseId)).toEqual({ creator: 0, platform: 0 });
  });

  it("a refund that fails books nothing in the end: pending then failed, or succeeded then failed", async () => {
    const { item } = await creatorWithItem("failed-refund@example.com");
    // Pending, then failed: nothing is ever booked.
    const a = await paidPurchase(item.id, PENDING_REFUND_CARD);
    const ra = await standin<{ id: string }>("POST", "/v1/refunds", { payment_intent: a.paymentIntent });
    await standin("POST", `/_standin/refunds/${ra.body.id}/settle`, { outcome: "failed" });
    await deliverAll(await eventsOf(a.charge, a.paymentIntent, REFUND_EVENTS));
    expect(await statusOf(a.purchaseId)).toBe("paid");
    expect(await net(a.purchaseId)).toEqual({ creator: 800, platform: 200 });

    // Succeeded (booked, access revoked), then failed: the money came back, so the booking is undone.
    const b = await paidPurchase(item.id, FAILING_REFUND_CARD);
    const rb = await standin<{ id: string; status: string }>("POST", "/v1/refunds", {
      payment_intent: b.paymentIntent,
    });
    expect(rb.body.status).toBe("succeeded");
    await deliver(await eventFor("charge.refunded", b.paymentIntent));
    expect(await net(b.purchaseId)).toEqual({ creator: 0, platform: 0 });
    await standin("POST", `/_standin/refunds/${rb.body.id}/settle`, { outcome: "failed" });
    await deliverAll(await eventsOf(b.charge, b.paymentIntent, ["charge.refund.updated", "refund.failed"]));
    expect(await net(b.purchaseId)).toEqual({ creator: 800, platform: 200 });
    expect(await statusOf(b.purchaseId)).toBe("paid");
  });

  it("reads every refund of a charge, past the first page", async () => {
    const { item } = await creatorWithItem("many-refunds@example.com", "20");
    const { paymentIntent, buyerCookie, purchaseId } = await paidPurchase(item.id);
    for (let i = 0; i < 12; i++)
      expect((await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount: "100" })).status).toBe(200);
    // Only the last event arrives (the others were lost or come later): it alone must see all 12.
    expect((await deliver(await eventFor("charge.refunded", paymentIntent))).status).toBe(200);
    const refunds = (await ledgerOf(purchaseId)).filter((l) => l.kind === "refund" && l.account === "creator");
    expect(refunds).toHaveLength(12);
    // $12 of $20 refunded: 60% of the $16/$4 split.
    expect(await net(purchaseId)).toEqual({ creator: 640, platform: 160 });
    expect(await owned(item.id, buyerCookie)).toBe(true);
  });
});

describe("disputes", () => {
  it("a refunded purchase stays refunded when a dispute is then won, and nothing is booked", async () => {
    const { item } = await creatorWithItem("refund-then-won@example.com");
    const { paymentIntent, buyerCookie, charge, purchaseId } = await paidPurchase(item.id);
    await standin("POST", "/v1/refunds", { payment_intent: paymentIntent });
    await deliver(await eventFor("charge.refunded", paymentIntent));
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "won" });
    await deliverAll(await eventsOf(charge, paymentIntent, DISPUTE_EVENTS));
    expect(await statusOf(purchaseId)).toBe("refunded");
    expect(await owned(item.id, buyerCookie)).toBe(false);
    expect(await net(purchaseId)).toEqual({ creator: 0, platform: 0 });
    expect((await ledgerOf(purchaseId)).filter((l) => l.kind === "dispute")).toHaveLength(0);
  });

  it("a charge.dispute.created handled after the win (a retry) does not revoke the won sale", async () => {
    const { item } = await creatorWithItem("created-after-won@example.com");
    const { buyerCookie, charge, purchaseId } = await paidPurchase(item.id);
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    const created = await eventFor("charge.dispute.created", dispute.body.id);
    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "won" });
    await deliver(await eventFor("charge.dispute.closed", dispute.body.id));
    // The created event's first delivery failed (or was slow); Stripe's retry arrives now.
    expect((await deliver(created)).status).toBe(200);
    expect(await statusOf(purchaseId)).toBe("paid");
    expect(await owned(item.id, buyerCookie)).toBe(true);
    expect(await net(purchaseId)).toEqual({ creator: 800, platform: 200 });
  });

  it("dispute.closed(won) before dispute.created nets to zero and keeps access", async () => {
    const { item } = await creatorWithItem("won-before-created@example.com");
    const { paymentIntent, buyerCookie, charge, purchaseId } = await paidPurchase(item.id);
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "won" });
    await deliver(await eventFor("charge.dispute.closed", dispute.body.id));
    await deliver(await eventFor("charge.dispute.created", dispute.body.id));
    expect(await statusOf(purchaseId)).toBe("paid");
    expect(await owned(item.id, buyerCookie)).toBe(true);
    expect(await net(purchaseId)).toEqual({ creator: 800, platform: 200 });
    expect(paymentIntent).toBeTruthy();
  });

  it("an inquiry moves no money; escalated to a chargeback it revokes access and reverses the sale", async () => {
    const { item } = await creatorWithItem("inquiry-escalated@example.com");
    const { paymentIntent, buyerCookie, charge, purchaseId } = await paidPurchase(item.id);
    const inquiry = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`, { inquiry: "true" });
    await deliver(await eventFor("charge.dispute.created", inquiry.body.id));
    expect(await statusOf(purchaseId)).toBe("paid");
    expect(await net(purchaseId)).toEqual({ creator: 800, platform: 200 });
    // An open inquiry reserves the disputed amount's share until it closes or becomes a chargeback.
    expect(await reserved(purchaseId)).toBe(800);

    expect((await standin("POST", `/_standin/disputes/${inquiry.body.id}/escalate`)).status).toBe(200);
    await deliver(await eventFor("charge.dispute.updated", inquiry.body.id));
    await deliver(await eventFor("charge.dispute.funds_withdrawn", inquiry.body.id));
    expect(await statusOf(purchaseId)).toBe("disputed");
    expect(await owned(item.id, buyerCookie)).toBe(false);
    expect(await net(purchaseId)).toEqual({ creator: 0, platform: 0 });
    expect(await reserved(purchaseId)).toBe(0);
    expect(paymentIntent).toBeTruthy();
  });

  it("a lost dispute stays reversed and revoked", async () => {
    const { item } = await creatorWithItem("lost@example.com");
    const { paymentIntent, buyerCookie, charge, purchaseId } = await paidPurchase(item.id);
    const dispute = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
    await standin("POST", `/_standin/disputes/${dispute.body.id}/close`, { outcome: "lost" });
    await deliverAll(await eventsOf(charge, paymentIntent, DISPUTE_EVENTS));
    expect(await statusOf(purchaseId)).toBe("disputed");
    expect(await owned(item.id, buyerCookie)).toBe(false);
    expect(await net(purchaseId)).toEqual({ creator: 0, platform: 0 });
  });
});

describe("any order, any number of times", () => {
  // Each scenario: what happens at Stripe, then every event it sent delivered in every order
  // (each twice); the purchase always ends in the same state and ledger.
  const scenarios: {
    name: string;
    play: (p: { paymentIntent: string; charge: string }) => Promise<void>;
    status: string;
    net: { creator: number; platform: number };
  }[] = [
    {
      name: "chargeback won",
      play: async ({ charge }) => {
        const d = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
        await standin("POST", `/_standin/disputes/${d.body.id}/close`, { outcome: "won" });
      },
      status: "paid",
      net: { creator: 800, platform: 200 },
    },
    {
      name: "inquiry escalated, then lost",
      play: async ({ charge }) => {
        const d = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`, { inquiry: "true" });
        await standin("POST", `/_standin/disputes/${d.body.id}/escalate`);
        await standin("POST", `/_standin/disputes/${d.body.id}/close`, { outcome: "lost" });
      },
      status: "disputed",
      net: { creator: 0, platform: 0 },
    },
    {
      name: "partial refund, then a chargeback won",
      play: async ({ paymentIntent, charge }) => {
        await standin("POST", "/v1/refunds", { payment_intent: paymentIntent, amount: "500" });
        const d = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`, { amount: "500" });
        await standin("POST", `/_standin/disputes/${d.body.id}/close`, { outcome: "won" });
      },
      status: "paid",
      net: { creator: 400, platform: 100 },
    },
    {
      name: "full refund, then a dispute (withdraws nothing) won",
      play: async ({ paymentIntent, charge }) => {
        await standin("POST", "/v1/refunds", { payment_intent: paymentIntent });
        const d = await standin<{ id: string }>("POST", `/_standin/charges/${charge}/dispute`);
        await standin("POST", `/_standin/disputes/${d.body.id}/close`, { outcome: "won" });
      },
      status: "refunded",
      net: { creator: 0, platform: 0 },
    },
  ];

  for (const s of scenarios) {
    it(`${s.name}: every order of its events ends the same`, async () => {
      const { item } = await creatorWithItem(`order-${s.name.replace(/\W+/g, "-")}@example.com`);
      const first = await paidPurchase(item.id);
      await s.play(first);
      const events = await eventsOf(first.charge, first.paymentIntent, [...DISPUTE_EVENTS, ...REFUND_EVENTS]);
      const orders = permutations(events.map((_, i) => i)).slice(0, 24);
      for (const order of orders) {
        // A fresh purchase played the same way, its events delivered in this order, each twice.
        const p = order === orders[0] ? first : await paidPurchase(item.id);
        if (p !== first) await s.play(p);
        const own = await eventsOf(p.charge, p.paymentIntent, [...DISPUTE_EVENTS, ...REFUND_EVENTS]);
        expect(own.map((e) => e.type)).toEqual(events.map((e) => e.type));
        for (const i of order) expect((await deliver(own[i])).status).toBe(200);
        for (const i of order) expect((await deliver({ ...own[i], id: `${own[i].id}_again` })).status).toBe(200);
        expect({ order, status: await statusOf(p.purchaseId), net: await net(p.purchaseId) }).toEqual({
          order,
          status: s.status,
          net: s.net,
        });
      }
    }, 120_000);
  }
});
