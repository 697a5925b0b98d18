// Review of the reconciliation with Stripe's tax transactions (docs/tax.md "Ledger and reversals",
// "The admin's tax report"): a dispute still open has its tax taken back by the ledger but is asked
// back from Stripe only once lost, so it is counted apart, never listed as missing at Stripe.
import { beforeAll, describe, expect, it } from "vitest";
import type { TaxReconciliation } from "../../../shared/admin-tax";
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
