// Every transition of the table in worker/services/purchases/states.ts, through the code that applies
// it (`settleCharge`), with Stripe's answers given directly: each state × each fact, including the
// pairs Stripe itself never produces, ends in the table's next state with the ledger it implies.
import { describe, expect, it } from "vitest";
import type Stripe from "stripe";
import { createDb } from "../../db/client";
import { TRANSITIONS, type Fact, type PurchaseState } from "../../services/purchases/states";
import type { PurchaseDeps } from "../../services/purchases/deps";
import { handleRefundEvent, settleCharge } from "../../services/purchases/settle";
import { env, row, rows } from "../support/helpers";

type World = { tag: string; refunds: Partial<Stripe.Refund>[]; disputes: Partial<Stripe.Dispute>[] };
const bt = (amount: number) => ({ id: `txn_${amount}`, amount }) as Stripe.BalanceTransaction;

/** A Stripe client that answers from `world` (a charge of $10 and its refunds and disputes). */
function fakeStripe(world: World, pi: string, chargesAsked: string[] = []): Stripe {
  const list = <T>(items: T[]) => ({
    async *[Symbol.asyncIterator]() {
      yield* items;
    },
  });
  return {
    charges: {
      retrieve: async (id: string) => {
        chargesAsked.push(id);
        return { id, amount: 1000, payment_intent: pi };
      },
    },
    refunds: {
      list: () => list(world.refunds.map((r) => ({ ...r }))),
      retrieve: async (id: string) => {
        const found = world.refunds.find((r) => r.id === id);
        // As Stripe answers for an id that is not a refund.
        if (!found)
          throw Object.assign(new Error(`No such refund: '${id}'`), {
            type: "StripeInvalidRequestError",
            code: "resource_missing",
            statusCode: 404,
          });
        return { ...found };
      },
    },
    disputes: {
      list: () =>
        list(world.disputes.map((d) => ({ ...d, balance_transactions: [...(d.balance_transactions ?? [])] }))),
    },
  } as unknown as Stripe;
}

let n = 0;
async function paidPurchase() {
  const id = `pst${++n}`;
  await env.DB.batch([
    env.DB.prepare("insert or ignore into users (id, email) values ('pst_creator', 'pst@example.com')"),
    env.DB.prepare(
      "insert or ignore into content (id, user_id, title, price_cents) values ('pst_item', 'pst_creator', 'Table', 1000)",
    ),
    env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, amount_cents, status, payment_intent_id, paid_at) values (?, 'pst_item', 'pst_creator', 1000, 'paid', ?, ?)",
    ).bind(id, `pi_${id}`, Date.now()),
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id) values (?, 'creator', 'pst_creator', 'sale', 800, ?, 'pst_item')",
    ).bind(`sale:${id}:creator`, id),
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id) values (?, 'platform', null, 'platform_fee', 200, ?, 'pst_item')",
    ).bind(`sale:${id}:platform`, id),
  ]);
  const world: World = { tag: id, refunds: [], disputes: [] };
  const chargesAsked: string[] = [];
  const deps = {
    db: createDb(env.DB),
    d1: env.DB,
    stripe: fakeStripe(world, `pi_${id}`, chargesAsked),
  } as unknown as PurchaseDeps;
  const settle = () => settleCharge(deps, `ch_${id}`);
  return { id, world, settle, deps, chargesAsked };
}

// Stripe's ids are unique everywhere: each purchase's refunds and disputes get their own.
let world: World;
const refund = (id: string, amount: number, status: string) =>
  ({ id: `${id}_${world.tag}`, amount, status, charge: "ch" }) as Partial<Stripe.Refund>;
const dispute = (id: string, status: string, ...bts: number[]) =>
  ({
    id: `${id}_${world.tag}`,
    amount: 1000,
    status,
    charge: "ch",
    balance_transactions: bts.map(bt),
  }) as Partial<Stripe.Dispute>;

/** Puts a fresh purchase in `state` the way Stripe would. */
const reach: Record<PurchaseState, (w: World) => void> = {
  paid: () => {},
  refunded: (w) => w.refunds.push(refund("re_setup", 1000, "succeeded")),
  disputed: (w) => w.disputes.push(dispute("dp_setup", "needs_response", -1000)),
};

/** Stripe stating `fact` about a refund or dispute of the charge (a new one, or the one that made the state). */
const apply: Record<Fact, (w: World, settle: () => Promise<unknown>) => Promise<void>> = {
  refund_pending: async (w) => void w.refunds.push(refund("re_new", 300, "pending")),
  refund_succeeded: async (w) => void w.refunds.push(refund("re_new", 300, "succeeded")),
  refund_completed: async (w) => void w.refunds.push(refund("re_new", 1000, "succeeded")),
  refund_failed: async (w, settle) => {
    const setup = w.refunds.find((r) => r.id === `re_setup_${w.tag}`);
    if (setup) {
      setup.status = "failed";
      return;
    }
    w.refunds.push(refund("re_new", 300, "succeeded"));
    await settle();
    w.refunds[w.refunds.length - 1].status = "failed";
  },
  inquiry_open: async (w) => void w.disputes.push(dispute("dp_new", "warning_needs_response")),
  inquiry_closed: async (w) => void w.disputes.push(dispute("dp_new", "warning_closed")),
  funds_withdrawn: async (w) => void w.disputes.push(dispute("dp_new", "needs_response", -1000)),
  funds_reinstated: async (w) => {
    const setup = w.disputes.find((d) => d.id === `dp_setup_${w.tag}`);
    if (setup) return void Object.assign(setup, { status: "won", balance_transactions: [bt(-1000), bt(1000)] });
    w.disputes.push(dispute("dp_new", "won", -1000, 1000));
  },
  dispute_lost: async (w) => {
    const setup = w.disputes.find((d) => d.id === `dp_setup_${w.tag}`);
    if (setup) {
      setup.status = "lost";
      return;
    }
    w.disputes.push(dispute("dp_new", "lost", -1000));
  },
};

const FULL = { creator: 800, platform: 200 };
const NONE = { creator: 0, platform: 0 };
/** What the ledger nets to after each transition (a $10 sale at 80/20). */
const NET: Record<PurchaseState, Record<Fact, { creator: number; platform: number }>> = {
  paid: {
    refund_pending: FULL,
    refund_succeeded: { creator: 560, platform: 140 },
    refund_completed: NONE,
    refund_failed: FULL,
    inquiry_open: FULL,
    inquiry_closed: FULL,
    funds_withdrawn: NONE,
    funds_reinstated: FULL,
    dispute_lost: NONE,
  },
  // Already all taken back: nothing more can be reversed; a failed refund gives it back.
  refunded: {
    refund_pending: NONE,
    refund_succeeded: NONE,
    refund_completed: NONE,
    refund_failed: FULL,
    inquiry_open: NONE,
    inquiry_closed: NONE,
    funds_withdrawn: NONE,
    funds_reinstated: NONE,
    dispute_lost: NONE,
  },
  disputed: {
    refund_pending: NONE,
    refund_succeeded: NONE,
    refund_completed: NONE,
    refund_failed: NONE,
    inquiry_open: NONE,
    inquiry_closed: NONE,
    funds_withdrawn: NONE,
    funds_reinstated: FULL,
    dispute_lost: NONE,
  },
};

const net = async (id: string) => {
  const l = await rows<{ account: string; amount_cents: number }>(
    "select account, amount_cents from ledger_entries where purchase_id = ? and kind not in ('stripe_fee', 'dispute_fee') and kind not like 'reserve%'",
    id,
  );
  const sum = (a: string) => l.filter((e) => e.account === a).reduce((x, e) => x + e.amount_cents, 0);
  return { creator: sum("creator"), platform: sum("platform") };
};

describe("the purchase transition table", () => {
  for (const [state, facts] of Object.entries(TRANSITIONS) as [PurchaseState, (typeof TRANSITIONS)[PurchaseState]][]) {
    for (const [fact, { next }] of Object.entries(facts) as [Fact, { next: string }][]) {
      it(`${state} × ${fact} → ${next}`, async () => {
        const p = await paidPurchase();
        world = p.world;
        reach[state](p.world);
        await p.settle();
        expect((await row<{ status: string }>("select status from purchases where id = ?", p.id))?.status).toBe(state);
        await apply[fact](p.world, p.settle);
        await p.settle();
        await p.settle(); // a repeat changes nothing
        // In these single-fact cases nothing else holds the money: "paid unless held" is paid.
        const expected = next === "paid_unless_held" ? "paid" : next;
        expect((await row<{ status: string }>("select status from purchases where id = ?", p.id))?.status).toBe(
          expected,
        );
        expect(await net(p.id)).toEqual(NET[state][fact]);
      });
    }
  }
});

const statusOf = async (id: string) =>
  (await row<{ status: string }>("select status from purchases where id = ?", id))?.status;

describe("reads that race", () => {
  // Two refund events handled at once: the one that read "failed" commits first, the one that read
  // "succeeded" (stale) after it. The refund failed, so nothing may stay booked.
  for (const amount of [300, 1000]) {
    it(`a stale 'succeeded' read of a $${amount / 100} refund applied after its 'failed' one books nothing`, async () => {
      const p = await paidPurchase();
      world = p.world;
      const r = refund("re_race", amount, "failed");
      p.world.refunds.push(r);
      await p.settle();
      expect(await statusOf(p.id)).toBe("paid");
      r.status = "succeeded"; // the stale read
      await p.settle();
      expect(await statusOf(p.id)).toBe("paid");
      expect(await net(p.id)).toEqual(FULL);
    });
  }

  it("a full refund that failed and a chargeback that was won leave the sale standing", async () => {
    const p = await paidPurchase();
    world = p.world;
    const r = refund("re_full", 1000, "succeeded");
    p.world.refunds.push(r);
    await p.settle();
    expect(await statusOf(p.id)).toBe("refunded");
    // The refund then fails, and a chargeback (which took nothing the refund had not) is won.
    r.status = "failed";
    p.world.disputes.push(dispute("dp_won", "won", -1000, 1000));
    for (let i = 0; i < 2; i++) {
      await p.settle(); // the first read already sees everything: it alone must end right
      expect(await statusOf(p.id)).toBe("paid");
      expect(await net(p.id)).toEqual(FULL);
    }
  });
});

describe("when access ended", () => {
  const revokedAt = async (id: string) =>
    (await row<{ revoked_at: number | null }>("select revoked_at from purchases where id = ?", id))?.revoked_at;

  it("a disputed purchase later refunded in full reads the refund's time, and a repeat keeps it", async () => {
    const p = await paidPurchase();
    world = p.world;
    p.world.disputes.push(dispute("dp_open", "needs_response", -1000));
    await p.settle();
    expect(await statusOf(p.id)).toBe("disputed");
    const disputedAt = await revokedAt(p.id);
    expect(disputedAt).toEqual(expect.any(Number));
    await new Promise((r) => setTimeout(r, 5));
    // The dispute is won (its money comes back), and the buyer is refunded in full.
    p.world.disputes[0] = dispute("dp_open", "won", -1000, 1000);
    p.world.refunds.push(refund("re_after", 1000, "succeeded"));
    await p.settle();
    expect(await statusOf(p.id)).toBe("refunded");
    const refundedAt = await revokedAt(p.id);
    expect(refundedAt).toBeGreaterThan(disputedAt!);
    await new Promise((r) => setTimeout(r, 5));
    await p.settle();
    expect(await revokedAt(p.id)).toBe(refundedAt);
  });
});

describe("refund events are routed by their type, not by the look of an id", () => {
  it("charge.refunded for a charge whose id starts with py_ (a non-card payment) settles that charge", async () => {
    const p = await paidPurchase();
    world = p.world;
    p.world.refunds.push(refund("re_py", 1000, "succeeded"));
    await handleRefundEvent(p.deps, { type: "charge.refunded", id: `py_${p.id}` });
    expect(p.chargesAsked).toEqual([`py_${p.id}`]);
    expect(await statusOf(p.id)).toBe("refunded");
    expect(await net(p.id)).toEqual(NONE);
  });

  it("refund.updated and charge.refund.updated name the refund, whose charge is settled", async () => {
    for (const type of ["refund.updated", "charge.refund.updated"]) {
      const p = await paidPurchase();
      world = p.world;
      const r = { ...refund("re_upd", 300, "succeeded"), charge: `py_${p.id}` };
      p.world.refunds.push(r);
      await handleRefundEvent(p.deps, { type, id: r.id! });
      expect(p.chargesAsked).toEqual([`py_${p.id}`]);
      expect(await net(p.id)).toEqual({ creator: 560, platform: 140 });
    }
  });
});
