// How `reverseSale` splits a refund between the creator and the platform: a share of what is left of
// the sale, so a Pro fee re-booked after a partial refund (on the unreversed part) never lets a later
// refund credit the creator, and every reversal ends with the purchase netting to zero; the refund
// dialog's quote says the same cents first. docs/refunds-and-disputes.md.
import { describe, expect, it } from "vitest";
import { reverseSale } from "../../services/ledger";
import { refundQuote } from "../../services/refunds/refund-quote";
import { env, rows } from "../support/helpers";

let n = 0;
/** A paid $100 sale of a Pro creator (0% fee): the creator's side is the whole 10000. */
async function proSale() {
  const id = `rvs${++n}`;
  await env.DB.batch([
    env.DB.prepare("insert or ignore into users (id, email) values ('rvs_creator', 'rvs@example.com')"),
    env.DB.prepare(
      "insert or ignore into content (id, user_id, title, price_cents) values ('rvs_item', 'rvs_creator', 'Course', 10000)",
    ),
    env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, amount_cents, status, payment_intent_id, paid_at) values (?, 'rvs_item', 'rvs_creator', 10000, 'paid', ?, ?)",
    ).bind(id, `pi_${id}`, Date.now()),
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id) values (?, 'creator', 'rvs_creator', 'sale', 10000, ?, 'rvs_item'), (?, 'platform', null, 'platform_fee', 0, ?, 'rvs_item')",
    ).bind(`sale:${id}:creator`, id, `sale:${id}:platform`, id),
  ]);
  return id;
}

const side = async (key: string) =>
  Object.fromEntries(
    (
      await rows<{ account: string; amount_cents: number }>(
        "select account, amount_cents from ledger_entries where idempotency_key like ? || ':%'",
        key,
      )
    ).map((r) => [r.account, r.amount_cents]),
  );

const refund = async (id: string, key: string, cents: number) => {
  const quote = await refundQuote(env.DB, "rvs_creator", id, cents);
  await reverseSale(env.DB, id, key, "refund", cents).run();
  const booked = await side(key);
  // The dialog's figure is what the ledger then took from the creator.
  expect(Math.round(quote.leavesBalance * 100)).toBe(-booked.creator);
  return booked;
};

describe("reverseSale after a Pro fee re-booked on the unreversed part", () => {
  it("takes a share of what is left, never credits the creator, and nets the sale to zero", async () => {
    const id = await proSale();
    expect(await refund(id, `re1:${id}`, 5000)).toEqual({ creator: -5000, platform: 0 });
    // The creator's Pro invoice was refunded: the 20% fee is booked on the $50 not refunded.
    await env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id) values (?, 'creator', 'rvs_creator', 'fee_adjustment', -1000, ?, 'rvs_item'), (?, 'platform', null, 'fee_adjustment', 1000, ?, 'rvs_item')",
    )
      .bind(`pro:${id}:creator`, id, `pro:${id}:platform`, id)
      .run();
    // $25 of the $50 left: the creator holds $40 of it, so $20 leaves their balance (not $17.50).
    expect(await refund(id, `re2:${id}`, 2500)).toEqual({ creator: -2000, platform: -500 });
    // One cent: never a credit to the creator.
    const cent = await refund(id, `re3:${id}`, 1);
    expect(cent.creator).toBeLessThanOrEqual(0);
    expect(cent.creator + cent.platform).toBe(-1);
    await refund(id, `re4:${id}`, 2499);
    const net = await rows<{ account: string; total: number }>(
      "select account, sum(amount_cents) as total from ledger_entries where purchase_id = ? group by account order by account",
      id,
    );
    expect(net).toEqual([
      { account: "creator", total: 0 },
      { account: "platform", total: 0 },
    ]);
  });
});
