// Words for money states, dates and payout methods on the creator's screens.
import { MIN_PAYOUT_CENTS, SALE_HOLD_DAYS } from "@shared/payouts";
import { PAYOUT_METHOD_NAMES } from "@shared/payout-destination";
import type { CurrentUser } from "@shared/auth";
import type { MoneyState, TimelineEvent } from "@shared/earnings";
import type { NextPayout, PayoutDelay, PayoutSkipReason, PayoutStatus } from "@shared/payouts";
import { formatCentsShort, formatDollars } from "@shared/money";

/** The method names the payout-destination emails use too. */
export const METHOD_LABELS: Record<string, string> = PAYOUT_METHOD_NAMES;

/** "Payouts Enabled · …": where the next payout goes (the server's destination), with the manual method's email. */
export function payoutDestinationText(user: CurrentUser): string {
  if (user.payoutDestination === "bank") return `Payouts Enabled · ${METHOD_LABELS.bank}`;
  const method = user.payoutMethod ? ` · ${METHOD_LABELS[user.payoutMethod] ?? user.payoutMethod}` : "";
  return `Payouts Enabled${method}${user.payoutEmail ? ` · ${user.payoutEmail}` : ""}`;
}

export const formatDate = (iso: string) =>
  new Date(iso).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });

export function moneyStateText(state: MoneyState): string {
  switch (state.kind) {
    case "on_hold":
      return `On hold until ${formatDate(state.until)}`;
    case "available":
      return "Available";
    case "in_payout":
      return `In the ${state.month} payout`;
    case "in_withdrawal":
      return "In your withdrawal";
    case "paid":
      return `Paid on ${formatDate(state.paidAt)}`;
    case "reversed":
      return `Reversed (${state.reason})`;
  }
}

export function nextPayoutText(next: NextPayout): string {
  const when = formatDate(next.date);
  switch (next.reason) {
    case null:
      return `Next payout: ${formatDollars(next.amount)} on ${when}.`;
    case "not_set_up":
      return `No payout on ${when}: payouts are not set up yet. Add a payout method to get paid.`;
    case "bank_restricted":
      return `No payout on ${when}: Stripe cannot send money to your bank account yet. Finish your bank setup with Stripe, or add a payout method to get paid.`;
    case "nothing_available":
      return `No payout on ${when}: nothing available to pay out. Sales become available ${SALE_HOLD_DAYS} days after they are made.`;
    case "below_minimum":
      return `No payout on ${when}: your available balance is below the ${formatCentsShort(MIN_PAYOUT_CENTS)} minimum and carries over to the next month.`;
    case "on_hold":
      return `No payout on ${when}: your earnings are still on hold until then.`;
  }
}

/** "400: message" → "message" (the toast shows the server's words). */
export { withoutStatus } from "@/lib/api";

/** "Nov 27, 10:32 AM UTC" in the viewer's time zone, named. */
const formatDateTime = (iso: string) =>
  new Date(iso).toLocaleString("en-US", {
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  });

/** A payout's or withdrawal's status in words (payout history, the timeline, the withdraw card). */
export function payoutStatusText(p: {
  status: PayoutStatus;
  paidAt: string | null;
  delay: PayoutDelay | null;
}): string {
  switch (p.status) {
    case "pending":
      return "Prepared";
    case "processing":
      return p.delay ? (p.delay.reason === "held" ? "On hold" : "Delayed") : "Sending";
    case "paid":
      return p.paidAt ? `Paid on ${formatDate(p.paidAt)}` : "Paid";
    case "failed":
      return "Failed";
  }
}

/** Badge colours of a payout's status. */
export const payoutStatusVariant = (s: PayoutStatus) =>
  s === "paid" ? "success" : s === "failed" ? "destructive" : "warning";

/** Why a sending transfer waits, and when it is tried next ("Delayed — we're retrying; no action needed. Next try: …"). */
export function delayText(d: PayoutDelay, now = Date.now()): string {
  const next = Date.parse(d.nextTryAt) <= now ? "in a moment" : formatDateTime(d.nextTryAt);
  if (d.reason === "held")
    return `On hold — your payouts are on hold, so it waits until they are released. Contact support to find out why. Next check: ${next}.`;
  return `Delayed — we're retrying; no action needed. Next try: ${next}.`;
}

const SKIP_REASONS: Record<PayoutSkipReason, { why: string; what: string }> = {
  below_minimum: {
    why: `below the ${formatCentsShort(MIN_PAYOUT_CENTS)} minimum`,
    what: "It is paid once your available balance reaches the minimum.",
  },
  not_set_up: {
    why: "payouts were not set up",
    what: "Connect your bank account or add a payout method on this page to be paid in the next payout.",
  },
  held: {
    why: "your payouts are on hold",
    what: "Contact support to find out why and what to do; nothing is lost while payouts are on hold.",
  },
};

/** "Not paid in the October 2026 payout: below the $25 minimum — $12.40 carries over", and what the creator can do. */
export function skipText(e: Extract<TimelineEvent, { kind: "skip" }>): { title: string; advice: string } {
  const r = SKIP_REASONS[e.reason];
  return {
    title: `Not paid in the ${e.month} payout: ${r.why} — ${formatDollars(e.amount)} carries over`,
    advice: r.what,
  };
}

/** "Withdrawal" or "October 2026 payout". */
export const payoutEventTitle = (e: Extract<TimelineEvent, { kind: "payout" }>) =>
  e.payoutKind === "withdrawal" ? "Withdrawal" : `${e.month} payout`;
