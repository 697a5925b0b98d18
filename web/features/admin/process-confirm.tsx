// 'Process All Payouts' asks first, naming what the press will do by method, from the list the admin
// sees: transfers it sends, manual payouts it marks paid (the admin sent them by hand), and creators
// it would prepare (only the month that closed last is prepared by a press).
import { READY_FOR_PAYOUT, type AdminCreatorPayoutRow } from "@shared/admin";
import { MIN_PAYOUT_CENTS } from "@shared/payouts";
import { Spinner } from "@/components/spinner";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
} from "@/components/ui/dialog";
import { formatCents } from "@shared/money";

export const METHOD_NAMES: Record<string, string> = {
  paypal: "PayPal",
  wise: "Wise",
  bank: "Bank (Stripe)",
  zelle: "Zelle",
  venmo: "Venmo",
  cashapp: "Cash App",
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const cents = (dollars: number) => Math.round(dollars * 100);

/**
 * What a press would do, from the rows on screen: `markPaid` are the ids sent (the pending manual
 * payouts of creators not held: the ones the admin paid by hand from this list), `text` says it.
 */
export function processPlan(
  rows: AdminCreatorPayoutRow[],
  willPrepare: boolean,
): { markPaid: string[]; text: string; empty: boolean; prepares: boolean } {
  let sendCents = 0;
  let sendCount = 0;
  const manual = new Map<string, { n: number; cents: number }>();
  const markPaid: string[] = [];
  let prepareCents = 0;
  let prepareCount = 0;
  for (const r of rows) {
    const p = r.payout;
    if (p?.byTransfer && (p.status === "pending" || p.status === "processing")) {
      sendCount++;
      sendCents += cents(p.amount);
    } else if (p && !p.byTransfer && p.status === "pending" && !r.held) {
      const m = manual.get(p.method) ?? { n: 0, cents: 0 };
      manual.set(p.method, { n: m.n + 1, cents: m.cents + cents(p.amount) });
      markPaid.push(p.id);
    } else if (
      willPrepare &&
      !r.held &&
      r.payoutSetUp &&
      (r.statusLabel === READY_FOR_PAYOUT || (r.status === "Failed" && cents(r.availableBalance) >= MIN_PAYOUT_CENTS))
    ) {
      prepareCount++;
      prepareCents += cents(r.availableBalance);
    }
  }
  const parts: string[] = [];
  if (sendCount) parts.push(`Send ${formatCents(sendCents)} to ${plural(sendCount, "creator")} by Stripe`);
  for (const [method, m] of manual)
    parts.push(
      `mark ${m.n} ${METHOD_NAMES[method] ?? method} ${m.n === 1 ? "payout" : "payouts"} you have sent (${formatCents(m.cents)})`,
    );
  if (prepareCount)
    parts.push(
      `prepare ${plural(prepareCount, "more payout")} (${formatCents(prepareCents)}), which ${prepareCount === 1 ? "appears" : "appear"} in the list afterwards`,
    );
  const text = parts.length
    ? `${parts.join("; ")}.`
    : "Nothing to send or mark paid: no payout of this month is waiting.";
  return {
    markPaid,
    text: text.charAt(0).toUpperCase() + text.slice(1),
    empty: !parts.length,
    prepares: prepareCount > 0,
  };
}

export function ProcessConfirmDialog({
  open,
  onOpenChange,
  plan,
  periodName,
  salesUpTo,
  pending,
  onConfirm,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  plan: ReturnType<typeof processPlan>;
  periodName: string;
  /** What a payout prepared now pays: "for sales up to Nov 20". */
  salesUpTo: string;
  pending: boolean;
  onConfirm: () => void;
}) {
  return (
    <Dialog open={open} onOpenChange={(o) => !pending && onOpenChange(o)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Process payouts for {periodName}?</DialogTitle>
          <DialogDescription data-testid="process-plan">{plan.text}</DialogDescription>
        </DialogHeader>
        {plan.prepares && (
          <p className="text-sm text-muted-foreground" data-testid="process-sales">
            {`A payout prepared now pays what is available now: ${salesUpTo.replace("for ", "")} (each sale is held 7 days), so it can include sales made after ${periodName} ended.`}
          </p>
        )}
        {plan.markPaid.length > 0 && (
          <p className="text-sm text-muted-foreground">
            Only the payouts listed now are marked paid: send them by hand before you confirm.
          </p>
        )}
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={pending}>
            Cancel
          </Button>
          <Button onClick={onConfirm} disabled={pending}>
            {pending && <Spinner className="size-4 text-primary-foreground" label="Processing" />} Confirm
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
