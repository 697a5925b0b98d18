// Where a creator's payouts go: the manual method and its email, and the default between that and
// the connected bank. Protected like an API key (a recent sign-in). Each change is one D1 batch: the
// compare-and-set update, its audit row and the email to the account's address, none without the
// others; the same values again change nothing; a change that lost a race is a 409.
// Behaviour: docs/money.md ("Payout destinations"). The rule that reads them: ./destination.ts.
import { PAYOUT_DESTINATION_MESSAGES, PAYOUT_METHOD_NAMES, maskEmail } from "../../../shared/payout-destination";
import { ApiError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { dispatch, outboxInsert } from "../mail/email-outbox";

export type DestinationDeps = { d1: D1Database; emails: Queue; appUrl: string };
export type ChangeContext = { ip: string | null; now?: number };

type Current = {
  account_email: string;
  method: string | null;
  email: string | null;
  payout_default: "bank" | "manual" | null;
};

const manualName = (method: string | null, email: string | null, mask: boolean) =>
  method && email
    ? `${PAYOUT_METHOD_NAMES[method] ?? method} (${mask ? maskEmail(email) : email})`
    : "No manual payout method";
const defaultName = (choice: "bank" | "manual", c: Pick<Current, "method" | "email">, mask: boolean) =>
  choice === "bank" ? PAYOUT_METHOD_NAMES.bank : manualName(c.method, c.email, mask);

async function current(d1: D1Database, userId: string): Promise<Current> {
  const row = await d1
    .prepare(
      "select u.email as account_email, s.method, s.email, s.payout_default from users u left join payout_settings s on s.user_id = u.id where u.id = ?",
    )
    .bind(userId)
    .first<Current>();
  if (!row) throw new ApiError(401, "Unauthorized");
  return row;
}

async function record(
  deps: DestinationDeps,
  userId: string,
  ctx: ChangeContext,
  update: D1PreparedStatement,
  audit: { field: "manual_method" | "default"; oldValue: string | null; newValue: string },
  mail: { to: string; before: string; after: string },
) {
  const { d1 } = deps;
  const now = ctx.now ?? Date.now();
  const auditId = `pd_${newId()}`;
  const mailKey = `payout-destination-changed:${auditId}`;
  const [, audited] = await d1.batch([
    update,
    // changes(): the rows the update just above changed, in this same batch (0 when its compare failed).
    d1
      .prepare(
        "insert into payout_destination_events (id, user_id, field, old_value, new_value, ip, at) select ?, ?, ?, ?, ?, ?, ? where changes() = 1",
      )
      .bind(auditId, userId, audit.field, audit.oldValue, audit.newValue, ctx.ip, now),
    outboxInsert(
      d1,
      {
        dedupeKey: mailKey,
        to: mail.to,
        template: "payout-destination-changed",
        data: {
          before: mail.before,
          after: mail.after,
          at: new Date(now).toISOString(),
          ip: ctx.ip,
          settingsUrl: new URL("/settings", deps.appUrl).href,
        },
      },
      now,
      { sql: "exists (select 1 from payout_destination_events where id = ?)", binds: [auditId] },
    ),
  ]);
  if (!audited.meta.changes) throw new ApiError(409, PAYOUT_DESTINATION_MESSAGES.changedMeanwhile);
  await dispatch(d1, deps.emails, [mailKey], now);
}

/** Saves where manual payouts go. A connected bank account (Stripe Connect) is kept as it is. */
export async function setupPayout(
  deps: DestinationDeps,
  userId: string,
  input: { payoutMethod: string; payoutEmail: string },
  ctx: ChangeContext,
): Promise<void> {
  const was = await current(deps.d1, userId);
  if (was.method === input.payoutMethod && was.email === input.payoutEmail) return;
  const now = ctx.now ?? Date.now();
  const update = deps.d1
    .prepare(
      `insert into payout_settings (user_id, method, email, created_at) values (?1, ?2, ?3, ?4)
       on conflict (user_id) do update set method = excluded.method, email = excluded.email, created_at = excluded.created_at
       where payout_settings.method is ?5 and payout_settings.email is ?6`,
    )
    .bind(userId, input.payoutMethod, input.payoutEmail, now, was.method, was.email);
  await record(
    deps,
    userId,
    { ...ctx, now },
    update,
    {
      field: "manual_method",
      oldValue: was.method && was.email ? `${was.method} ${was.email}` : null,
      newValue: `${input.payoutMethod} ${input.payoutEmail}`,
    },
    {
      to: was.account_email,
      before: manualName(was.method, was.email, false),
      after: manualName(input.payoutMethod, input.payoutEmail, true),
    },
  );
}

/** Where payouts go when both the connected bank and the manual method can be paid (only the creator's own row). */
export async function setPayoutDefault(
  deps: DestinationDeps,
  userId: string,
  payoutDefault: "bank" | "manual",
  ctx: ChangeContext,
): Promise<void> {
  const was = await current(deps.d1, userId);
  const old = was.payout_default ?? "bank";
  if (old === payoutDefault) return;
  const now = ctx.now ?? Date.now();
  const update = deps.d1
    .prepare(
      `insert into payout_settings (user_id, payout_default, created_at) values (?1, ?2, ?3)
       on conflict (user_id) do update set payout_default = excluded.payout_default, created_at = excluded.created_at
       where payout_settings.payout_default is ?4`,
    )
    .bind(userId, payoutDefault, now, was.payout_default);
  await record(
    deps,
    userId,
    { ...ctx, now },
    update,
    { field: "default", oldValue: old, newValue: payoutDefault },
    { to: was.account_email, before: defaultName(old, was, false), after: defaultName(payoutDefault, was, true) },
  );
}

/**
 * D1 statements for Stripe saying a creator's connected account can now receive transfers: it
 * becomes where payouts go (unless they chose their manual method), so it is recorded like any
 * change of destination, once per account becoming ready: the compare-and-set update, its audit row
 * (field `bank`, no IP: it is Stripe's word) and the email to the account's address, in one batch.
 */
const METHOD_NAME_SQL = `(case w.method ${Object.entries(PAYOUT_METHOD_NAMES)
  .map(([k, v]) => `when '${k}' then '${v.replaceAll("'", "''")}'`)
  .join(" ")} else w.method end)`;

export function bankReadyStatements(
  d1: D1Database,
  accountId: string,
  appUrl: string,
  now: number,
): { statements: D1PreparedStatement[]; mailKey: string } {
  const auditId = `pd_${newId()}`;
  const mailKey = `payout-destination-changed:${auditId}`;
  const who = `select s.user_id, u.email as account_email, s.method, s.email from payout_settings s join users u on u.id = s.user_id where s.stripe_account_id = ?1`;
  const statements = [
    d1
      .prepare(
        "update payout_settings set connect_payouts_enabled = 1, created_at = ?2 where stripe_account_id = ?1 and connect_payouts_enabled = 0",
      )
      .bind(accountId, now),
    d1
      .prepare(
        `insert into payout_destination_events (id, user_id, field, old_value, new_value, ip, at) select ?2, w.user_id, 'bank', null, ?1, null, ?3 from (${who}) w where changes() = 1`,
      )
      .bind(accountId, auditId, now),
    d1
      .prepare(
        `insert into outbox_emails (id, job, created_at)
         select ?2, json_object('dedupeKey', ?2, 'to', w.account_email, 'template', 'payout-destination-changed', 'data', json_object(
           'before', case when w.method is not null and w.email is not null then ${METHOD_NAME_SQL} || ' (' || w.email || ')' else 'No manual payout method' end,
           'after', ?4, 'at', ?5, 'ip', null, 'settingsUrl', ?6)), ?7
         from (${who}) w where exists (select 1 from payout_destination_events where id = ?3)
         on conflict do nothing`,
      )
      .bind(
        accountId,
        mailKey,
        auditId,
        PAYOUT_METHOD_NAMES.bank,
        new Date(now).toISOString(),
        new URL("/settings", appUrl).href,
        now,
      ),
  ];
  return { statements, mailKey };
}
