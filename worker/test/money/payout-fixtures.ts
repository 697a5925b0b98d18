// What the payout test files share: creators with payout settings, sales as ledger rows dated in the
// past, the Stripe stand-in's transfers, a Stripe client that crashes after the transfer, and the
// check that the ledger's payout rows equal the payouts that still hold money.
import { expect } from "vitest";
import { createDb } from "../../db/client";
import { payoutDeps } from "../../deps";
import { connectedAccount, env, row, rows, standin } from "../support/helpers";

export const DAY = 24 * 60 * 60 * 1000;
export const db = () => createDb(env.DB);
export const deps = () => payoutDeps(env as never);
/** 02:00 UTC on the 1st, as the Cron Trigger fires. */
export const runAt = (year: number, month: number) => Date.UTC(year, month - 1, 1, 2);

let seq = 0;
/** A creator with payout settings: a connected account (paid by transfer) or a manual method. */
export async function creator(kind: "bank" | "paypal" | "none") {
  const id = `u${++seq}${Math.random().toString(36).slice(2, 8)}`;
  const email = `${id}@example.com`;
  const acct = kind === "bank" ? await connectedAccount() : "";
  await env.DB.prepare("insert into users (id, email) values (?, ?)").bind(id, email).run();
  if (kind === "bank")
    await env.DB.prepare(
      "insert into payout_settings (user_id, method, email, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, 'bank', ?, ?, 1, 1)",
    )
      .bind(id, email, acct)
      .run();
  if (kind === "paypal")
    await env.DB.prepare("insert into payout_settings (user_id, method, email) values (?, 'paypal', ?)")
      .bind(id, `pp-${email}`)
      .run();
  return { id, email, acct };
}

/**
 * A creator as the admin's screens meet them: a connected bank (no manual method) or PayPal, or
 * nothing set up, and `cents` of sales booked ten days before `now` (available). `firstName` names them.
 */
export async function creatorWithSales(
  kind: "bank" | "paypal" | "none",
  cents: number,
  opts: { now?: number; firstName?: string } = {},
): Promise<{ id: string; account: string | null; email: string }> {
  const id = `c${++seq}${Math.random().toString(36).slice(2, 8)}`;
  const email = `${id}@example.com`;
  await env.DB.prepare("insert into users (id, email, first_name) values (?, ?, ?)")
    .bind(id, email, opts.firstName ?? null)
    .run();
  let account: string | null = null;
  if (kind === "bank") {
    account = await connectedAccount();
    await env.DB.prepare(
      "insert into payout_settings (user_id, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, ?, 1, 1)",
    )
      .bind(id, account)
      .run();
  }
  if (kind === "paypal")
    await env.DB.prepare("insert into payout_settings (user_id, method, email) values (?, 'paypal', ?)")
      .bind(id, `pp-${email}`)
      .run();
  if (cents)
    await env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, created_at) values (?, 'creator', ?, 'sale', ?, ?)",
    )
      .bind(`sale:${id}`, id, cents, (opts.now ?? Date.now()) - 10 * DAY)
      .run();
  return { id, account, email };
}

/** A Stripe client whose transfer is made and then the connection drops before the answer arrives. */
export function crashAfterTransfer() {
  const real = deps().stripe;
  const crash = {
    transferId: "",
    stripe: {
      transfers: {
        list: real.transfers.list.bind(real.transfers),
        create: async (...args: Parameters<typeof real.transfers.create>) => {
          crash.transferId = (await real.transfers.create(...args)).id;
          throw Object.assign(new Error("Connection closed"), { type: "StripeConnectionError" });
        },
      },
    },
  };
  return crash;
}

/** A sale booked at `at` (creator 80%, platform 20%), as fulfil writes it. */
export async function sale(userId: string, cents: number, at: number) {
  const pid = `p${++seq}${Math.random().toString(36).slice(2, 8)}`;
  const fee = Math.round(cents * 0.2);
  await env.DB.batch([
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'creator', ?, 'sale', ?, ?, ?)",
    ).bind(`sale:${pid}:creator`, userId, cents - fee, pid, at),
    env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'platform', null, 'platform_fee', ?, ?, ?)",
    ).bind(`sale:${pid}:platform`, fee, pid, at),
  ]);
  return pid;
}

export const payoutsOf = (userId: string) =>
  rows<{
    id: string;
    amount_cents: number;
    status: string;
    period_year: number;
    period_month: number;
    stripe_transfer_id: string | null;
    method: string;
  }>("select * from payouts where user_id = ? order by created_at", userId);

export async function transfersTo(acct: string) {
  const { body } = await standin<{
    data: { id: string; amount: number; transfer_group: string; metadata: Record<string, string> }[];
  }>("GET", "/v1/transfers", { destination: acct, limit: "100" });
  return body.data;
}

/** The ledger's payout rows for a creator equal the payouts that still hold money (not failed). */
export async function expectLedgerBalanced(userId: string) {
  const ledger = await row<{ cents: number | null }>(
    "select sum(amount_cents) as cents from ledger_entries where user_id = ? and kind in ('payout', 'payout_reversal')",
    userId,
  );
  const live = await row<{ cents: number | null }>(
    "select sum(amount_cents) as cents from payouts where user_id = ? and status <> 'failed'",
    userId,
  );
  expect((ledger?.cents ?? 0) + (live?.cents ?? 0)).toBe(0);
  const dupes = await rows(
    "select idempotency_key, count(*) as n from ledger_entries where user_id = ? group by idempotency_key having n > 1",
    userId,
  );
  expect(dupes).toEqual([]);
}
