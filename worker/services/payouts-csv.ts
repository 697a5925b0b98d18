// The admin's payout CSV for a month: its columns, cells a spreadsheet cannot run as formulas, and
// the export streamed page by page so a download never looks complete when it is not. See docs/money.md.
import { dollarsField } from "../../shared/money";
import { sql } from "drizzle-orm";
import { payoutRowStatus } from "../../shared/admin";
import type { Db } from "../db/client";
import type { Period } from "./payouts/period";

const CSV_COLUMNS = [
  "payout_id",
  "creator_id",
  "creator_name",
  "creator_email",
  "method",
  "payout_email",
  "amount",
  "currency",
  "status",
  "stripe_transfer_id",
  "stripe_account_id",
  "created_at",
  "processed_at",
  "notes",
] as const;

/**
 * A cell a spreadsheet could run as a formula: one starting with = + - @ (or their full-width forms
 * ＝ ＋ － ＠, which some spreadsheets read as the ASCII ones), also after leading blanks, a BOM or a
 * no-break space; and one starting with a tab, CR or LF, a BOM or a no-break space at all.
 */
const FORMULA_START = /^[\t\r\n\uFEFF\u00A0\u3000]|^[\s\uFEFF\u00A0\u3000]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20]/;

/**
 * One CSV cell. A cell a spreadsheet would run as a formula (FORMULA_START) is prefixed with '
 * (OWASP's advice); cells with a comma, quote or line break are quoted.
 */
export function csvCell(value: unknown): string {
  let s = value === null || value === undefined ? "" : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const CSV_PAGE = 500;

/**
 * The CSV's status column, one per payout: the payout's own status (pending, processing, paid,
 * failed), except that a transfer Stripe has not settled and that waits for a retry reads
 * 'retrying', as the admin list says (payoutRowStatus).
 */
const csvStatus = (r: Record<string, unknown>) =>
  payoutRowStatus({ status: r.status as never, nextRetryAt: r.next_retry_at, lastError: r.last_error }) === "Retrying"
    ? "retrying"
    : String(r.status);

/**
 * The period's payouts as CSV, read page by page (keyset on payouts_period) as the client reads the
 * stream, and how many rows it holds (the route sends it as CSV_ROW_COUNT_HEADER).
 *
 * A download must never look complete when it is not. The rows are those that existed when the
 * export began (created_at up to then), so the count and the pages agree even while a run prepares
 * more. A page that fails to read (a D1 error after the first page) errors the stream: the body
 * ends without its last chunk and the client's read fails; the admin page also compares the rows it
 * received with the count and refuses to save a short file. A stream that ends with fewer rows than
 * counted (a row gone, which payouts never are) errors too rather than closing.
 */
export async function payoutsCsvExport(
  db: Db,
  period: Period,
  opts: { pageSize?: number; now?: number } = {},
): Promise<{ rowCount: number; stream: ReadableStream<Uint8Array> }> {
  const pageSize = opts.pageSize ?? CSV_PAGE;
  const asOf = opts.now ?? Date.now();
  const [counted] = await db.all<{ n: number }>(sql`
    select count(*) as n from payouts p join users u on u.id = p.user_id
    where p.period_year = ${period.year} and p.period_month = ${period.month} and p.created_at <= ${asOf}
  `);
  const rowCount = Number(counted?.n ?? 0);
  const encoder = new TextEncoder();
  let after = "";
  let headerSent = false;
  let written = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(`${CSV_COLUMNS.join(",")}\r\n`));
          return;
        }
        let page: Record<string, unknown>[];
        try {
          page = await db.all<Record<string, unknown>>(sql`
          select p.id, p.user_id, trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')) as name, u.email as creator_email,
                 p.method, p.email, p.amount_cents, p.currency, p.status, p.next_retry_at, p.last_error, p.stripe_transfer_id, p.stripe_account_id, p.created_at, p.processed_at, p.notes
          from payouts p join users u on u.id = p.user_id
          where p.period_year = ${period.year} and p.period_month = ${period.month} and p.created_at <= ${asOf} and p.id > ${after}
          order by p.id limit ${pageSize}
        `);
        } catch (err) {
          console.error("payout CSV: a page failed to read; the download is cut off, not ended", {
            period,
            written,
            rowCount,
            error: err instanceof Error ? err.message : String(err),
          });
          controller.error(err);
          return;
        }
        if (!page.length) {
          if (written === rowCount) return controller.close();
          const err = new Error(`payout CSV ended after ${written} of ${rowCount} rows`);
          console.error(err.message, { period });
          return controller.error(err);
        }
        written += page.length;
        after = String(page[page.length - 1].id);
        const iso = (ms: unknown) => (ms === null || ms === undefined ? "" : new Date(Number(ms)).toISOString());
        const text = page
          .map((r) =>
            [
              r.id,
              r.user_id,
              r.name,
              r.creator_email,
              r.method,
              r.email,
              dollarsField(Number(r.amount_cents) / 100),
              r.currency,
              csvStatus(r),
              r.stripe_transfer_id,
              r.stripe_account_id,
              iso(r.created_at),
              iso(r.processed_at),
              r.notes,
            ]
              .map(csvCell)
              .join(","),
          )
          .join("\r\n");
        controller.enqueue(encoder.encode(`${text}\r\n`));
      },
    },
    { highWaterMark: 0 },
  );
  return { rowCount, stream };
}

export const csvFileName = (p: Period) => `payouts-${p.year}-${String(p.month).padStart(2, "0")}.csv`;
