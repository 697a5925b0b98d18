// 'Process All Payouts' pressed again after the period's run finished: a transfer that failed since
// (its money booked back after the run began) is prepared and paid by the next press's run, driven
// through the Workflows themselves; a press when nothing is owed changes nothing.
import { introspectWorkflow } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { PayoutRunView, ProcessPayoutsResult } from "../../../shared/admin";
import { closingPeriod } from "../../services/payouts/period";
import { call, connectedAccount, env, postJson, rows, signIn, standin } from "../support/helpers";

const DAY = 24 * 60 * 60 * 1000;

async function bankCreator() {
  const id = `rr${Math.random().toString(36).slice(2, 10)}`;
  const acct = await connectedAccount();
  await env.DB.prepare("insert into users (id, email) values (?, ?)").bind(id, `${id}@example.com`).run();
  await env.DB.prepare(
    "insert into payout_settings (user_id, method, email, stripe_account_id, connect_details_submitted, connect_payouts_enabled) values (?, 'bank', ?, ?, 1, 1)",
  )
    .bind(id, `${id}@example.com`, acct)
    .run();
  return { id, acct };
}

const payoutsOf = (userId: string) =>
  rows<{ id: string; status: string; amount_cents: number }>(
    "select id, status, amount_cents from payouts where user_id = ? order by created_at",
    userId,
  );
const ledgerOf = (userId: string) =>
  rows<{ kind: string; amount_cents: number }>(
    "select kind, amount_cents from ledger_entries where user_id = ? order by created_at, id",
    userId,
  );
async function transfersTo(acct: string) {
  const { body } = await standin<{ data: { amount: number }[] }>("GET", "/v1/transfers", {
    destination: acct,
    limit: "100",
  });
  return body.data;
}

describe("Process All Payouts after a failed transfer", () => {
  it("the next press prepares the returned money with a fresh cutoff and pays it; a further press with nothing owed changes nothing", async () => {
    const admin = await signIn("admin@apewall.test");
    const now = Date.now();
    const P = closingPeriod(now);
    const c = await bankCreator();
    await env.DB.prepare(
      "insert into ledger_entries (idempotency_key, account, user_id, kind, amount_cents, purchase_id, created_at) values (?, 'creator', ?, 'sale', 4000, 'rr-sale', ?)",
    )
      .bind(`sale:rr-sale:${c.id}`, c.id, now - 10 * DAY)
      .run();
    // The connected account cannot receive the first transfer (Stripe's definitive answer about it).
    await standin("POST", "/_standin/transfers/fail_next", {
      destination: c.acct,
      code: "insufficient_capabilities_for_transfer",
    });

    const runs = await introspectWorkflow(env.PAYOUT_RUN);
    const sends = await introspectWorkflow(env.PAYOUT_SEND);
    const press = async () => {
      const res = await postJson("/api/admin/process-payouts", { month: P.month, year: P.year }, admin);
      expect(res.status).toBe(200);
      const body = await res.json<ProcessPayoutsResult>();
      for (const r of await runs.get()) await r.waitForStatus("complete");
      for (const s of await sends.get()) await s.waitForStatus("complete");
      return body;
    };
    try {
      await sends.modifyAll(async (m) => m.disableRetryDelays());
      const first = await press();
      expect(first.run.started).toBe(true);
      await vi.waitUntil(async () => (await payoutsOf(c.id))[0]?.status === "failed", {
        timeout: 15_000,
        interval: 100,
      });
      expect(await transfersTo(c.acct)).toEqual([]);

      // The account can take transfers again (fail_next was used up): the next press pays the money back out.
      const second = await press();
      expect(second.run.started).toBe(true);
      await vi.waitUntil(async () => (await payoutsOf(c.id)).some((p) => p.status === "paid"), {
        timeout: 15_000,
        interval: 100,
      });
      expect(await payoutsOf(c.id)).toMatchObject([
        { status: "failed", amount_cents: 4000 },
        { status: "paid", amount_cents: 4000 },
      ]);
      expect((await transfersTo(c.acct)).map((t) => t.amount)).toEqual([4000]);
      // A run of its own (the finished one keeps its record), which /admin's live view follows.
      expect(second.run.id).not.toBe(first.run.id);
      const view = await (
        await call(`/api/admin/payout-run?month=${P.month}&year=${P.year}`, { cookie: admin })
      ).json<PayoutRunView>();
      expect(view).toMatchObject({ run: { id: second.run.id, status: "complete" }, paid: 1, failed: 1 });

      // Nothing is owed now: another press prepares and sends nothing.
      const ledger = await ledgerOf(c.id);
      const third = await press();
      expect(third).toMatchObject({ prepared: 2, sent: 1, failed: 1, queued: 0 });
      expect(await payoutsOf(c.id)).toHaveLength(2);
      expect(await transfersTo(c.acct)).toHaveLength(1);
      expect(await ledgerOf(c.id)).toEqual(ledger);
      expect(ledger.reduce((s, l) => s + l.amount_cents, 0)).toBe(0);
    } finally {
      await sends.dispose();
      await runs.dispose();
    }
  });
});
