// The manual rail: PayPal, Wise, Zelle, Venmo and Cash App payouts stay pending until the admin pays
// them by hand and 'Process All Payouts' sends back the ids of the list they saw. Like the transfer
// rail, it marks a payout paid with the same notices (email and payout.paid webhook, in the batch).
// Behaviour: docs/money.md ("The admin dashboard").
import { dispatch } from "../mail/email-outbox";
import { dispatchWebhooks } from "../webhooks/delivery";
import type { PayoutDeps, PayoutRow } from "./deps";
import { payoutMailInsert, payoutWebhook } from "./notices";
import type { Period } from "./period";

/**
 * The admin paid by hand the payouts `ids` (from the list they saw): those still pending, of
 * `period` and by a manual method become paid, each once, with their email in the same batch.
 * Returns the ids this call marked.
 */
export async function markManualPaid(deps: PayoutDeps, period: Period, ids: string[], now: number): Promise<string[]> {
  const listed = JSON.stringify([...new Set(ids)]);
  const rows = ids.length
    ? await deps.d1
        .prepare("select * from payouts where id in (select value from json_each(?))")
        .bind(listed)
        .all<Record<string, unknown>>()
    : { results: [] };
  const hooks = rows.results.map((r) =>
    payoutWebhook(
      deps,
      {
        id: String(r.id),
        userId: String(r.user_id),
        amountCents: Number(r.amount_cents),
        currency: String(r.currency),
        kind: r.kind as PayoutRow["kind"],
        method: String(r.method),
        periodYear: Number(r.period_year),
        periodMonth: Number(r.period_month),
        stripeTransferId: null,
      },
      "payout.paid",
      {
        sql: "exists (select 1 from payouts where id = ? and status = 'paid' and processed_at = ?)",
        binds: [r.id, now],
      },
      now,
    ),
  );
  const [marked] = await deps.d1.batch([
    deps.d1
      .prepare(
        `update payouts set status = 'paid', processed_at = ?1
         where id in (select value from json_each(?2)) and period_year = ?3 and period_month = ?4 and status = 'pending' and stripe_account_id is null and not exists (select 1 from payout_settings s where s.user_id = payouts.user_id and s.held_at is not null)
         returning id`,
      )
      .bind(now, listed, period.year, period.month),
    payoutMailInsert(
      deps,
      "payout-paid",
      {
        where:
          "p.id in (select value from json_each(?5)) and p.period_year = ?6 and p.period_month = ?7 and p.status = 'paid' and p.stripe_account_id is null and p.processed_at = ?8",
        binds: [listed, period.year, period.month, now],
      },
      now,
    ),
    ...hooks.flat(),
  ]);
  const done = (marked.results as { id: string }[]).map((r) => r.id);
  await dispatch(
    deps.d1,
    deps.emails,
    done.map((id) => `payout-paid:${id}`),
    now,
  );
  for (const r of rows.results.filter((r) => done.includes(String(r.id))))
    await dispatchWebhooks(deps.d1, deps.webhooks, String(r.user_id), [`payout.paid:${r.id}`], now);
  return done;
}
