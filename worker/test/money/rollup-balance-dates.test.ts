// The creator's balance as the dashboard shows it (creatorBalance: past UTC days from the rollup
// ledger_daily, today and the hold from the ledger; docs/money.md "Rollups") equals the ledger's own
// figures (./rollup-reference.ts) and what a mover would take (availableBalances, the payout run's
// statement), at every instant around a UTC midnight, for rows dated in the past (a refund or dispute
// dated before the hold began), for a row whose created_at is changed and for a deleted row.
import { describe, expect, it } from "vitest";
import { createDb } from "../../db/client";
import { availableBalances, creatorBalance } from "../../services/balances";
import { compareRollups } from "../../services/rollups";
import { contentForm, env, postForm, row, signIn } from "../support/helpers";
import { ledgerBalance } from "./rollup-reference";

const DAY = 24 * 60 * 60 * 1000;
const MIDNIGHT = Date.UTC(2026, 9, 15);

let seq = 0;
async function creator() {
  const email = `rbd${++seq}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const cookie = await signIn(email);
  const id = (await row<{ id: string }>("select id from users where email = ?", email))!.id;
  const res = await postForm(
    "/api/content",
    contentForm({ title: "Guide", price: "20", accessType: "link", linkUrl: "https://example.com/guide" }),
    cookie,
  );
  expect(res.status).toBe(201);
  return { id, itemId: (await res.json<{ id: string }>()).id };
}

/** A paid $20 sale booked at `at` (its creator row: $16), its purchase created a minute before. */
async function sale(c: { id: string; itemId: string }, at: number) {
  const id = `rbd${++seq}${Math.random().toString(36).slice(2, 8)}`;
  await env.DB.batch([
    env.DB.prepare(
      "insert into purchases (id, content_id, creator_id, amount_cents, status, paid_at, created_at) values (?, ?, ?, 2000, 'paid', ?, ?)",
    ).bind(id, c.itemId, c.id, at, at - 60_000),
    book(c, id, "sale", 1600, at, `sale:${id}:creator`),
  ]);
  return id;
}

function book(
  c: { id: string; itemId: string },
  purchaseId: string | null,
  kind: string,
  cents: number,
  at: number,
  key?: string,
) {
  return env.DB.prepare(
    `insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, content_id, created_at)
     values (?, 'creator', ?, ?, ?, ?, ?, ?)`,
  ).bind(key ?? `${kind}:${purchaseId}:${++seq}`, c.id, kind, cents, purchaseId, purchaseId ? c.itemId : null, at);
}

/** creatorBalance at `at` equals the ledger's figures and the payout run's available. */
async function balanceAgrees(userId: string, at: number) {
  const db = createDb(env.DB);
  const shown = await creatorBalance(db, userId, at);
  expect(shown, `at ${new Date(at).toISOString()}`).toEqual(await ledgerBalance(userId, at));
  const [run] = await availableBalances(db, at, { userIds: [userId] });
  expect(shown.availableCents, `available at ${new Date(at).toISOString()}`).toBe(run?.availableCents ?? 0);
  expect(shown.carriedNegativeCents).toBe(run?.carriedNegativeCents ?? 0);
}

const around = (t: number) => [t - 1, t, t + 1];

describe("the dashboard's balance from the rollup", () => {
  it("equals the ledger's at every instant around a UTC midnight: rows at 23:59:59.999, 00:00:00.000 and just after", async () => {
    const c = await creator();
    const old = await sale(c, MIDNIGHT - 20 * DAY);
    await sale(c, MIDNIGHT - 1);
    const atMidnight = await sale(c, MIDNIGHT);
    await env.DB.batch([
      book(c, old, "refund", -800, MIDNIGHT - 1),
      book(c, atMidnight, "refund", -1600, MIDNIGHT + 1),
      book(c, null, "payout", -500, MIDNIGHT),
    ]);
    expect(await compareRollups(env.DB, c.id)).toEqual([]);
    const instants = [
      ...around(MIDNIGHT - DAY),
      ...around(MIDNIGHT - 1),
      ...around(MIDNIGHT),
      ...around(MIDNIGHT + 1),
      MIDNIGHT + DAY / 2,
      ...around(MIDNIGHT + DAY),
      // The hold's start crosses each row: seven days after each one.
      ...around(MIDNIGHT - 1 + 7 * DAY),
      ...around(MIDNIGHT + 7 * DAY),
    ];
    for (const at of instants) await balanceAgrees(c.id, at);
  });

  it("counts on hold a held sale's refund or dispute dated before the hold began, as the payout run does", async () => {
    const c = await creator();
    const now = MIDNIGHT + 10 * 3_600_000;
    // A sale still on hold (booked 2 days ago) whose dispute and refund rows are dated 10 and 9 days
    // ago: rows written with a past date, or a sale row whose created_at was corrected later.
    const held = await sale(c, now - 2 * DAY);
    await sale(c, now - 30 * DAY);
    await env.DB.batch([book(c, held, "dispute", -1000, now - 10 * DAY), book(c, held, "refund", -300, now - 9 * DAY)]);
    expect(await compareRollups(env.DB, c.id)).toEqual([]);
    for (const at of [now, now - DAY, now + 4 * DAY, now + 5 * DAY]) await balanceAgrees(c.id, at);
    const shown = await creatorBalance(createDb(env.DB), c.id, now);
    // On hold: the held sale net of its reversals ($16 - $13 = $3); available: the rest ($19 - $3).
    expect(shown.onHoldCents).toBe(300);
    expect(shown.availableCents).toBe(1600);
  });

  it("follows a ledger row whose created_at is changed across days and the hold, and a deleted row", async () => {
    const c = await creator();
    const now = MIDNIGHT + 5 * 3_600_000;
    const a = await sale(c, now - 12 * DAY);
    const b = await sale(c, now - 3 * DAY);
    await env.DB.batch([
      book(c, a, "refund", -400, now - 11 * DAY, `r:${a}`),
      book(c, b, "refund", -200, now - DAY, `r:${b}`),
    ]);
    const check = async () => {
      expect(await compareRollups(env.DB, c.id)).toEqual([]);
      for (const at of [now, now - 2 * DAY, now + 3 * DAY, now - 5 * 3_600_000]) await balanceAgrees(c.id, at);
    };
    await check();
    // Sale a's row re-dated into the hold (its refund stays 11 days back), then to today, then to tomorrow.
    for (const t of [now - DAY, now - 1000, now + DAY]) {
      await env.DB.prepare("update ledger_entries set created_at = ? where idempotency_key = ?")
        .bind(t, `sale:${a}:creator`)
        .run();
      await check();
    }
    // Sale b's refund moved before its sale, then deleted.
    await env.DB.prepare("update ledger_entries set created_at = ? where idempotency_key = ?")
      .bind(now - 20 * DAY, `r:${b}`)
      .run();
    await check();
    await env.DB.prepare("delete from ledger_entries where idempotency_key = ?").bind(`r:${b}`).run();
    await check();
  });
});
