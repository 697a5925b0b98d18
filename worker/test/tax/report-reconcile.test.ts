// Review of the reconciliation with Stripe's tax transactions (docs/tax.md "Ledger and reversals",
// "The admin's tax report"): a dispute still open has its tax taken back by the ledger but is asked
// back from Stripe only once lost, so it is counted apart, never listed as missing at Stripe.
import { beforeAll, describe, expect, it } from "vitest";
import type { TaxReconciliation } from "../../../shared/admin-tax";
import { createDb } from "../../db/client";
import { rereadMissing, type TaxStripe } from "../../services/tax/reconcile";
import { monthRange } from "../../services/tax/report";
import { call, env, row, signIn } from "../support/helpers";

const tag = Math.random().toString(36).slice(2, 8);
let n = 0;
const uid = (p: string) => `${p}${tag}${++n}`;
let admin = "";
let creatorId = "";
let itemId = "";
const P = { year: 2024, month: 9 };
const at = (d: number) => monthRange(P)[0] + d * 86_400_000;

/** A paid 1190 order with 190 of German VAT: its ledger `tax` row and Stripe's transaction recorded here. */
async function taxedOrder(day: number) {
  const id = uid("rvo");
  const pi = `pi_${id}`;
  await env.DB.batch([
    env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, tax_cents, status, payment_intent_id, paid_at, created_at) values (?, ?, ?, 'b@example.com', 1190, 190, 'paid', ?, ?, ?)",
    ).bind(id, itemId, creatorId, pi, at(day), at(day)),
    env.DB.prepare(
      "insert into purchase_taxes (purchase_id, country, region, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence) values (?, 'DE', null, 'vat', '19', 'standard_rated', 1, 1000, 190, '{}')",
    ).bind(id),
    taxRow(`sale:${id}:tax`, "tax", 190, id, at(day)),
    env.DB.prepare(
      "insert into tax_transactions (id, purchase_id, payment_intent_id, type, reference, amount_cents, tax_cents, created_at) values (?, ?, ?, 'transaction', ?, 1190, 190, ?)",
    ).bind(uid("tax_"), id, pi, pi, at(day)),
  ]);
  return { id, pi };
}

const taxRow = (key: string, kind: string, cents: number, purchaseId: string, createdAt: number) =>
  env.DB.prepare(
    "insert into ledger_entries (idempotency_key, account, kind, amount_cents, purchase_id, created_at) values (?, 'tax', ?, ?, ?, ?)",
  ).bind(key, kind, cents, purchaseId, createdAt);

const orders: Record<string, { id: string; pi: string }> = {};

beforeAll(async () => {
  admin = await signIn("admin@apewall.test");
  const email = `review-reconcile-${tag}@example.com`;
  await signIn(email);
  creatorId = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  itemId = uid("rvitem");
  await env.DB.prepare("insert into content (id, user_id, title, price_cents) values (?, ?, 'Guide', 1190)")
    .bind(itemId, creatorId)
    .run();
  // Disputed, the funds withdrawn: the ledger took the tax back; Stripe is asked only if it is lost.
  orders.open = await taxedOrder(1);
  await env.DB.batch([taxRow(`dispute:du_open${tag}:tax`, "dispute", -190, orders.open.id, at(3))]);
  // Lost: the batch that settled it wrote the reversal request (not sent yet).
  orders.lost = await taxedOrder(2);
  await env.DB.batch([
    taxRow(`dispute:du_lost${tag}:tax`, "dispute", -190, orders.lost.id, at(3)),
    env.DB.prepare(
      "insert into tax_reversal_requests (idempotency_key, purchase_id, payment_intent_id, amount_cents, created_at) values (?, ?, ?, 1190, ?)",
    ).bind(`tax-reversal:du_lost${tag}`, orders.lost.id, orders.lost.pi, at(4)),
  ]);
  // Won: the ledger gave the tax back.
  orders.won = await taxedOrder(3);
  await env.DB.batch([
    taxRow(`dispute:du_won${tag}:tax`, "dispute", -190, orders.won.id, at(4)),
    taxRow(`dispute-won:du_won${tag}:tax`, "dispute", 190, orders.won.id, at(8)),
  ]);
});

describe("a dispute in the reconciliation", () => {
  it("still open is counted apart, not listed as missing at Stripe nor re-read; lost is listed; won matches", async () => {
    const res = await call(`/api/admin/tax/reconciliation?month=${P.month}&year=${P.year}`, { cookie: admin });
    expect(res.status).toBe(200);
    const r = await res.json<TaxReconciliation>();
    expect(r.ordersChecked).toBe(3);
    expect(r.differences.map((d) => [d.orderId, d.what, d.kind, d.oursCents, d.stripeCents])).toEqual([
      [orders.lost.id, "reversal", "missing_at_stripe", -190, null],
    ]);
    expect(r.rereadable).toBe(1);
    expect(r.openDisputes).toEqual({ orders: 1, taxCents: 190 });
  });
});

describe("re-reading a refund's reversal missing here", () => {
  it("offers and records it when the order's other records are here (the reversals only add up short)", async () => {
    const Q = { year: 2024, month: 10 };
    const [from] = monthRange(Q);
    const id = uid("rvr");
    const pi = `pi_${id}`;
    const [txSale, txRefundA, txRefundB] = [uid("tax_s"), uid("tax_a"), uid("tax_b")];
    await env.DB.batch([
      env.DB.prepare(
        "insert into purchases (id, content_id, creator_id, buyer_email, amount_cents, tax_cents, status, payment_intent_id, paid_at, created_at) values (?, ?, ?, 'b@example.com', 1190, 190, 'paid', ?, ?, ?)",
      ).bind(id, itemId, creatorId, pi, from + 1000, from + 1000),
      env.DB.prepare(
        "insert into purchase_taxes (purchase_id, country, region, tax_type, rate_percent, taxability_reason, inclusive, net_cents, tax_cents, evidence) values (?, 'DE', null, 'vat', '19', 'standard_rated', 1, 1000, 190, '{}')",
      ).bind(id),
      taxRow(`sale:${id}:tax`, "tax", 190, id, from + 1000),
      // Two refunds, each taking 40 of tax back here.
      taxRow(`refund:re_a${id}:tax`, "refund", -40, id, from + 2000),
      taxRow(`refund:re_b${id}:tax`, "refund", -40, id, from + 3000),
      // Stripe's transaction and the first refund's reversal were recorded; the second's webhook never got through.
      env.DB.prepare(
        "insert into tax_transactions (id, purchase_id, payment_intent_id, type, reference, amount_cents, tax_cents, created_at) values (?, ?, ?, 'transaction', ?, 1190, 190, ?), (?, ?, ?, 'reversal', ?, -250, -40, ?)",
      ).bind(txSale, id, pi, pi, from + 1000, txRefundA, id, pi, `re_a${id}`, from + 2000),
    ]);
    const reconcile = async () =>
      (
        await call(`/api/admin/tax/reconciliation?month=${Q.month}&year=${Q.year}`, { cookie: admin })
      ).json<TaxReconciliation>();
    const before = await reconcile();
    expect(before.differences.map((d) => [d.orderId, d.kind, d.oursCents, d.stripeCents])).toEqual([
      [id, "amounts_differ", -80, -40],
    ]);
    expect(before.rereadable).toBe(1);

    const held: Record<string, { type: string; reference: string; amount: number; tax: number }> = {
      [txSale]: { type: "transaction", reference: pi, amount: 1190, tax: 190 },
      [txRefundA]: { type: "reversal", reference: `re_a${id}`, amount: -250, tax: -40 },
      [txRefundB]: { type: "reversal", reference: `re_b${id}`, amount: -250, tax: -40 },
    };
    const stripe = {
      tax: {
        associations: {
          find: async () => ({
            tax_transaction_attempts: Object.keys(held).map((t) => ({
              source: held[t].reference,
              status: "committed",
              committed: { transaction: t },
            })),
          }),
        },
        transactions: {
          retrieve: async (t: string) => ({ id: t, ...held[t], created: from / 1000 + 5, posted_at: from / 1000 + 5 }),
          listLineItems: async (t: string) => ({
            data: [{ id: `li_${t}`, amount: held[t].amount, amount_tax: held[t].tax }],
            has_more: false,
          }),
        },
      },
    } as unknown as TaxStripe;
    const result = await rereadMissing({ db: createDb(env.DB), stripe }, Q);
    expect(result).toMatchObject({ checked: 1, recorded: 1, notAtStripe: [], remaining: 0 });
    const after = await reconcile();
    expect(after.differences).toEqual([]);
    expect(after.rereadable).toBe(0);
  });
});
