import { Link } from "@tanstack/react-router";
import { CheckCircle2, Wallet } from "lucide-react";
import type { CurrentUser } from "@shared/auth";
import { Button } from "@/components/ui/button";
import { payoutDestinationText } from "@/features/payouts/format";

export function PayoutBanner({ user }: { user: CurrentUser }) {
  if (user.payoutEnabled) {
    return (
      <div className="flex items-center gap-3 rounded-xl border border-emerald-200 bg-emerald-50 px-4 py-3 text-sm text-emerald-900">
        <CheckCircle2 className="size-5 shrink-0" />
        <span>{payoutDestinationText(user)}</span>
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-3 rounded-xl border border-amber-200 bg-amber-50 px-4 py-3 sm:flex-row sm:items-center sm:justify-between">
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
