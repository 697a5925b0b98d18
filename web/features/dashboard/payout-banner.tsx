// The dashboard's payout banner: where the next payout goes ('Payouts Enabled'), that payouts are on
// hold (never 'Payouts Enabled' while held: no money is sent), or that they are not set up.
import { Link } from "@tanstack/react-router";
import { CheckCircle2, CirclePause, Wallet } from "lucide-react";
import type { CurrentUser } from "@shared/auth";
import { Button } from "@/components/ui/button";
import { payoutDestinationText } from "@/features/payouts/format";

export function PayoutBanner({ user }: { user: CurrentUser }) {
  if (user.payoutsHeld) {
    return (
      <div
        className="flex flex-col gap-3 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 sm:flex-row sm:items-center sm:justify-between"
        data-testid="payout-banner"
      >
        <div className="flex items-start gap-3 text-sm text-amber-900">
          <CirclePause className="mt-0.5 size-5 shrink-0" />
          <div>
            <p className="font-semibold">Payouts On Hold</p>
            <p>
              No money is sent to you while your payouts are on hold; your sales go on and your earnings stay in your
              balance. Contact support to find out why and what to do.
            </p>
          </div>
        </div>
        <Button size="sm" variant="outline" asChild>
          <a href="/feedback">Contact support</a>
        </Button>
      </div>
    );
  }
  if (user.payoutEnabled) {
    return (
      <div
        className="flex items-center gap-3 rounded-xl border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900"
        data-testid="payout-banner"
      >
        <CheckCircle2 className="size-5 shrink-0" />
        <span>{payoutDestinationText(user)}</span>
      </div>
    );
  }
  return (
    <div
      className="flex flex-col gap-3 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 sm:flex-row sm:items-center sm:justify-between"
      data-testid="payout-banner"
    >
      <div className="flex items-start gap-3 text-sm text-amber-900">
        <Wallet className="mt-0.5 size-5 shrink-0" />
        <div>
          <p className="font-semibold">Payouts Not Set Up</p>
          <p>Add a payout method so we can send you your earnings.</p>
        </div>
      </div>
      <Button size="sm" variant="outline" asChild>
        <Link to="/settings">Set up payouts</Link>
      </Button>
    </div>
  );
}
