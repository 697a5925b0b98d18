// Who is payable and where their money goes: the decisions of the run, the creator's "next payout",
// /settings and /admin. Behaviour: docs/money.md ("Payout destinations", "The monthly payout run").
import { MIN_PAYOUT_CENTS } from "../../../shared/payouts";
import type { payoutSettings, payoutSkips } from "../../db/schema";

/** Where a creator's payout goes, from their settings: a connected account by transfer, else by hand. */
export type Destination = { method: string; email: string | null; stripeAccountId: string | null };

/**
 * The one rule for where a payout goes (the run, the creator's "next payout", /settings and /admin
 * all use it): a connected bank that Stripe says can receive transfers (kept current by
 * account.updated), or the creator's manual method with its email, whichever they chose as default;
 * the other when the chosen one cannot be paid (a restricted account falls back to the manual
 * method); null when neither. A manual 'bank' (rows from before bank payouts went through Connect
 * only) is no manual method: bank money is never recorded as paid by hand.
 */
export function destinationOf(
  s:
    | Pick<
        typeof payoutSettings.$inferSelect,
        "method" | "email" | "stripeAccountId" | "connectPayoutsEnabled" | "payoutDefault"
      >
    | undefined,
): Destination | null {
  if (!s) return null;
  const bank =
    s.stripeAccountId && s.connectPayoutsEnabled
      ? { method: "bank", email: null, stripeAccountId: s.stripeAccountId }
      : null;
  const manual =
    s.method && s.method !== "bank" && s.email ? { method: s.method, email: s.email, stripeAccountId: null } : null;
  return s.payoutDefault === "manual" ? (manual ?? bank) : (bank ?? manual);
}

export type SkipReason = (typeof payoutSkips.$inferSelect)["reason"];

/** Why a creator with this balance and these settings is not paid this period; null when they are paid (or have nothing). */
export function skipReason(remainder: number, dest: Destination | null, held: boolean): SkipReason | null {
  if (remainder <= 0) return null;
  if (held) return "held";
  if (remainder < MIN_PAYOUT_CENTS) return "below_minimum";
  if (!dest) return "not_set_up";
  return null;
}
