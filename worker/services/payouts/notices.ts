// What a payout's change tells the outside: the creator's emails (prepared, paid, failed, skipped)
// and the payout.paid / payout.failed webhooks, each a statement that goes into the batch making the
// change, so a notice exists exactly when its change committed. Behaviour: docs/money.md.
import { webhookStatements } from "../webhooks/delivery";
import type { PayoutDeps, PayoutRow } from "./deps";

/**
 * payout.paid / payout.failed for the creator's webhook endpoints, in the batch that changes the
 * payout's status, only if `guard` (that change) holds; keyed `{type}:{payout id}`, so once each.
 */
export function payoutWebhook(
  deps: Pick<PayoutDeps, "d1">,
  p: Pick<
    PayoutRow,
    "id" | "userId" | "amountCents" | "currency" | "kind" | "method" | "periodYear" | "periodMonth" | "stripeTransferId"
  >,
  type: "payout.paid" | "payout.failed",
  guard: { sql: string; binds: unknown[] },
  now: number,
  failureReason?: string,
): D1PreparedStatement[] {
  const data = {
    payoutId: p.id,
    kind: p.kind,
    period: `${p.periodYear}-${String(p.periodMonth).padStart(2, "0")}`,
    amountCents: p.amountCents,
    currency: p.currency,
    method: p.method,
    stripeTransferId: p.stripeTransferId ?? null,
    ...(failureReason ? { failureReason } : {}),
  };
  return webhookStatements(deps.d1, p.userId, type, data, `${type}:${p.id}`, now, guard);
}

const METHOD_NAMES: Record<string, string> = {
  paypal: "PayPal",
  wise: "Wise",
  bank: "bank transfer",
  zelle: "Zelle",
  venmo: "Venmo",
  cashapp: "Cash App",
};

/**
 * The outbox statement for the payout emails of `template`: one row per payout matching `where`
 * (SQL over `payouts p`, with its own binds numbered from ?5), built from the payout row as the
 * same batch leaves it, keyed `{template}:{payout id}`. It goes into the batch that makes the
 * change, so an email exists exactly when the change committed (../mail/email-outbox.ts).
 */
export function payoutMailInsert(
  deps: PayoutDeps,
  template: "payout-prepared" | "payout-paid" | "payout-failed",
  match: { where: string; binds: unknown[] },
  now: number,
  reason = "",
): D1PreparedStatement {
  const monthName = (m: number) =>
    new Date(Date.UTC(2000, m - 1, 1)).toLocaleString("en-US", { month: "long", timeZone: "UTC" });
  const months = Array.from({ length: 12 }, (_, i) => `when ${i + 1} then '${monthName(i + 1)}'`).join(" ");
  const methods = Object.entries(METHOD_NAMES)
    .map(([k, v]) => `when '${k}' then '${v}'`)
    .join(" ");
  const extra =
    template === "payout-prepared"
      ? ", 'byTransfer', json(case when p.stripe_account_id is null then 'false' else 'true' end)"
      : template === "payout-failed"
        ? ", 'reason', ?4"
        : "";
  return deps.d1
    .prepare(
      `insert into outbox_emails (id, job, created_at)
       select ?1 || ':' || p.id,
         json_object('dedupeKey', ?1 || ':' || p.id, 'to', u.email, 'template', ?1, 'data', json_object(
           'payoutId', p.id, 'amountCents', p.amount_cents,
           'period', (case p.period_month ${months} end) || ' ' || p.period_year,
           'method', (case p.method ${methods} else p.method end),
           'settingsUrl', ?2, 'withdrawal', json(case when p.kind = 'withdrawal' then 'true' else 'false' end)${extra})),
         ?3
       from payouts p join users u on u.id = p.user_id
       where ${match.where}
       on conflict (id) do nothing`,
    )
    .bind(template, new URL("/settings", deps.appUrl).toString(), now, reason, ...match.binds);
}

/** The outbox statement for the skip emails of the skip rows `ids` (fresh ids: a row that already existed is not re-mailed). */
export function skipMailInsert(deps: PayoutDeps, ids: string[], now: number): D1PreparedStatement {
  const months = Array.from(
    { length: 12 },
    (_, i) =>
      `when ${i + 1} then '${new Date(Date.UTC(2000, i, 1)).toLocaleString("en-US", { month: "long", timeZone: "UTC" })}'`,
  ).join(" ");
  return deps.d1
    .prepare(
      `insert into outbox_emails (id, job, created_at)
       select 'payout-skipped:' || s.id,
         json_object('dedupeKey', 'payout-skipped:' || s.id, 'to', u.email, 'template', 'payout-skipped', 'data', json_object(
           'reason', s.reason, 'amountCents', s.amount_cents,
           'period', (case s.period_month ${months} end) || ' ' || s.period_year, 'settingsUrl', ?1)),
         ?2
       from payout_skips s join users u on u.id = s.user_id
       where s.id in (select value from json_each(?3))
       on conflict (id) do nothing`,
    )
    .bind(new URL("/settings", deps.appUrl).toString(), now, JSON.stringify(ids));
}
