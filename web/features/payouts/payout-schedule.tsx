// The one payout schedule, in the words of shared/payouts.ts (settings, the pricing FAQ and /admin).
import { PAYOUT_SCHEDULE_TEXT } from "@shared/payouts";
import { cn } from "@/lib/utils";

export function PayoutScheduleList({ className }: { className?: string }) {
  return (
    <ul className={cn("list-disc space-y-1 pl-5", className)} data-testid="payout-schedule">
      {PAYOUT_SCHEDULE_TEXT.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}
