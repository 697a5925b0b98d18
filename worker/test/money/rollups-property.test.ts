// A property of the rollup triggers (migrations/0038_rollups.sql; docs/money.md "Rollups"): whatever
// sequence of inserts (repeated idempotency keys included), updates and deletes of purchases and
// ledger rows happens, across creators, items, browsers, days and statuses, the rollups equal their
// recomputation from the rows (compareRollups finds nothing).
import { fc } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { compareRollups } from "../../services/rollups";
import { env } from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.UTC(2026, 5, 1, 22);
const STATUSES = ["pending", "paid", "failed", "refunded", "disputed"] as const;
const KINDS = ["sale", "refund", "dispute", "fee_adjustment", "payout", "reserve"] as const;

type Op =
  | { t: "buy"; p: number; who: number; item: number; key: number; day: number; status: number; kind: number }
  | { t: "status"; p: number; status: number; paidDay: number }
  | { t: "move"; p: number; day: number; key: number }
  | { t: "drop"; p: number }
  | { t: "book"; k: number; who: number; item: number; kind: number; cents: number; day: number; account: number }
  | { t: "age"; k: number; days: number }
  | { t: "unbook"; k: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    t: fc.constant("buy" as const),
    p: fc.nat(7),
    who: fc.nat(1),
    item: fc.nat(1),
    key: fc.nat(3),
    day: fc.nat(2),
    status: fc.nat(4),
    kind: fc.nat(2),
  }),
  fc.record({ t: fc.constant("status" as const), p: fc.nat(7), status: fc.nat(4), paidDay: fc.nat(3) }),
  fc.record({ t: fc.constant("move" as const), p: fc.nat(7), day: fc.nat(2), key: fc.nat(3) }),
  fc.record({ t: fc.constant("drop" as const), p: fc.nat(7) }),
  fc.record({
    t: fc.constant("book" as const),
    k: fc.nat(9),
    who: fc.nat(1),
    item: fc.nat(2),
    kind: fc.nat(KINDS.length - 1),
    cents: fc.integer({ min: -900, max: 900 }),
    day: fc.nat(2),
    account: fc.nat(2),
  }),
  fc.record({ t: fc.constant("age" as const), k: fc.nat(9), days: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ t: fc.constant("unbook" as const), k: fc.nat(9) }),
);

let world = 0;
async function apply(w: string, o: Op) {
  const user = (n: number) => `${w}u${n}`;
  const item = (who: number, n: number) => (n === 2 ? null : `${w}c${who}${n}`);
  const at = (day: number) => T0 + day * DAY + (day % 2) * 3_600_000;
  const db = env.DB;
  if (o.t === "buy") {
    const status = STATUSES[o.status]!;
    // kind 0: a paywall checkout; 1: a funnel step; 2: an order bump.
    await db
      .prepare(
        `insert or ignore into purchases (id, content_id, creator_id, amount_cents, status, buyer_key_hash, funnel_step_id, bump_of, paid_at, created_at)
         values (?, ?, ?, 1000, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(
        `${w}p${o.p}`,
        item(o.who, o.item),
        user(o.who),
        status,
        o.key === 3 ? null : `k${o.key}`,
        o.kind === 1 ? "step" : null,
        o.kind === 2 ? "main" : null,
        status === "pending" || status === "failed" ? null : at(o.day) + 60_000,
        at(o.day),
      )
      .run();
  } else if (o.t === "status") {
    const status = STATUSES[o.status]!;
    await db
      .prepare("update purchases set status = ?, paid_at = ? where id = ?")
      .bind(status, o.paidDay === 3 ? null : at(o.paidDay), `${w}p${o.p}`)
      .run();
  } else if (o.t === "move") {
    await db
      .prepare("update purchases set created_at = ?, buyer_key_hash = ? where id = ?")
      .bind(at(o.day), o.key === 3 ? null : `k${o.key}`, `${w}p${o.p}`)
      .run();
  } else if (o.t === "drop") {
    await db.prepare("delete from purchases where id = ?").bind(`${w}p${o.p}`).run();
  } else if (o.t === "book") {
    const account = (["creator", "platform", "creator"] as const)[o.account]!;
    await db
      .prepare(
        `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, content_id, created_at)
         values (?, ?, ?, ?, ?, ?, ?) on conflict (idempotency_key) do nothing`,
      )
      .bind(
        `${w}k${o.k}`,
        account,
        account === "creator" ? user(o.who) : null,
        KINDS[o.kind],
        o.cents,
        item(o.who, o.item),
        at(o.day),
      )
      .run();
  } else if (o.t === "age") {
    await db
      .prepare("update ledger_entries set created_at = created_at + ? where idempotency_key = ?")
      .bind(o.days * DAY, `${w}k${o.k}`)
      .run();
  } else {
    await db.prepare("delete from ledger_entries where idempotency_key = ?").bind(`${w}k${o.k}`).run();
  }
}

describe("rollup triggers", () => {
  it("keep both rollups equal to their recomputation through any sequence of writes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        const w = `w${++world}`;
        const stmts = [0, 1].flatMap((who) => [
          env.DB.prepare("insert into users (id, email) values (?, ?)").bind(`${w}u${who}`, `${w}u${who}@example.com`),
          ...[0, 1].map((n) =>
            env.DB.prepare(
              "insert into content (id, user_id, title, price_cents, access_type, link_url) values (?, ?, 'Item', 1000, 'link', 'https://example.com')",
            ).bind(`${w}c${who}${n}`, `${w}u${who}`),
          ),
        ]);
        await env.DB.batch(stmts);
        for (const o of ops) await apply(w, o);
        const diff = (await compareRollups(env.DB)).filter((d) => d.userId.startsWith(w));
        expect(diff).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});
