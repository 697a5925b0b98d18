// Words for money states, dates and payout methods on the creator's screens.
import { MIN_PAYOUT_CENTS } from "@shared/constants";
import type { CurrentUser } from "@shared/schemas";
import type { MoneyState, NextPayout } from "@shared/types";
import { formatUsd } from "@/lib/utils";

export const METHOD_LABELS: Record<string, string> = {
  paypal: "PayPal",
  wise: "Wise",
  // Payouts by Stripe Transfer to the connected bank account (never a manual method).
  bank: "Bank account (Stripe)",
  zelle: "Zelle",
  venmo: "Venmo",
  cashapp: "Cash App",
};

/** "Payouts Enabled · …": where the next payout goes (the server's destination), with the manual method's email. */
export function payoutDestinationText(user: CurrentUser): string {
  if (user.payoutDestination === "bank") return `Payouts Enabled · ${METHOD_LABELS.bank}`;
  const method = user.payoutMethod ? ` · ${METHOD_LABELS[user.payoutMethod] ?? user.payoutMethod}` : "";
  return `Payouts Enabled${method}${user.payoutEmail ? ` · ${user.payoutEmail}` : ""}`;
}

export const formatDate = (iso: string) => new Date(iso).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });

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
      return `Next payout: ${formatUsd(next.amount)} on ${when}.`;
    case "not_set_up":
      return `No payout on ${when}: payouts are not set up yet. Add a payout method to get paid.`;
    case "bank_restricted":
      return `No payout on ${when}: Stripe cannot send money to your bank account yet. Finish your bank setup with Stripe, or add a payout method to get paid.`;
    case "below_minimum":
      return `No payout on ${when}: your available balance is below the $${MIN_PAYOUT_CENTS / 100} minimum and carries over to the next month.`;
    case "on_hold":
      return `No payout on ${when}: your earnings are still on hold until then.`;
  }
}

/** "400: message" → "message" (the toast shows the server's words). */
export const withoutStatus = (message: string) => message.replace(/^\d{3}: /, "");
