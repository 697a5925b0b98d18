// The creator rows of /admin: a table from the sm breakpoint, and below it a stacked row per creator
// (name, amount, status, the one action that applies), so a phone never scrolls sideways. Both read
// the same row (shared/admin.ts AdminCreatorPayoutRow) and offer the same actions (./payout-actions.tsx).
import { READY_FOR_PAYOUT, salesUpToText, type AdminCreatorPayoutRow, type PayoutRowStatus } from "@shared/admin";
import { formatDollars } from "@shared/money";
import { Badge } from "@/components/ui/badge";
import { RowActions } from "./payout-actions";
import { METHOD_NAMES } from "./process-confirm";

type Row = AdminCreatorPayoutRow;

const PAYOUT_STATUS: Record<string, string> = {
  pending: "Prepared",
  processing: "Sending",
  paid: "Paid",
  failed: "Failed",
};
const BADGE: Record<PayoutRowStatus, "success" | "secondary" | "destructive" | "warning" | "outline" | "default"> = {
  Paid: "success",
  Pending: "default",
  Retrying: "warning",
  Failed: "destructive",
  Held: "warning",
  "Not set up": "outline",
  "Below minimum": "secondary",
  "Nothing to pay": "outline",
};
const StatusBadge = ({ row }: { row: Row }) => (
  <Badge variant={row.statusLabel === READY_FOR_PAYOUT ? "success" : BADGE[row.status]}>{row.statusLabel}</Badge>
);

const nameOf = (r: Row) => [r.firstName, r.lastName].filter(Boolean).join(" ");

function Who({ row }: { row: Row }) {
  return nameOf(row) ? (
    <>
      <div className="font-medium break-words">{nameOf(row)}</div>
      <div className="text-xs text-muted-foreground break-all">{row.email}</div>
    </>
  ) : (
    <div className="font-medium break-all">{row.email}</div>
  );
}

/** The month's payout: amount and state, the sales it pays, why it failed, its reference, its next try. */
function PayoutCell({ row }: { row: Row }) {
  const p = row.payout;
  if (!p) return <span className="text-muted-foreground">None</span>;
  return (
    <>
      <div>{`${formatDollars(p.amount)} · ${PAYOUT_STATUS[p.status] ?? p.status}`}</div>
      <div className="text-xs text-muted-foreground">{salesUpToText(Date.parse(p.preparedAt))}</div>
      {p.status === "failed" && p.notes && <div className="text-xs text-destructive break-words">{p.notes}</div>}
      {p.reference && <div className="text-xs text-muted-foreground break-all">Ref: {p.reference}</div>}
      {row.status === "Retrying" && (
        <div className="text-xs text-amber-700 break-words">
          {p.nextRetryAt ? `Retry ${new Date(p.nextRetryAt).toLocaleString()}` : "Retrying"}
          {p.lastError ? ` · ${p.lastError}` : ""}
        </div>
      )}
    </>
  );
}

function Method({ row }: { row: Row }) {
  return row.payoutSetUp ? (
    <>
      <div>{METHOD_NAMES[row.payoutMethod ?? ""] ?? row.payoutMethod}</div>
      <div className="text-xs text-muted-foreground break-all">{row.payoutEmail}</div>
    </>
  ) : (
    <span className="text-muted-foreground">Not set up</span>
  );
}

/** Below sm: one stacked row per creator. */
export function StackedRows({ rows }: { rows: Row[] }) {
  return (
    <ul className="divide-y rounded-md border sm:hidden">
      {rows.map((r) => (
        <li key={r.userId} className="space-y-2 p-3 text-sm" data-testid="creator-payout-card">
          <div className="flex items-start justify-between gap-3">
            <div className="min-w-0">
              <Who row={r} />
            </div>
            <div className="shrink-0 text-right">
              <div className="font-semibold">{formatDollars(r.payout?.amount ?? r.availableBalance)}</div>
              <div className="text-xs text-muted-foreground">{r.payout ? "this month's payout" : "available"}</div>
            </div>
          </div>
          <div className="flex flex-wrap items-center justify-between gap-2">
            <div className="flex min-w-0 flex-wrap items-center gap-2">
              <StatusBadge row={r} />
              {r.held?.reason && <span className="text-xs text-muted-foreground break-words">{r.held.reason}</span>}
            </div>
            <RowActions row={r} primary />
          </div>
          {r.payout && (
            <div className="text-xs">
              <PayoutCell row={r} />
            </div>
          )}
        </li>
      ))}
    </ul>
  );
}

/** From sm: the table. */
export function PayoutTable({ rows }: { rows: Row[] }) {
  return (
    <div className="relative hidden overflow-x-auto sm:block">
      <table className="w-full text-sm">
        <thead className="text-left text-muted-foreground">
          <tr className="border-b">
            <th className="py-2 pr-3 font-medium">Creator</th>
            <th className="py-2 pr-3 font-medium">Payout method</th>
            <th className="py-2 pr-3 text-right font-medium">Total earnings</th>
            <th className="py-2 pr-3 text-right font-medium">Available</th>
            <th className="py-2 pr-3 text-right font-medium">Content</th>
            <th className="py-2 pr-3 font-medium">Status</th>
            <th className="py-2 pr-3 font-medium">This month's payout</th>
            <th className="py-2 font-medium">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.userId} className="border-b last:border-0" data-testid="creator-payout-row">
              <td className="py-2 pr-3">
                <Who row={r} />
              </td>
              <td className="py-2 pr-3">
                <Method row={r} />
              </td>
              <td className="py-2 pr-3 text-right">{formatDollars(r.totalEarnings)}</td>
              <td className="py-2 pr-3 text-right font-medium">{formatDollars(r.availableBalance)}</td>
              <td className="py-2 pr-3 text-right">{r.contentCount}</td>
              <td className="py-2 pr-3">
                <StatusBadge row={r} />
                {r.held?.reason && <div className="mt-1 text-xs text-muted-foreground">{r.held.reason}</div>}
              </td>
              <td className="py-2 pr-3">
                <PayoutCell row={r} />
              </td>
              <td className="py-2 text-right">
                <RowActions row={r} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
