// A property of the money kernel (worker/services/balances.ts), over random interleavings of what
// happens to one creator's money: sales (fresh or past their hold, some whose refunds stay pending),
// the creator's refunds, Stripe settling them, chargebacks opened and decided, Withdraw now and the
// monthly prepare. After every move the creator makes, available is never taken below the $100
// overdraft limit (or below where a chargeback already left it); in the end, every reservation is
// closed and each charge's ledger rows net to what Stripe's balance transactions say it moved.
import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { CREATOR_REFUND_OVERDRAFT_CENTS } from "../../../shared/earnings";
import { availableAfterSql, SALE_HOLD_MS } from "../../services/balances";
import { closingPeriod } from "../../services/payouts/period";
import { preparePage } from "../../services/payouts/prepare";
import { payoutDeps } from "../../deps";
import { withdraw } from "../../services/payouts/withdraw-now";
import {
  checkout,
  connectedAccount,
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

const DAY = 24 * 60 * 60 * 1000;
const PENDING_REFUND_CARD = "4000000000007726";

type Op =
  | { t: "sale"; item: number; old: boolean; pendingRefunds: boolean }
  | { t: "refund"; k: number; half: boolean }
  | { t: "settle"; k: number; ok: boolean }
  | { t: "dispute"; k: number }
  | { t: "close"; k: number; won: boolean }
  | { t: "withdraw" }
  | { t: "run" };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("sale" as const),
      item: fc.nat(2),
      old: fc.boolean(),
      pendingRefunds: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("refund" as const), k: fc.nat(5), half: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("settle" as const), k: fc.nat(5), ok: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("dispute" as const), k: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("close" as const), k: fc.nat(5), won: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("withdraw" as const) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("run" as const) }) },
);

type Sale = { purchaseId: string; paymentIntent: string; charge: string };
type Txn = { id: string; net: number };

/** The creator's available remainder now (negative: below zero), every row counted: the kernel's own rule. */
async function remainder(userId: string): Promise<number> {
  const r = await env.DB.prepare(`select ${availableAfterSql("?1", "?2", "null", "0")} as v`)
    .bind(userId, Date.now() - SALE_HOLD_MS)
    .first<{ v: number }>();
  return Number(r?.v ?? 0);
}

let seq = 0;
async function world() {
  const email = `prop${++seq}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const cookie = await signIn(email);
  const userId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  await env.DB.prepare(
    "insert into payout_settings (user_id, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, ?, 1, 1)",
  )
    .bind(userId, await connectedAccount())
    .run();
  const items: string[] = [];
  for (const price of ["5", "40", "300"]) {
    const res = await postForm(
      "/api/content",
      contentForm({ title: `Item ${price}`, price, accessType: "link", linkUrl: "https://example.com/x" }),
      cookie,
    );
    items.push((await res.json<{ id: string }>()).id);
  }
  return { cookie, userId, items, sales: [] as Sale[] };
}

/** Money out of Stripe's balance for one charge: its own transaction, its refunds' and its disputes'. */
async function stripeNet(charge: string): Promise<number> {
  const txn = async (id: string | null) =>
    id ? (await standin<Txn>("GET", `/v1/balance_transactions/${id}`)).body.net : 0;
  const ch = (await standin<{ balance_transaction: string }>("GET", `/v1/charges/${charge}`)).body;
  let net = await txn(ch.balance_transaction);
  const refunds = (
    await standin<{ data: { balance_transaction: string | null; failure_balance_transaction: string | null }[] }>(
      "GET",
      "/v1/refunds",
      { charge, limit: "100" },
    )
  ).body.data;
  for (const r of refunds) net += (await txn(r.balance_transaction)) + (await txn(r.failure_balance_transaction));
  const disputes = (
    await standin<{ data: { balance_transactions: Txn[] }[] }>("GET", "/v1/disputes", { charge, limit: "100" })
  ).body.data;
  for (const d of disputes) net += d.balance_transactions.reduce((a, t) => a + t.net, 0);
  return net;
}

describe("the money kernel under random interleavings", () => {
  it("no move of the creator's takes available past the overdraft limit, and the ledger nets to Stripe's balance", {
    timeout: 240_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 3, maxLength: 9 }), async (ops) => {
        const w = await world();
        const deps = { ...payoutDeps(env as never), startSend: async () => {} };
        for (const o of ops) {
          const sale = "k" in o ? w.sales[o.k % Math.max(1, w.sales.length)] : undefined;
          const before = await remainder(w.userId);
          let creatorMove = false;
          if (o.t === "sale") {
            const { paymentIntent } = await checkout(w.items[o.item], {
              card: o.pendingRefunds ? PENDING_REFUND_CARD : undefined,
            });
            expect((await deliver(await eventFor("payment_intent.succeeded", paymentIntent))).status).toBe(200);
            const purchaseId = (await row<{ id: string }>(
              "select id from purchases where payment_intent_id = ?",
              paymentIntent,
            ))!.id;
            if (o.old)
              await env.DB.prepare("update ledger_entries set created_at = created_at - ? where purchase_id = ?")
                .bind(10 * DAY, purchaseId)
                .run();
            const charge = (await standin<{ latest_charge: string }>("GET", `/v1/payment_intents/${paymentIntent}`))
              .body.latest_charge;
            w.sales.push({ purchaseId, paymentIntent, charge });
          } else if (o.t === "refund" && sale) {
            creatorMove = true;
            const p = (await row<{ amount_cents: number }>(
              "select amount_cents from purchases where id = ?",
              sale.purchaseId,
            ))!;
            const res = await postJson(
              `/api/sales/${sale.purchaseId}/refund`,
              { reason: "requested_by_customer", ...(o.half ? { amountCents: Math.floor(p.amount_cents / 2) } : {}) },
              w.cookie,
            );
            expect(res.status).toBeLessThan(500);
          } else if (o.t === "settle" && sale) {
            const refunds = (
              await standin<{ data: { id: string; status: string }[] }>("GET", "/v1/refunds", { charge: sale.charge })
            ).body.data;
            for (const r of refunds.filter((x) => x.status === "pending")) {
              await standin("POST", `/_standin/refunds/${r.id}/settle`, { outcome: o.ok ? "succeeded" : "failed" });
              expect((await deliver(await eventFor("refund.updated", r.id))).status).toBe(200);
            }
          } else if (o.t === "dispute" && sale) {
            const ch = (
              await standin<{ amount: number; amount_refunded: number; disputed: boolean }>(
                "GET",
                `/v1/charges/${sale.charge}`,
              )
            ).body;
            const open = ch.amount - ch.amount_refunded;
            if (!ch.disputed && open > 0) {
              const d = await standin<{ id: string }>("POST", `/_standin/charges/${sale.charge}/dispute`, {
                amount: String(open),
              });
              expect((await deliver(await eventFor("charge.dispute.created", d.body.id))).status).toBe(200);
            }
          } else if (o.t === "close" && sale) {
            const disputes = (
              await standin<{ data: { id: string; status: string }[] }>("GET", "/v1/disputes", { charge: sale.charge })
            ).body.data;
            for (const d of disputes.filter((x) => x.status === "needs_response")) {
              await standin("POST", `/_standin/disputes/${d.id}/close`, { outcome: o.won ? "won" : "lost" });
              expect((await deliver(await eventFor("charge.dispute.closed", d.id))).status).toBe(200);
            }
          } else if (o.t === "withdraw") {
            creatorMove = true;
            await withdraw(deps, w.userId).catch((err: { status?: number }) => expect(err.status).toBeLessThan(500));
          } else if (o.t === "run") {
            creatorMove = true;
            const now = Date.now();
            await preparePage(deps, closingPeriod(now), now, w.userId.slice(0, -1), 1);
          }
          if (creatorMove)
            expect(await remainder(w.userId)).toBeGreaterThanOrEqual(Math.min(before, -CREATOR_REFUND_OVERDRAFT_CENTS));
        }

        // Stripe settles what is still pending; then nothing is reserved and each charge nets out.
        for (const s of w.sales) {
          const refunds = (
            await standin<{ data: { id: string; status: string }[] }>("GET", "/v1/refunds", { charge: s.charge })
          ).body.data;
          for (const r of refunds.filter((x) => x.status === "pending")) {
            await standin("POST", `/_standin/refunds/${r.id}/settle`, { outcome: "succeeded" });
            expect((await deliver(await eventFor("refund.updated", r.id))).status).toBe(200);
          }
        }
        const reserved = await row<{ c: number }>(
          "select coalesce(sum(amount_cents), 0) as c from ledger_entries where user_id = ? and kind like 'reserve%'",
          w.userId,
        );
        expect(reserved!.c).toBe(0);
        for (const s of w.sales) {
          const ledger = await rows<{ c: number }>(
            "select coalesce(sum(amount_cents), 0) as c from ledger_entries where purchase_id = ? and kind not like 'reserve%'",
            s.purchaseId,
          );
          expect(ledger[0].c, `charge ${s.charge}`).toBe(await stripeNet(s.charge));
        }
      }),
      { numRuns: 30 },
    );
  });
});
